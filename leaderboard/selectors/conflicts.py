"""Conflicts of interest with a run card: who is in conflict and why, and one's own declaration."""

from typing import Any

from django.db.models import Q
from django.utils.translation import gettext

from ..models import ConflictDeclaration, Method, RunCard


def conflicts_of(run_card: RunCard) -> dict[int, str]:
    """The accounts in conflict of interest with a run card, each with why (the first reason that applies): its
    submitter, its method's submitter, and whoever declared a conflict with the card or its method (declarations
    in force). Never in a review pool of the card; never the one who records its decision. Two queries."""
    declared = Q(run_card_id=run_card.pk)
    if run_card.method_id is not None:
        declared |= Q(method_id=run_card.method_id)
    reasons: dict[int, str] = {}
    for user_id, reason in (ConflictDeclaration.objects.filter(declared, withdrawn_at__isnull=True)
                            .order_by("declared_at", "pk").values_list("user_id", "reason")):
        reasons.setdefault(user_id, gettext("declared a conflict of interest (%(reason)s)") % {"reason": reason})
    if run_card.method_id is not None:
        author = Method.objects.filter(pk=run_card.method_id).values_list("submitted_by_id", flat=True).first()
        if author is not None:
            reasons[author] = gettext("submitted the run card's method")
    reasons[run_card.submitted_by_id] = gettext("submitted the run card")
    return reasons


def own_conflict(user, *, run_card: RunCard | None = None,
                 method: Method | None = None) -> ConflictDeclaration | None:
    """The signed-in user's declaration in force on the card or the method, if they made one."""
    if not user.is_authenticated:
        return None
    target: dict[str, Any] = {"run_card": run_card} if run_card is not None else {"method": method}
    return ConflictDeclaration.objects.filter(user=user, withdrawn_at__isnull=True, **target).first()
