from django.urls import path

from . import submission_views, views

app_name = "governance"

urlpatterns = [
    path("orgs/<slug:slug>/", views.organization_detail, name="organization"),
    path("orgs/<slug:slug>/audit/", views.audit_log, name="audit_log"),
    path("orgs/<slug:slug>/members/<int:membership_id>/remove/", views.member_remove, name="member_remove"),
    path("orgs/<slug:slug>/members/<int:membership_id>/role/", views.member_role, name="member_role"),
    path("orgs/<slug:slug>/dashboard/", views.dashboard, name="dashboard"),
    path("invitations/<str:token>/", views.invitation, name="invitation"),
    # Participation terms, method submissions, ownership transfers (docs/submissions.md).
    path("orgs/<slug:slug>/terms/", submission_views.terms, name="terms"),
    path("orgs/<slug:slug>/terms/<str:version>/accept/", submission_views.accept_terms, name="accept_terms"),
    path("orgs/<slug:slug>/submit/", submission_views.submit, name="submit"),
    path("orgs/<slug:slug>/submissions/", submission_views.organization_submissions, name="org_submissions"),
    path("submissions/", submission_views.my_submissions, name="my_submissions"),
    path("submissions/<uuid:public_id>/", submission_views.submission_detail, name="submission"),
    path("submissions/<uuid:public_id>/transfer/", submission_views.transfer_new, name="transfer_new"),
    path("transfers/<uuid:public_id>/", submission_views.transfer_detail, name="transfer"),
    path("methods/<str:method_id>/", submission_views.method_detail, name="method"),
]
