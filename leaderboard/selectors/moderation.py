"""Disqualifications of cards and methods (benchmark specification §9.2): the one in force."""

from django.db.models import Q

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

