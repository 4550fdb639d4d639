"""Review campaigns: the sampled items of one run card, who rates which, every rating ever given,
the governance decisions taken from them, and each organization's gate thresholds."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from common.append_only import AppendOnlyModel
from corpus.models import Entry
from leaderboard.models import RunCard, RunCardResult
from leaderboard.verification import DEPLOYABLE_THRESHOLD
from ledger.models import CURRENCY_PATTERN, MAX_RATING_SECONDS
from organizations.models import Organization

RATING_CHOICES = [
    ("reject", gettext_lazy("Reject")),
    ("gist", gettext_lazy("Gist")),
    ("acceptable", gettext_lazy("Acceptable")),
    ("excellent", gettext_lazy("Excellent")),
    ("cannot_judge", gettext_lazy("Can't judge")),
]
FLAG_FIELDS = ("semantically_wrong", "culturally_inappropriate", "hallucination", "acceptable_variant")


MAX_REPEATS = 20
"""Repeated items per speaker: a few are enough to see consistency, and each costs a speaker's time."""

IDLE_CAP_SECONDS = 180
"""A gap without any input longer than this is not working time: the rating page stops counting until the next
touch or key, and a rating timed by the server (no JavaScript) counts at most this long."""


# How long the name speakers see may be: a phone's line.
SPEAKER_TITLE_LIMIT = 80

class Campaign(models.Model):
    """One community review of one run card's outputs (SPEC §5)."""

    class Status(models.TextChoices):
        PREPARING = "preparing", gettext_lazy("Preparing")
        OPEN = "open", gettext_lazy("Open")
        PAUSED = "paused", gettext_lazy("Paused")
        CLOSED = "closed", gettext_lazy("Closed")

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="campaigns")
    run_card = models.ForeignKey(RunCard, on_delete=models.PROTECT, related_name="campaigns")
    title = models.CharField(max_length=200, help_text="Shown to governance staff only; speakers review blind.")
    speaker_title = models.CharField(
        max_length=SPEAKER_TITLE_LIMIT, blank=True,
        help_text="The name speakers see, which tells their campaigns apart and never names the method.")
    sample_size = models.PositiveIntegerField()
    ratings_per_item = models.PositiveSmallIntegerField(default=3)
    seed = models.BigIntegerField()
    show_reference = models.BooleanField(default=False)
    control_count = models.PositiveIntegerField(default=0)
    deadline = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PREPARING)
    below_threshold_reason = models.TextField(
        blank=True,
        help_text=f"Why a run card under the Deployable composite ({DEPLOYABLE_THRESHOLD:.2f}) is reviewed anyway.",
    )
    strata = models.JSONField(default=list, help_text="Difficulty strata as sampled: tier, population, allocated.")
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    opened_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)
    reminder_sent_at = models.DateTimeField(null=True, blank=True)
    summary = models.JSONField(default=dict, blank=True, help_text="Last aggregate figures, refreshed by a task.")
    summary_at = models.DateTimeField(null=True, blank=True)
    instructions = models.TextField(
        blank=True, help_text="Written by governance for the speakers: shown before the first item and on every item."
    )
    device_may_hold_secret_items = models.BooleanField(
        default=False,
        help_text="Whether a speaker's phone may keep upcoming secret items to rate them offline.",
    )
    repeat_count = models.PositiveSmallIntegerField(
        default=0,
        help_text="Items each speaker is shown a second time, later in their order, to measure their consistency; "
                  "the second rating never counts in the figures.",
    )
    hourly_rate = models.DecimalField(
        max_digits=8, decimal_places=2, null=True, blank=True,
        help_text="Speakers' pay per active hour in this campaign; empty: the organization's rate (PayPolicy).")
    currency = models.CharField(max_length=3, blank=True, help_text="ISO 4217 code of `hourly_rate`.")
    variety = models.CharField(
        max_length=100, blank=True,
        help_text="The target language's variety (dialect) its speakers must be attested for; empty: any variety.")

    class Meta:
        ordering = ["-opened_at"]
        constraints = [
            models.CheckConstraint(condition=Q(repeat_count__lte=MAX_REPEATS), name="campaign_repeat_count_at_most_20"),
            models.CheckConstraint(condition=Q(sample_size__gte=1), name="campaign_sample_size_positive"),
            models.CheckConstraint(condition=Q(ratings_per_item__gte=1, ratings_per_item__lte=10),
                                   name="campaign_ratings_per_item_1_10"),
            models.CheckConstraint(condition=Q(status__in=["preparing", "open", "paused", "closed"]),
                                   name="campaign_status_valid"),
            models.CheckConstraint(condition=Q(closed_at__isnull=True) | Q(status="closed"),
                                   name="campaign_closed_at_only_when_closed"),
            models.CheckConstraint(
                condition=Q(hourly_rate__isnull=True, currency="")
                | Q(hourly_rate__gte=0, currency__regex=CURRENCY_PATTERN),
                name="campaign_rate_with_currency"),
        ]

    def __str__(self) -> str:
        return self.title


class CampaignSpeaker(models.Model):
    """A speaker in a campaign's pool; `left_at` set when they leave (their open items are reassigned)."""

    # Indexed as the first column of campaignspeaker_unique.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="pool", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    added_at = models.DateTimeField(default=timezone.now)
    left_at = models.DateTimeField(null=True, blank=True)
    invited_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["user__email"]
        constraints = [models.UniqueConstraint(fields=["campaign", "user"], name="campaignspeaker_unique")]


class Item(models.Model):
    """One sampled output to rate; a control item shows the entry's human reference as the candidate."""

    # Indexed as the first column of item_unique_per_campaign.
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="items", db_index=False)
    result = models.ForeignKey(RunCardResult, on_delete=models.PROTECT, related_name="+")
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="+")
    is_control = models.BooleanField(default=False)
    difficulty = models.PositiveSmallIntegerField(null=True, blank=True)
    domain = models.CharField(max_length=20, blank=True)

    class Meta:
        ordering = ["campaign", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["campaign", "result", "is_control"], name="item_unique_per_campaign"),
        ]

    @property
    def candidate(self) -> str:
        return self.entry.reference if self.is_control else self.result.predicted


class Assignment(models.Model):
    """One item given to one speaker. `position` is the speaker's own shuffled order."""

    class State(models.TextChoices):
        OPEN = "open", gettext_lazy("To rate")
        RATED = "rated", gettext_lazy("Rated")
        SKIPPED = "skipped", gettext_lazy("Can't judge")
        RELEASED = "released", gettext_lazy("Released (speaker left)")

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="assignments")
    # Indexed as the first column of assignment_one_per_item_speaker.
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments", db_index=False)
    # Indexed as the first column of assignment_queue_order.
    speaker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                related_name="review_assignments", db_index=False)
    position = models.PositiveIntegerField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    created_at = models.DateTimeField(default=timezone.now)
    is_repeat = models.BooleanField(
        default=False, help_text="The item shown again to the same speaker, to measure consistency: its rating "
                                 "never counts in the figures and it is never reassigned.")

    class Meta:
        ordering = ["campaign", "speaker", "position"]
        constraints = [
            models.UniqueConstraint(fields=["item", "speaker", "is_repeat"], name="assignment_one_per_item_speaker"),
            models.CheckConstraint(condition=Q(state__in=["open", "rated", "skipped", "released"]),
                                   name="assignment_state_valid"),
        ]
        # A speaker's queue in their order: the next item and the next twenty read the first rows of this index
        # instead of sorting every open assignment of the speaker.
        indexes = [models.Index(fields=["speaker", "campaign", "state", "position"], name="assignment_queue_order")]


class Rating(models.Model):
    """Every rating a speaker submitted, kept forever: a change adds a row and retires the previous one
    (`is_current`), an undo withdraws it. `client_id` makes a re-sent submission store nothing new."""

    client_id = models.UUIDField(unique=True, help_text="Generated by the rating page for each submission.")
    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="ratings")
    speaker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    value = models.CharField(max_length=12, choices=RATING_CHOICES)
    semantically_wrong = models.BooleanField(default=False)
    culturally_inappropriate = models.BooleanField(default=False)
    hallucination = models.BooleanField(default=False)
    acceptable_variant = models.BooleanField(default=False)
    comment = models.TextField(blank=True)
    correction = models.TextField(blank=True, help_text="The speaker's own translation, when they offered one.")
    created_at = models.DateTimeField(default=timezone.now)
    is_current = models.BooleanField(default=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True, help_text="Set by the speaker's undo.")
    active_seconds = models.FloatField(
        null=True, blank=True,
        help_text="Working time on this rating (for pay only, never for judging quality): the page's visible, "
                  "focused time without idle gaps, or the server's interval without JavaScript, capped. Empty: "
                  "not measured.")
    timed_by = models.CharField(max_length=6, blank=True, choices=[("device", "device"), ("server", "server")])
    withdrawal = models.ForeignKey(
        "RatingWithdrawal", null=True, blank=True, on_delete=models.PROTECT, related_name="withdrawn_ratings",
        db_index=False,  # rating_withdrawn: only withdrawn ratings, not every new rating's empty value
        help_text="Set when the speaker withdrew their ratings of the campaign: kept, never counted again.")

    class Meta:
        ordering = ["assignment", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["assignment"], condition=Q(is_current=True),
                                    name="rating_one_current_per_assignment"),
            models.CheckConstraint(condition=Q(value__in=[value for value, _ in RATING_CHOICES]),
                                   name="rating_value_valid"),
            models.CheckConstraint(condition=Q(withdrawn_at__isnull=True) | Q(is_current=False),
                                   name="rating_withdrawn_not_current"),
            models.CheckConstraint(condition=Q(withdrawal__isnull=True) | Q(is_current=False),
                                   name="rating_withdrawal_not_current"),
            models.CheckConstraint(
                condition=Q(active_seconds__isnull=True)
                | Q(active_seconds__gte=0, active_seconds__lte=MAX_RATING_SECONDS),
                name="rating_active_seconds_in_range"),
        ]
        indexes = [models.Index(fields=["withdrawal"], condition=Q(withdrawal__isnull=False), name="rating_withdrawn")]

    @property
    def flags(self) -> list[str]:
        return [flag for flag in FLAG_FIELDS if getattr(self, flag)]


class GatePolicy(models.Model):
    """An organization's thresholds for the Deployable validation gate (docs/validation-gate.md)."""

    organization = models.OneToOneField(Organization, on_delete=models.CASCADE, related_name="gate_policy")
    require_complete_coverage = models.BooleanField(default=True)
    min_usable_lower_bound = models.FloatField(default=DEPLOYABLE_THRESHOLD)
    min_tier_usable_share = models.FloatField(default=0.50)
    max_reject_share = models.FloatField(default=0.10)
    min_alpha = models.FloatField(default=0.40)
    min_rated_items = models.PositiveIntegerField(default=30)
    min_ac1 = models.FloatField(default=0.60)
    min_distinct_speakers = models.PositiveIntegerField(default=3)
    standard1_min_chrf = models.FloatField(
        null=True, blank=True,
        help_text="Corpus chrF++ from which a standard/1 card (no composite) is ready for review without a written "
                  "reason; empty: every such card needs one.")
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(min_ac1__gte=0.4, min_ac1__lte=1), name="gatepolicy_min_ac1_meaningful"),
            models.CheckConstraint(
                condition=Q(standard1_min_chrf__isnull=True)
                | Q(standard1_min_chrf__gte=0, standard1_min_chrf__lte=100),
                name="gatepolicy_standard1_min_chrf_in_range"),
            models.CheckConstraint(condition=Q(min_rated_items__gte=30), name="gatepolicy_min_rated_items_at_least_30"),
            models.CheckConstraint(condition=Q(min_distinct_speakers__gte=2),
                                   name="gatepolicy_min_distinct_speakers_at_least_2"),
            # The ranges of review.gate.POLICY_RANGES: each threshold keeps its meaning.
            models.CheckConstraint(
                condition=Q(min_usable_lower_bound__gte=0.5, min_usable_lower_bound__lte=0.95,
                            min_tier_usable_share__gte=0.25, min_tier_usable_share__lte=0.95,
                            max_reject_share__gte=0, max_reject_share__lte=0.5,
                            min_alpha__gte=-1, min_alpha__lte=1),
                name="gatepolicy_thresholds_meaningful",
            ),
        ]


class RatingExamples(models.Model):
    """An organization's own examples of each rating, written by its community for its speakers (optional):
    the rating page shows them beside the four ratings and "can't judge"."""

    organization = models.OneToOneField(Organization, on_delete=models.CASCADE, related_name="rating_examples")
    reject = models.TextField(blank=True)
    gist = models.TextField(blank=True)
    acceptable = models.TextField(blank=True)
    excellent = models.TextField(blank=True)
    cannot_judge = models.TextField(blank=True)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")


class Decision(AppendOnlyModel):
    """A governance decision on a campaign's run card, never edited: a later decision (a rejection after
    an approval, or a revocation) is a new row, and the latest one is in force."""

    class Outcome(models.TextChoices):
        APPROVE = "approve", gettext_lazy("Approved")
        REJECT = "reject", gettext_lazy("Rejected")
        REVOKE = "revoke", gettext_lazy("Approval revoked")

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="decisions")
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    rationale = models.TextField()
    recommendation = models.JSONField(help_text="The gate's outcome and reasons when the decision was taken.")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    decided_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-decided_at", "-pk"]
        constraints = [
            models.CheckConstraint(condition=Q(outcome__in=["approve", "reject", "revoke"]),
                                   name="decision_outcome_valid"),
            models.CheckConstraint(condition=~Q(rationale=""), name="decision_rationale_required"),
        ]

    append_only_message = "Decisions are never edited or deleted; record a new one."


class SpeakerExclusion(models.Model):
    """Governance staff leave one speaker's ratings out of a campaign's figures, with a written reason (a flagged
    speaker is never dropped by the software). The ratings stay; counting them again sets `included_at`, and a
    later exclusion is a new row."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="exclusions")
    speaker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.TextField()
    excluded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    excluded_at = models.DateTimeField(default=timezone.now)
    included_at = models.DateTimeField(null=True, blank=True)
    included_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")

    class Meta:
        ordering = ["excluded_at", "pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(reason=""), name="speakerexclusion_reason_required"),
            models.UniqueConstraint(fields=["campaign", "speaker"], condition=Q(included_at__isnull=True),
                                    name="speakerexclusion_one_in_force"),
        ]


class RatingWithdrawal(AppendOnlyModel):
    """A speaker took back all their ratings of a campaign. The ratings stay (marked, `Rating.withdrawal`) for the
    record and for pay, and leave every figure, export and gate computation; `counted` is how many of them were
    evidence (current ratings of first showings, not "can't judge")."""

    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="withdrawals")
    speaker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    withdrawn_at = models.DateTimeField(default=timezone.now)
    rating_rows = models.PositiveIntegerField(help_text="Rating rows marked, history included.")
    counted = models.PositiveIntegerField(help_text="Of them, the ratings that counted in the campaign's figures.")

    class Meta:
        ordering = ["withdrawn_at", "pk"]

    append_only_message = "Withdrawals are never edited or deleted."
