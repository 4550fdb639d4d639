"""What speakers are owed and were paid: rates in force, timesheets, payments, cost estimates."""

from dataclasses import dataclass
from decimal import Decimal
from statistics import median
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import (
    Count,
    Max,
    Q,
    Sum,
)

from ledger.models import Payment, PayPolicy
from ledger.selectors import Rate, amount_owed, in_cents, paid_per_speaker, rate_in_force, stored_pay_policy
from organizations.models import Organization

from ..models import (
    Campaign,
    Rating,
    RatingWithdrawal,
)
from .campaigns import LARGE_CARD_FIELDS


def campaign_rate(campaign: Campaign) -> Rate:
    return rate_in_force(campaign, PayPolicy.objects.filter(organization_id=campaign.organization_id).first())


@dataclass(frozen=True)
class PayFigures:
    """A speaker's time in a campaign and what it is owed and was paid."""

    ratings: int
    seconds: float
    owed: Decimal | None
    paid: Decimal

    @property
    def hours(self) -> float:
        return self.seconds / 3600

    @property
    def balance(self) -> Decimal | None:
        return None if self.owed is None else self.owed - self.paid


@dataclass(frozen=True)
class TimesheetRow(PayFigures):
    """One speaker's line of a campaign's timesheet: every rating they ever submitted counts (changed, undone or
    withdrawn alike: they are paid for their time whether or not their ratings are used)."""

    speaker_id: int
    email: str
    name: str
    untimed: int
    withdrawn: bool


def timesheet(campaign: Campaign, rate: Rate | None = None) -> list[TimesheetRow]:
    """Each speaker who rated in the campaign, with their time, amount owed and paid (three queries)."""
    rate = rate or campaign_rate(campaign)
    times = (Rating.objects.filter(assignment__campaign=campaign).order_by().values("speaker_id").annotate(
        ratings=Count("pk"), untimed=Count("pk", filter=Q(active_seconds__isnull=True)),
        seconds=Sum("active_seconds"), withdrawn=Count("pk", filter=Q(withdrawal__isnull=False))))
    paid = paid_per_speaker(campaign)
    rows = list(times)
    users = {pk: (email, f"{first} {last}".strip()) for pk, email, first, last in get_user_model().objects.filter(
        pk__in=[row["speaker_id"] for row in rows]).values_list("pk", "email", "first_name", "last_name")}
    return sorted((TimesheetRow(
        speaker_id=row["speaker_id"], email=users[row["speaker_id"]][0], name=users[row["speaker_id"]][1],
        ratings=row["ratings"], untimed=row["untimed"], seconds=row["seconds"] or 0.0,
        owed=amount_owed(row["seconds"] or 0.0, rate), paid=paid.get(row["speaker_id"], in_cents(None)),
        withdrawn=row["withdrawn"] == row["ratings"]) for row in rows), key=lambda row: row.email)


@dataclass(frozen=True)
class SpeakerCampaignPay(PayFigures):
    """A speaker's own line for one campaign on their page."""

    campaign: Campaign
    language_pair: str
    rate: Rate
    withdrawn_at: Any
    can_withdraw: bool


def speaker_pay(user) -> list[SpeakerCampaignPay]:
    """Every campaign the speaker rated in, newest first, with their hours, amount owed and paid, and whether their
    ratings are withdrawn: only their own (the queries filter on the user)."""
    times = {row["assignment__campaign_id"]: row for row in Rating.objects.filter(speaker=user).order_by()
             .values("assignment__campaign_id").annotate(
                 ratings=Count("pk"), seconds=Sum("active_seconds"),
                 kept=Count("pk", filter=Q(withdrawal__isnull=True)))}
    if not times:
        return []
    paid = dict(Payment.objects.filter(speaker=user, campaign_id__in=list(times)).order_by().values("campaign_id")
                .annotate(total=Sum("amount")).values_list("campaign_id", "total"))
    withdrawn = dict(RatingWithdrawal.objects.filter(speaker=user, campaign_id__in=list(times)).order_by()
                     .values("campaign_id").annotate(last=Max("withdrawn_at")).values_list("campaign_id", "last"))
    policies = {policy.organization_id: policy for policy in PayPolicy.objects.filter(
        organization__campaigns__pk__in=list(times)).distinct()}
    rows = []
    for campaign in (Campaign.objects.filter(pk__in=list(times)).select_related("organization")
                     .defer(*LARGE_CARD_FIELDS).select_related("run_card__dataset_version").order_by("-opened_at")):
        rate = rate_in_force(campaign, policies.get(campaign.organization_id))
        row = times[campaign.pk]
        seconds = row["seconds"] or 0.0
        rows.append(SpeakerCampaignPay(
            campaign=campaign, language_pair=campaign.run_card.dataset_version.language_pair,
            ratings=row["ratings"], seconds=seconds, rate=rate, owed=amount_owed(seconds, rate),
            paid=in_cents(paid.get(campaign.pk)), withdrawn_at=withdrawn.get(campaign.pk),
            can_withdraw=row["kept"] > 0))
    return rows


# Without a history of its own, an organization's estimates assume the stated default; this many measured ratings
# are enough for its own median to take over.
HISTORY_MINIMUM = 30
HISTORY_SAMPLE = 5000


@dataclass(frozen=True)
class CostEstimate:
    ratings: int
    seconds_per_rating: float
    from_history: bool
    history_ratings: int
    rate: Rate

    @property
    def hours(self) -> float:
        return self.ratings * self.seconds_per_rating / 3600

    @property
    def amount(self) -> Decimal | None:
        return amount_owed(self.ratings * self.seconds_per_rating, self.rate)


def estimated_cost(organization: Organization, ratings: int) -> CostEstimate:
    """What a campaign of this many ratings should cost the organization: ratings × the median measured seconds per
    rating of its last 5,000 timed ratings (once it has 30), else its stated default (45 s when it never set one)."""
    seconds = [value for value in Rating.objects.filter(assignment__campaign__organization=organization,
                                                        active_seconds__isnull=False)
               .order_by("-pk").values_list("active_seconds", flat=True)[:HISTORY_SAMPLE] if value is not None]
    policy = stored_pay_policy(organization)
    rate = rate_in_force(None, policy)
    if len(seconds) >= HISTORY_MINIMUM:
        return CostEstimate(ratings, float(median(seconds)), True, len(seconds), rate)
    default = policy.default_seconds_per_rating if policy else PayPolicy._meta.get_field(
        "default_seconds_per_rating").default
    return CostEstimate(ratings, float(default), False, len(seconds), rate)
