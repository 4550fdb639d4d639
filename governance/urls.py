from django.urls import path

from . import views

app_name = "governance"

urlpatterns = [
    path("orgs/<slug:slug>/", views.organization_detail, name="organization"),
    path("orgs/<slug:slug>/audit/", views.audit_log, name="audit_log"),
    path("invitations/<str:token>/", views.invitation, name="invitation"),
]
