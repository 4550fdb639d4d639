"""The speakers' ledger (benchmark specification §7.3.2, "bilingual speakers"): the languages, varieties and scripts
each speaker reads and writes, with their proficiency; the attestations of an organization's governance staff or of
a speaker vouching for another; and each organization's practice round, written by its community (training texts,
never evaluation data), with the attempts speakers made."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from organizations.models import Organization


class Proficiency(models.IntegerChoices):
    """How well a speaker reads, or writes, a language (docs/speakers.md): one scale for both."""

    NONE = 0, gettext_lazy("Not at all")
    BASIC = 1, gettext_lazy("Basic: familiar words and simple sentences")
    WORKING = 2, gettext_lazy("Working: everyday texts, with some effort")
    FLUENT = 3, gettext_lazy("Fluent: with ease, and notices what sounds wrong")
    EXPERT = 4, gettext_lazy("Expert: as a first-language speaker, a teacher or a translator")


SOURCE_READING_MINIMUM = Proficiency.WORKING
"""A reviewer understands the source text: working reading of the source language is enough."""
TARGET_READING_MINIMUM = Proficiency.FLUENT
"""A reviewer judges the candidate: only fluent reading of the target language (and its variety) can."""
VOUCHER_READING_MINIMUM = Proficiency.FLUENT
"""A speaker vouches for others in a language they are themselves attested to read fluently."""

LANGUAGE_CODE_PATTERN = r"^[a-z]{2,3}$"
SCRIPT_PATTERN = r"^[A-Z][a-z]{3}$"
VARIETY_MAX_LENGTH = 100


class LanguageSkill(models.Model):
    """One language (in one variety and script, when the speaker names them) a speaker reads or writes, as they
    state it. `language` is the ISO 639 code `corpus.language_pairs.language_code` gives ("en", "EN" and "eng" are
    one language); `variety_key` is the variety casefolded, how varieties are compared."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="language_skills",
                             db_index=False)  # the first column of languageskill_unique
    language = models.CharField(max_length=3)
    variety = models.CharField(max_length=VARIETY_MAX_LENGTH, blank=True,
                               help_text="Dialect or variety, as the speaker writes it (free text or a code).")
    variety_key = models.CharField(max_length=VARIETY_MAX_LENGTH, blank=True)
    script = models.CharField(max_length=4, blank=True, help_text="ISO 15924 code, such as Latn or Cans.")
    reading = models.PositiveSmallIntegerField(choices=Proficiency.choices)
    writing = models.PositiveSmallIntegerField(choices=Proficiency.choices)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["language", "variety_key", "script"]
        constraints = [
            models.UniqueConstraint(fields=["user", "language", "variety_key", "script"], name="languageskill_unique"),
            models.CheckConstraint(condition=Q(language__regex=LANGUAGE_CODE_PATTERN), name="languageskill_code"),
            models.CheckConstraint(condition=Q(script="") | Q(script__regex=SCRIPT_PATTERN),
                                   name="languageskill_script_iso15924"),
            models.CheckConstraint(condition=Q(reading__lte=4, writing__lte=4), name="languageskill_levels_valid"),
            models.CheckConstraint(condition=Q(reading__gt=0) | Q(writing__gt=0),
                                   name="languageskill_reads_or_writes"),
        ]

    def __str__(self) -> str:
        return "-".join(part for part in (self.language, self.script) if part) + (
            f" ({self.variety})" if self.variety else "")


class Attestation(models.Model):
    """An organization's confirmation of a speaker's skill at the levels it stated then (`reading`, `writing`): by
    its governance staff, by a speaker of the organization attested for the same language (vouching), or by the
    site operator at the command line (demo data). A speaker who raises their levels later counts at the attested
    ones until attested again. Withdrawn, it stays on record."""

    class Kind(models.TextChoices):
        GOVERNANCE = "governance", gettext_lazy("governance staff")
        VOUCHING = "vouching", gettext_lazy("a speaker vouching")
        OPERATOR = "operator", gettext_lazy("the site operator")

    skill = models.ForeignKey(LanguageSkill, on_delete=models.CASCADE, related_name="attestations", db_index=False)
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="attestations")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    attested_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                    related_name="+")
    reading = models.PositiveSmallIntegerField(choices=Proficiency.choices)
    writing = models.PositiveSmallIntegerField(choices=Proficiency.choices)
    attested_at = models.DateTimeField(default=timezone.now)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    withdrawn_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT,
                                     related_name="+")
    withdrawal_reason = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["attested_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["skill", "organization"], condition=Q(withdrawn_at__isnull=True),
                                    name="attestation_one_in_force"),
            models.CheckConstraint(condition=Q(kind__in=["governance", "vouching", "operator"]),
                                   name="attestation_kind_valid"),
            models.CheckConstraint(condition=Q(kind="operator", attested_by__isnull=True)
                                   | (~Q(kind="operator") & Q(attested_by__isnull=False)),
                                   name="attestation_attester_named"),
            models.CheckConstraint(condition=Q(reading__lte=4, writing__lte=4), name="attestation_levels_valid"),
            models.CheckConstraint(condition=Q(withdrawn_at__isnull=False) | Q(withdrawn_by__isnull=True),
                                   name="attestation_withdrawn_by_when_withdrawn"),
        ]


PASS_MARK_RANGE = (50, 100)
RETRY_WAIT_RANGE = (0, 720)
PRACTICE_MINIMUM_ITEMS = 5
PRACTICE_RATINGS = ("reject", "gist", "acceptable", "excellent")
"""The four ratings of the review scale (review.models.RATING_CHOICES without "can't judge")."""


class PracticeRound(models.Model):
    """An organization's practice round: whether a speaker must pass it before joining a review campaign, the share
    of items to get right, and how long to wait before trying again after a failed attempt."""

    organization = models.OneToOneField(Organization, on_delete=models.CASCADE, related_name="practice_round")
    required = models.BooleanField(default=False)
    pass_mark_percent = models.PositiveSmallIntegerField(default=80)
    retry_wait_hours = models.PositiveIntegerField(default=24)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pass_mark_percent__gte=PASS_MARK_RANGE[0],
                                               pass_mark_percent__lte=PASS_MARK_RANGE[1]),
                                   name="practiceround_pass_mark_range"),
            models.CheckConstraint(condition=Q(retry_wait_hours__lte=RETRY_WAIT_RANGE[1]),
                                   name="practiceround_retry_wait_range"),
        ]


class PracticeItem(models.Model):
    """A practice item written by governance staff: a source, a candidate translation, the ratings counted right,
    and the explanation a speaker reads after answering. Training text of the community, never evaluation data.
    Retired items stay for the attempts that used them."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="practice_items")
    source = models.TextField()
    candidate = models.TextField()
    source_language = models.CharField(max_length=35, blank=True, help_text="BCP 47 tag, for the page's lang.")
    target_language = models.CharField(max_length=35, blank=True, help_text="BCP 47 tag, for the page's lang.")
    reject_right = models.BooleanField(default=False)
    gist_right = models.BooleanField(default=False)
    acceptable_right = models.BooleanField(default=False)
    excellent_right = models.BooleanField(default=False)
    explanation = models.TextField()
    position = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["position", "pk"]
        constraints = [
            models.CheckConstraint(condition=Q(reject_right=True) | Q(gist_right=True) | Q(acceptable_right=True)
                                   | Q(excellent_right=True), name="practiceitem_some_rating_right"),
            models.CheckConstraint(condition=~Q(source="") & ~Q(candidate="") & ~Q(explanation=""),
                                   name="practiceitem_texts_given"),
        ]

    @property
    def right_ratings(self) -> list[str]:
        return [value for value in PRACTICE_RATINGS if getattr(self, f"{value}_right")]


class PracticeAttempt(models.Model):
    """One go at the practice round: its items in order (as they were when it started), how many were answered
    right, and once every item is answered, whether it passed at the pass mark of its start."""

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="practice_attempts")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="practice_attempts",
                             db_index=False)  # the first column of practiceattempt_by_user
    items = models.JSONField(help_text="The practice item ids, in the order they are shown.")
    pass_mark_percent = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    right = models.PositiveSmallIntegerField(default=0)
    passed = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["user", "organization", "finished_at"], name="practiceattempt_by_user")]
        constraints = [
            models.UniqueConstraint(fields=["organization", "user"], condition=Q(finished_at__isnull=True),
                                    name="practiceattempt_one_open"),
            models.CheckConstraint(condition=Q(finished_at__isnull=True, passed__isnull=True)
                                   | Q(finished_at__isnull=False, passed__isnull=False),
                                   name="practiceattempt_passed_when_finished"),
        ]

    @property
    def total(self) -> int:
        return len(self.items)


class PracticeAnswer(models.Model):
    """A speaker's answer to one item of an attempt, and whether it was right (by the item as it was then)."""

    attempt = models.ForeignKey(PracticeAttempt, on_delete=models.CASCADE, related_name="answers", db_index=False)
    item = models.ForeignKey(PracticeItem, on_delete=models.PROTECT, related_name="+")
    value = models.CharField(max_length=12)
    right = models.BooleanField()
    answered_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["answered_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["attempt", "item"], name="practiceanswer_once_per_item"),
            models.CheckConstraint(condition=Q(value__in=list(PRACTICE_RATINGS)), name="practiceanswer_value_valid"),
        ]
