"""Participation terms, method submissions, ownership transfers (docs/submissions.md) and the governance
dashboard that gathers what waits for a decision."""

from django.urls import path

from . import views

app_name = "submissions"

urlpatterns = [
    path("orgs/<slug:slug>/dashboard/", views.dashboard, name="dashboard"),
    path("orgs/<slug:slug>/terms/", views.terms, name="terms"),
    path("orgs/<slug:slug>/terms/<str:version>/accept/", views.accept_terms, name="accept_terms"),
    path("orgs/<slug:slug>/submit/", views.submit, name="submit"),
    path("orgs/<slug:slug>/submissions/", views.organization_submissions, name="org_submissions"),
    path("submissions/", views.my_submissions, name="my_submissions"),
    path("submissions/<uuid:public_id>/", views.submission_detail, name="submission"),
    path("submissions/<uuid:public_id>/transfer/", views.transfer_new, name="transfer_new"),
    path("submissions/<uuid:public_id>/package/", views.package_download, name="package"),
    path("submissions/<uuid:public_id>/revision/", views.package_revise, name="revise"),
    path("submissions/<uuid:public_id>/sign-offs/", views.sign_off, name="sign_off"),
    path("submissions/<uuid:public_id>/rights-permissions/", views.rights_permission_new, name="rights_permission"),
    path("submissions/<uuid:public_id>/rights-permissions/<int:pk>/document/", views.rights_permission_document,
         name="rights_permission_document"),
    path("submissions/<uuid:public_id>/a1-runs/", views.a1_run_new, name="a1_run"),
    path("transfers/<uuid:public_id>/", views.transfer_detail, name="transfer"),
    path("methods/<str:method_id>/", views.method_detail, name="method"),
]
