"""Decisions an organization takes together (docs/governance.md)."""

from django.urls import path

from . import views

app_name = "governance"

urlpatterns = [
    path("orgs/<slug:slug>/decisions/", views.decision_list, name="decisions"),
    path("decisions/<uuid:public_id>/", views.decision_detail, name="decision"),
    path("decisions/<uuid:public_id>/sign/", views.sign, name="sign"),
    path("decisions/<uuid:public_id>/amend/", views.amend, name="amend"),
    path("decisions/<uuid:public_id>/withdraw/", views.withdraw, name="withdraw"),
    path("decisions/<uuid:public_id>/execute/", views.execute, name="execute"),
]
