from django.urls import path

from . import views

app_name = "governance"

urlpatterns = [
    path("orgs/<slug:slug>/", views.organization_detail, name="organization"),
    path("invitations/<str:token>/", views.invitation, name="invitation"),
]
