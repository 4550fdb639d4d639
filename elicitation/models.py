"""Elicitation (benchmark specification §1.4, §11.3): curators grow a language's corpus from translations written by
the community's own speakers. A batch holds source texts; qualified speakers translate them from scratch (never
from machine output); other qualified people verify each translation; accepted translations become corpus entries
with provenance `elicited`. Every submission carries a client id, so a re-sent one stores nothing new."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy, pgettext_lazy

from corpus.models import Dataset, DatasetVersion, Domain, Entry, Register, Segment
from ledger.models import CURRENCY_PATTERN
from organizations.models import Organization

MAX_TEXT_LENGTH = 2000
"""The longest source or translation a batch takes: a paragraph (tier 5), never a document."""
MAX_REVISION_ROUNDS = 2
"""How often a verifier may send a translation back to its translator before it must be accepted or rejected."""
GOLD_MINIMUM_VERIFICATIONS = 2
"""gold_standard entries are verified by at least this many distinct people (benchmark specification §2.5)."""


class Batch(models.Model):
    """Source texts a curator asks the community to translate into one variety, for one dataset."""

    class Status(models.TextChoices):
        # A batch is "un lot" in French: its states agree with it, not with a campaign's.
        OPEN = "open", pgettext_lazy("batch status", "Open")
        PAUSED = "paused", pgettext_lazy("batch status", "Paused")
        CLOSED = "closed", pgettext_lazy("batch status", "Closed")

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="elicitation_batches")
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="elicitation_batches")
    title = models.CharField(max_length=200)
    source_language = models.CharField(max_length=35, help_text="BCP 47 tag of the sources, such as en.")
    target_language = models.CharField(max_length=35, help_text="BCP 47 tag of the translations, with its script "
                                                                "when the community writes one, such as crk-Latn.")
    variety = models.CharField(max_length=100, blank=True, help_text="Dialect or variety translators write.")
    guideline = models.TextField(help_text="The curator's instructions, shown with every source.")
    guideline_version = models.PositiveIntegerField(default=1)
    translations_per_source = models.PositiveSmallIntegerField(default=1)
    verifications_per_translation = models.PositiveSmallIntegerField(default=1)
    hourly_rate = models.DecimalField(max_digits=8, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    amount_per_accepted = models.DecimalField(
        max_digits=8, decimal_places=2, null=True, blank=True,
        help_text="Optional amount per accepted translation, beside the hourly pay.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=["open", "paused", "closed"]), name="batch_status_valid"),
            models.CheckConstraint(condition=Q(translations_per_source__gte=1, translations_per_source__lte=5),
                                   name="batch_translations_per_source_1_5"),
            models.CheckConstraint(condition=Q(verifications_per_translation__gte=1,
                                               verifications_per_translation__lte=5),
                                   name="batch_verifications_1_5"),
            models.CheckConstraint(
                condition=Q(hourly_rate__isnull=True, currency="")
                | Q(hourly_rate__gte=0, currency__regex=CURRENCY_PATTERN),
                name="batch_rate_with_currency"),
            models.CheckConstraint(condition=Q(amount_per_accepted__isnull=True) | Q(amount_per_accepted__gt=0,
                                                                                     currency__regex=CURRENCY_PATTERN),
                                   name="batch_amount_with_currency"),
            models.CheckConstraint(condition=~Q(guideline=""), name="batch_guideline_given"),
        ]

    def __str__(self) -> str:
        return self.title

    def verifications_needed(self, segment: str) -> int:
        if segment == Segment.GOLD_STANDARD:
            return max(self.verifications_per_translation, GOLD_MINIMUM_VERIFICATIONS)
        return self.verifications_per_translation


class Origin(models.TextChoices):
    """Where a source text came from (benchmark specification §1.4): a model may propose sources, never
    translations, and what it proposed stays marked as such."""

    COMMUNITY = "community", gettext_lazy("Written by the community")
    PUBLIC_SOURCE = "public_source", gettext_lazy("A named public source")
    MACHINE_PROPOSED = "machine_proposed", gettext_lazy("Proposed by a machine")


class Source(models.Model):
    """One text to translate. `text_key` is the text as compared for duplicates (NFC, case and spacing folded)."""

    class Status(models.TextChoices):
        OPEN = "open", gettext_lazy("Open")
        HELD = "held", gettext_lazy("Sent back to the curator")
        RETIRED = "retired", gettext_lazy("Retired")

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="sources", db_index=False)
    position = models.PositiveIntegerField()
    text = models.TextField()
    text_key = models.TextField()
    context = models.TextField(blank=True)
    difficulty = models.PositiveSmallIntegerField()
    register = models.CharField(max_length=20, choices=Register.choices)
    domain = models.CharField(max_length=20, choices=Domain.choices)
    segment = models.CharField(max_length=20, choices=Segment.choices, default=Segment.DEVELOPMENT)
    origin = models.CharField(max_length=20, choices=Origin.choices)
    origin_name = models.CharField(max_length=300, blank=True, help_text="The public source, or the proposing system.")
    origin_license = models.CharField(max_length=100, blank=True, help_text="SPDX identifier of a public source.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["batch", "position"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "position"], name="source_unique_position"),
            models.UniqueConstraint(fields=["batch", "text_key"], name="source_unique_text_per_batch"),
            models.CheckConstraint(condition=Q(difficulty__gte=1, difficulty__lte=5), name="source_difficulty_1_5"),
            models.CheckConstraint(condition=Q(register__in=Register.values), name="source_register_valid"),
            models.CheckConstraint(condition=Q(domain__in=Domain.values), name="source_domain_valid"),
            models.CheckConstraint(condition=Q(segment__in=Segment.values), name="source_segment_valid"),
            models.CheckConstraint(condition=Q(origin__in=Origin.values), name="source_origin_valid"),
            models.CheckConstraint(condition=~Q(origin="public_source") | (~Q(origin_name="") & ~Q(origin_license="")),
                                   name="source_public_origin_named"),
            models.CheckConstraint(condition=~Q(origin="machine_proposed") | ~Q(origin_name=""),
                                   name="source_machine_origin_named"),
            models.CheckConstraint(condition=~Q(text=""), name="source_text_given"),
            models.CheckConstraint(condition=Q(status__in=["open", "held", "retired"]), name="source_status_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.batch_id}#{self.position}"


class SkipReason(models.TextChoices):
    UNKNOWN_TERM = "unknown_term", gettext_lazy("I don't know a term in it")
    INAPPROPRIATE = "inappropriate", gettext_lazy("Culturally inappropriate to translate")
    SOURCE_ERROR = "source_error", gettext_lazy("The source has an error")


SKIPS_TO_CURATOR = 2
"""Distinct speakers who skip a source as erroneous or inappropriate before it goes back to the curator."""


class Skip(models.Model):
    """A speaker passed on a source, saying why."""

    client_id = models.UUIDField(unique=True)
    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="skips", db_index=False)
    speaker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=20, choices=SkipReason.choices)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "speaker"], name="skip_once_per_speaker"),
            models.CheckConstraint(condition=Q(reason__in=SkipReason.values), name="skip_reason_valid"),
        ]


class Translation(models.Model):
    """One speaker's translation of one source, through its versions and verifications."""

    class Status(models.TextChoices):
        SUBMITTED = "submitted", gettext_lazy("Waiting for verification")
        REVISION = "revision", gettext_lazy("Sent back for revision")
        ACCEPTED = "accepted", gettext_lazy("Accepted")
        REJECTED = "rejected", gettext_lazy("Rejected")
        WITHDRAWN = "withdrawn", gettext_lazy("Withdrawn by its translator")

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    source = models.ForeignKey(Source, on_delete=models.PROTECT, related_name="translations", db_index=False)
    translator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SUBMITTED)
    revision_rounds = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["source", "created_at"]
        constraints = [
            models.UniqueConstraint(fields=["source", "translator"], name="translation_one_per_speaker"),
            models.CheckConstraint(condition=Q(status__in=["submitted", "revision", "accepted", "rejected",
                                                           "withdrawn"]), name="translation_status_valid"),
            models.CheckConstraint(condition=Q(revision_rounds__lte=MAX_REVISION_ROUNDS),
                                   name="translation_revision_rounds_at_most_2"),
        ]
        indexes = [models.Index(fields=["translator", "status"], name="translation_translator_status")]


class TranslationVersion(models.Model):
    """The text of a translation as its translator (or an editing verifier) wrote it; never changed, a change is a
    new version. `suspected_system` names the stored machine output it resembles (chrF ≥ the threshold): evidence
    for the verifier, never a refusal."""

    client_id = models.UUIDField(unique=True)
    translation = models.ForeignKey(Translation, on_delete=models.CASCADE, related_name="versions", db_index=False)
    number = models.PositiveSmallIntegerField()
    text = models.TextField()
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    morphological_analysis = models.TextField(blank=True)
    guideline_version = models.PositiveIntegerField(default=1, help_text="The batch's guideline it was written under.")
    suspected_system = models.CharField(max_length=300, blank=True)
    suspected_chrf = models.FloatField(null=True, blank=True)
    pasted = models.BooleanField(null=True, help_text="The page saw text pasted into the field (weak evidence).")
    typed_characters = models.PositiveIntegerField(null=True, blank=True)
    seconds = models.FloatField(default=0, help_text="Working time measured by the server, for pay only.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["translation", "number"]
        constraints = [
            models.UniqueConstraint(fields=["translation", "number"], name="translationversion_unique_number"),
            models.CheckConstraint(condition=~Q(text=""), name="translationversion_text_given"),
            models.CheckConstraint(condition=Q(suspected_chrf__isnull=True) | ~Q(suspected_system=""),
                                   name="translationversion_suspicion_names_system"),
            models.CheckConstraint(condition=Q(seconds__gte=0), name="translationversion_seconds_positive"),
        ]

    @property
    def suspected(self) -> bool:
        return bool(self.suspected_system)


class Verification(models.Model):
    """A verifier's judgement of one version of a translation. An edit is itself a new version; a later version
    makes earlier accepts stale (`stale_at`), so only accepts of the current version count."""

    class Outcome(models.TextChoices):
        ACCEPT = "accept", gettext_lazy("Accept")
        REVISE = "revise", gettext_lazy("Needs revision")
        REJECT = "reject", gettext_lazy("Reject")
        EDIT = "edit", gettext_lazy("Edit")

    client_id = models.UUIDField(unique=True)
    translation = models.ForeignKey(Translation, on_delete=models.CASCADE, related_name="verifications",
                                    db_index=False)
    version = models.ForeignKey(TranslationVersion, on_delete=models.PROTECT, related_name="verifications")
    verifier = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", db_index=False)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    comment = models.TextField(blank=True)
    flagged = models.BooleanField(default=False, help_text="The version was suspected machine output.")
    stale_at = models.DateTimeField(null=True, blank=True)
    seconds = models.FloatField(default=0, help_text="Working time measured by the server, for pay only.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["translation", "created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(outcome__in=["accept", "revise", "reject", "edit"]),
                                   name="verification_outcome_valid"),
            models.CheckConstraint(condition=~Q(outcome__in=["reject", "revise"]) | ~Q(comment=""),
                                   name="verification_reason_given"),
            models.CheckConstraint(condition=~Q(outcome="accept", flagged=True) | ~Q(comment=""),
                                   name="verification_flagged_accept_commented"),
            models.UniqueConstraint(fields=["translation", "verifier"], condition=Q(stale_at__isnull=True),
                                    name="verification_one_in_force_per_verifier"),
            models.CheckConstraint(condition=Q(seconds__gte=0), name="verification_seconds_positive"),
        ]
        indexes = [models.Index(fields=["verifier", "created_at"], name="verification_verifier_time")]


class AnalysisCheck(models.Model):
    """A proposed morphological analysis (free text, on a translation version) verified on its own: confirmed or
    disputed, by whom and how."""

    class Status(models.TextChoices):
        CONFIRMED = "confirmed", gettext_lazy("Confirmed")
        DISPUTED = "disputed", gettext_lazy("Disputed")

    # Indexed as the first column of analysischeck_once_per_person (as each foreign key without an index of its own
    # here is, by a constraint or index of its model).
    version = models.ForeignKey(TranslationVersion, on_delete=models.CASCADE, related_name="analysis_checks",
                                db_index=False)
    checked_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices)
    method = models.CharField(max_length=300, help_text="How it was checked: by knowledge, a dictionary, an FST…")
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "checked_by"], name="analysischeck_once_per_person"),
            models.CheckConstraint(condition=Q(status__in=["confirmed", "disputed"]), name="analysischeck_status"),
            models.CheckConstraint(condition=~Q(method=""), name="analysischeck_method_given"),
        ]


class DeclaredConflict(models.Model):
    """A person who will not verify a translator's work in a batch (a relative, a close colleague): declared by the
    verifier, it keeps that translator's work out of their queue."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="conflicts", db_index=False)
    verifier = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    translator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=300)
    declared_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["batch", "verifier", "translator"], name="declaredconflict_unique"),
            models.CheckConstraint(condition=~Q(reason=""), name="declaredconflict_reason_given"),
        ]


class ElicitedEntry(models.Model):
    """The corpus entry an accepted translation became in one dataset version: at most one per version."""

    translation = models.ForeignKey(Translation, on_delete=models.PROTECT, related_name="entries", db_index=False)
    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="+")
    entry = models.OneToOneField(Entry, on_delete=models.CASCADE, related_name="+")
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    added_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["translation", "version"], name="elicitedentry_once_per_version"),
        ]
