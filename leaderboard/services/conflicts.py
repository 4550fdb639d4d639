"""Declared conflicts of interest (with a run card or a method), and the signal review follows them by."""

from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from common.errors import ErrorKind, NotAllowed
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require

from ..models import (
    ConflictDeclaration,
    Method,
    RunCard,
)
from .errors import LeaderboardError, written_reason

# Conflicts of interest.

# Sent inside the transaction when someone declares a conflict of interest (declaration, actor): review takes them out
# of the open pools of the card (of every card of the method) without this app importing review.
conflict_declared = Signal()
CONFLICT_REASON_LIMIT = 500


class ConflictNotAllowed(NotAllowed):
    """Only the person who declared a conflict of interest withdraws it."""


@transaction.atomic
def declare_conflict(*, actor: User, reason: str, run_card: RunCard | None = None,
                     method: Method | None = None) -> ConflictDeclaration:
    """The signed-in person declares their own conflict of interest with a run card or a method, saying why: from
    now on they are in no review pool of it and record no decision on it (audited; they leave the open pools at
    once)."""
    if (run_card is None) == (method is None):
        raise LeaderboardError(gettext("Declare a conflict with either one run card or one method."), "target")
    reason = written_reason(reason)
    if len(reason) > CONFLICT_REASON_LIMIT:
        raise LeaderboardError(gettext("The reason has %(count)s characters; at most %(limit)s are kept.") % {
            "count": len(reason), "limit": CONFLICT_REASON_LIMIT}, "reason")
    target: dict[str, Any] = {"run_card": run_card} if run_card is not None else {"method": method}
    User.objects.select_for_update().filter(pk=actor.pk).first()
    if ConflictDeclaration.objects.filter(user=actor, withdrawn_at__isnull=True, **target).exists():
        raise LeaderboardError(gettext("You already declared a conflict of interest with it."), "target",
                               kind=ErrorKind.CONFLICT)
    declaration = ConflictDeclaration.objects.create(user=actor, reason=reason, **target)
    record_event(AuditAction.CONFLICT_DECLARED, actor=actor, **conflict_subject(declaration),
                 details={**conflict_target(declaration), "user": actor.email, "reason": reason})
    conflict_declared.send(sender=ConflictDeclaration, declaration=declaration, actor=actor)
    return declaration


@transaction.atomic
def withdraw_conflict(*, actor: User, declaration: ConflictDeclaration) -> ConflictDeclaration:
    """The person who declared a conflict takes it back (audited); they join no pool by it."""
    found = (ConflictDeclaration.objects.select_for_update(of=("self",))
             .select_related("run_card__dataset_version__dataset__organization", "method").get(pk=declaration.pk))
    require(actor, "conflict.withdraw", found, error=ConflictNotAllowed)
    if found.withdrawn_at is not None:
        raise LeaderboardError(gettext("This declaration was already withdrawn."), "target", kind=ErrorKind.CONFLICT)
    found.withdrawn_at = timezone.now()
    found.save(update_fields=["withdrawn_at"])
    record_event(AuditAction.CONFLICT_WITHDRAWN, actor=actor, **conflict_subject(found),
                 details={**conflict_target(found), "user": actor.email})
    return found


def conflict_subject(declaration: ConflictDeclaration) -> dict[str, Any]:
    """Where the audit event goes: the card's steward's chain, or the site chain for a method."""
    if declaration.run_card is not None:
        return {"organization": declaration.run_card.dataset_version.dataset.organization, "obj": declaration}
    return {"organization": None, "obj": declaration}


def conflict_target(declaration: ConflictDeclaration) -> dict[str, str]:
    if declaration.run_card is not None:
        return {"run_id": str(declaration.run_card.run_id)}
    assert declaration.method is not None  # a declaration names one target (a database constraint)
    return {"method_id": declaration.method.method_id}
