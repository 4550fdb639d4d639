from django.urls import path

from . import views

app_name = "organizations"

urlpatterns = [
    path("orgs/<slug:slug>/", views.organization_detail, name="organization"),
    path("orgs/<slug:slug>/audit/", views.audit_log, name="audit_log"),
    path("orgs/<slug:slug>/commitments/", views.commitments, name="commitments"),
    path("orgs/<slug:slug>/members/<int:membership_id>/remove/", views.member_remove, name="member_remove"),
    path("orgs/<slug:slug>/members/<int:membership_id>/role/", views.member_role, name="member_role"),
    path("invitations/<str:token>/", views.invitation, name="invitation"),
]
