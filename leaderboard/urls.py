from django.urls import path

from . import views

app_name = "leaderboard"

urlpatterns = [
    path("", views.leaderboard, name="leaderboard"),
    path("cards/<uuid:public_id>/", views.card_detail, name="card"),
    path("cards/<uuid:public_id>/disqualify/", views.disqualify_card, name="disqualify-card"),
    path("methods/<str:method_id>/disqualify/", views.disqualify_method, name="disqualify-method"),
    path("disqualifications/<int:pk>/lift/", views.lift_disqualification, name="lift-disqualification"),
    path("cards/<uuid:public_id>/conflict/", views.declare_conflict, name="declare-card-conflict"),
    path("methods/<str:method_id>/conflict/", views.declare_conflict, name="declare-method-conflict"),
    path("conflicts/<int:pk>/withdraw/", views.withdraw_conflict, name="withdraw-conflict"),
]
