from django.urls import path

from . import views

app_name = "leaderboard"

urlpatterns = [
    path("", views.leaderboard, name="leaderboard"),
    path("cards/<uuid:public_id>/", views.card_detail, name="card"),
]
