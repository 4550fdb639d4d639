"""What governance decides of the leaderboard: disqualifications and their lifting, and the tier bands of a
language pair."""

import itertools
import math
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from common.errors import ErrorKind, NotAllowed
from corpus.language_pairs import pair_key, version_pair_key
from corpus.models import DatasetVersion
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require

from .. import verification
from ..models import (
    Disqualification,
    Method,
    RunCard,
    TierBands,
)
from .errors import LeaderboardError, written_reason


class DisqualificationNotAllowed(NotAllowed):
    """The actor may not take this leaderboard decision (disqualify, lift, set tier bands)."""


@transaction.atomic
def disqualify(*, actor: User, reason: str, run_card: RunCard | None = None,
               method: Method | None = None) -> Disqualification:
    """Take a run card (or a method, with every card of it) out of every ranking and of the install read's default
    order (benchmark specification §9.2), with a written reason, audited. The card stays reachable at its page,
    marked; nothing is deleted."""
    if (run_card is None) == (method is None):
        raise LeaderboardError(gettext("Disqualify either one run card or one method."), "target")
    if run_card is not None:
        require(actor, "run_card.disqualify", run_card, error=DisqualificationNotAllowed)
    else:
        require(actor, "method.disqualify", method, error=DisqualificationNotAllowed)
    reason = written_reason(reason)
    target: dict[str, Any] = {"run_card": run_card} if run_card is not None else {"method": method}
    if Disqualification.objects.select_for_update().filter(lifted_at__isnull=True, **target).exists():
        raise LeaderboardError(gettext("It is already disqualified."), "target", kind=ErrorKind.CONFLICT)
    found = Disqualification.objects.create(reason=reason, disqualified_by=actor, **target)
    record_event(AuditAction.RUN_CARD_DISQUALIFIED, actor=actor, **disqualification_subject(found),
                 details={**disqualification_target(found), "reason": reason})
    return found


@transaction.atomic
def lift_disqualification(*, actor: User, disqualification: Disqualification, reason: str) -> Disqualification:
    """Bring a disqualified card or method back into the rankings, with the reason; the disqualification stays on
    record beside it."""
    found = Disqualification.objects.select_for_update(of=("self",)).select_related(
        "run_card__dataset_version__dataset", "method").get(pk=disqualification.pk)
    if found.run_card is not None:
        require(actor, "run_card.disqualify", found.run_card, error=DisqualificationNotAllowed)
    else:
        require(actor, "method.disqualify", found.method, error=DisqualificationNotAllowed)
    reason = written_reason(reason)
    if found.lifted_at is not None:
        raise LeaderboardError(gettext("This disqualification was already lifted."), "target",
                               kind=ErrorKind.CONFLICT)
    found.lifted_at, found.lifted_by, found.lift_reason = timezone.now(), actor, reason
    found.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
    record_event(AuditAction.DISQUALIFICATION_LIFTED, actor=actor, **disqualification_subject(found),
                 details={**disqualification_target(found), "reason": reason})
    return found


def disqualification_subject(found: Disqualification) -> dict[str, Any]:
    """Where the audit event goes: the card's steward's chain, or the site chain for a method."""
    if found.run_card is not None:
        return {"organization": found.run_card.dataset_version.dataset.organization, "obj": found.run_card}
    return {"organization": None, "obj": found.method}


def disqualification_target(found: Disqualification) -> dict[str, str]:
    if found.run_card is not None:
        return {"target": "run_card", "run_id": str(found.run_card.run_id)}
    assert found.method is not None
    return {"target": "method", "method_id": found.method.method_id}


TIER_BAND_FIELDS = ("emerging", "functional", "deployable", "fluent")


@transaction.atomic
def set_tier_bands(*, actor: User, organization: Organization, language_pair: str,
                   bands: dict[str, Any]) -> TierBands:
    """Set the quality-tier bands of one of the organization's language pairs (benchmark specification §5: bands may
    differ by language and are recalibrated from human review), audited with the bands before and after. Each lower
    bound is a number strictly between 0 and 1 and above the one before it (emerging < functional < deployable <
    fluent); the pair is one of the organization's datasets'. The leaderboard's quality tier and the review trigger
    read them."""
    require(actor, "organization.govern", organization, error=DisqualificationNotAllowed)
    pair = pair_key(language_pair) if isinstance(language_pair, str) else None
    if pair is None or pair not in organization_pairs(organization):
        raise LeaderboardError(gettext("Choose a language pair of your organization's datasets."), "language_pair")
    values: dict[str, float] = {}
    for name in TIER_BAND_FIELDS:
        value = bands.get(name)
        if isinstance(value, str):
            try:
                value = float(value.strip().replace(",", "."))
            except ValueError:
                value = None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not 0 < value < 1:
            raise LeaderboardError(gettext("Expected a number between 0 and 1 (for example 0.70)."), name)
        values[name] = float(value)
    for lower, upper in itertools.pairwise(TIER_BAND_FIELDS):
        if values[lower] >= values[upper]:
            raise LeaderboardError(gettext("Each band starts above the one before it: %(lower)s %(low)s is not below "
                                           "%(upper)s %(high)s.") % {
                "lower": lower, "low": f"{values[lower]:.2f}", "upper": upper, "high": f"{values[upper]:.2f}"}, upper)
    found = TierBands.objects.select_for_update().filter(organization=organization, language_pair=pair).first()
    before = found.bounds() if found is not None else dict(verification.DEFAULT_TIER_BANDS)
    if found is None:
        found = TierBands(organization=organization, language_pair=pair, updated_by=actor)
    for name, value in values.items():
        setattr(found, name, value)
    found.updated_by, found.updated_at = actor, timezone.now()
    found.save()
    record_event(AuditAction.TIER_BANDS_CHANGED, actor=actor, organization=organization, obj=found,
                 details={"language_pair": pair, "before": before, "after": values})
    return found


def organization_pairs(organization: Organization) -> dict[str, str]:
    """pair key → the pair as the organization's newest dataset version of it writes it."""
    pairs: dict[str, str] = {}
    for label, source, target in DatasetVersion.objects.filter(dataset__organization=organization).order_by(
            "-imported_at").values_list("language_pair", "source_language", "target_language"):
        key = version_pair_key(label, source, target)
        if key is not None:
            pairs.setdefault(key, label)
    return pairs
