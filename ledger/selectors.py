"""Every read of the ledger with a rule: the rate in force and what time at that rate is owed, what was paid for a
piece of work, and how each speaker is credited (a credit's name, or anonymous)."""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import models
from django.db.models import Q, QuerySet, Sum
from django.utils.translation import gettext as _

from organizations.models import Organization, Role
from organizations.selectors import org_ids_with_roles

from . import work
from .models import Payment, PayPolicy, SpeakerCredit

# Pay: the rate in force and what time is owed at it.


@dataclass(frozen=True)
class Rate:
    hourly_rate: Decimal | None
    currency: str
    source: str  # "own" (the work's), "organization" or "" (none set)


def stored_pay_policy(organization: Organization) -> PayPolicy | None:
    return PayPolicy.objects.filter(organization=organization).first()


def rate_in_force(work_done: Any, policy: PayPolicy | None) -> Rate:
    """The hourly rate of the paid work (a campaign or a batch: anything with `hourly_rate` and `currency`) when it
    has its own, else its organization's (`policy`), else none."""
    if work_done is not None and work_done.hourly_rate is not None:
        return Rate(work_done.hourly_rate, work_done.currency, "own")
    if policy is not None:
        return Rate(policy.hourly_rate, policy.currency, "organization")
    return Rate(None, "", "")


CENT = Decimal("0.01")


def in_cents(total: Decimal | None) -> Decimal:
    """A sum of payments to Payment.amount's two places: PostgreSQL keeps the column's scale (45.00) but SQLite
    drops trailing zeros (45), and every page and export must show the same figure whatever the database."""
    return (total or Decimal(0)).quantize(CENT)


def amount_owed(seconds: float, rate: Rate) -> Decimal | None:
    if rate.hourly_rate is None:
        return None
    return (Decimal(str(round(seconds, 3))) * rate.hourly_rate / 3600).quantize(CENT, rounding=ROUND_HALF_UP)


def payments_for(work_done: models.Model) -> QuerySet[Payment]:
    """The payments and corrections recorded for a campaign or a batch, oldest first."""
    field = work.kind_of(work_done).payment_field
    return (Payment.objects.filter(**{field: work_done}).select_related("speaker", "recorded_by")
            .order_by("recorded_at", "pk"))


def paid_per_speaker(work_done: models.Model) -> dict[int, Decimal]:
    """What each speaker was paid for a campaign or a batch, corrections included (one query)."""
    field = work.kind_of(work_done).payment_field
    return {speaker: in_cents(total) for speaker, total in Payment.objects.filter(**{field: work_done}).order_by()
            .values("speaker_id").annotate(total=Sum("amount")).values_list("speaker_id", "total")}


# Credit: how each speaker is named on the lists that name speakers.


def credits_to_choose(user) -> list[Organization]:
    """The organizations a user may set their credit for: those they speak for now or ever did paid work for."""
    if not user.is_authenticated:
        return []
    query = Q(pk__in=org_ids_with_roles(user, [Role.SPEAKER]))
    for kind in work.registered():
        query |= Q(pk__in=kind.organizations_worked_for(user))
    return list(Organization.objects.filter(query).order_by("name"))


def credit_choices(user) -> dict[int, SpeakerCredit]:
    """The user's credit choice per organization id (no row: anonymous)."""
    return {credit.organization_id: credit for credit in SpeakerCredit.objects.filter(user=user)}


def credited_name(credit: SpeakerCredit | None, full_name: str) -> str | None:
    """The name a credit shows, or None for an anonymous speaker (also when they chose their name and have none)."""
    if credit is None or credit.choice == SpeakerCredit.Choice.ANONYMOUS:
        return None
    if credit.choice == SpeakerCredit.Choice.DISPLAY_NAME:
        return credit.display_name
    return full_name.strip() or None


def credited_names(organization_id: int, speaker_ids: Sequence[int]) -> dict[int, str | None]:
    """Each speaker's credited name with the organization, None for the anonymous (two queries)."""
    users = dict((pk, f"{first} {last}") for pk, first, last in get_user_model().objects.filter(
        pk__in=list(speaker_ids)).values_list("pk", "first_name", "last_name"))
    credits = {credit.user_id: credit for credit in SpeakerCredit.objects.filter(
        organization_id=organization_id, user_id__in=list(users))}
    return {pk: credited_name(credits.get(pk), full_name) for pk, full_name in users.items()}


def speaker_labels(organization: Organization, speaker_ids: Sequence[int]) -> dict[int, str]:
    """How each speaker appears on a list of the organization (the decision page, exports): the name they chose to
    be credited by, or "Anonymous speaker N" — N stable within the list, by account order."""
    names = credited_names(organization.pk, speaker_ids)
    labels: dict[int, str] = {}
    anonymous = 0
    for pk in sorted(names):
        name = names[pk]
        if name is None:
            anonymous += 1
            name = _("Anonymous speaker %(number)d") % {"number": anonymous}
        labels[pk] = name
    return labels
