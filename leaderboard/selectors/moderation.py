"""Disqualifications of cards and methods (benchmark specification §9.2): the one in force, and the history."""

from django.db.models import Q, QuerySet

from ..models import Disqualification, RunCard


def active_disqualification(*, run_card: RunCard | None = None, method=None) -> Disqualification | None:
    """The disqualification in force on a card (its own, or its method's) or on a method; None when there is none."""
    if run_card is not None:
        method = run_card.method
        targets = Q(run_card=run_card) | (Q(method=method) if method is not None else Q(pk__in=[]))
    elif method is not None:
        targets = Q(method=method)
    else:
        return None
    return (Disqualification.objects.filter(targets, lifted_at__isnull=True)
            .select_related("run_card", "method").order_by("-disqualified_at").first())


def disqualification_history(*, run_card: RunCard | None = None, method=None) -> QuerySet[Disqualification]:
    """Every disqualification of a card (and its method) or of a method, lifted or not, newest first."""
    if run_card is not None:
        targets = Q(run_card=run_card) | (Q(method_id=run_card.method_id) if run_card.method_id else Q(pk__in=[]))
    else:
        targets = Q(method=method)
    return Disqualification.objects.filter(targets).order_by("-disqualified_at")
