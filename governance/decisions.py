"""Governance's own kind of decision: changing k (and the least open time) of a kind, under the current k."""

from django.urls import reverse
from django.utils.translation import gettext_lazy

from . import kinds, services

POLICY = kinds.DecisionKind(
    name=services.POLICY_KIND,
    label=gettext_lazy("Change how many signatures a kind of decision needs"),
    execute=services.execute_policy,
    check=services.check_policy,
    checks=(("count", gettext_lazy("I counted the governance staff who could sign under the new k")),
            ("agreed", gettext_lazy("The community agreed to this change"))),
    url=lambda payload: "",
    min_open_hours=72,
    expires_after_days=30,
)


def register() -> None:
    kinds.register(POLICY)


def decision_url(decision) -> str:
    return reverse("governance:decision", args=[decision.public_id])
