"""Datasets, their versions and their entries, as in the corpus schema (SPEC §3).

Each entry keeps the JSON object it arrived as (`document`, key order and nulls intact) so that
export is lossless; the columns beside it are what pages and queries filter on.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from governance.models import Organization


class Segment(models.TextChoices):
    DEVELOPMENT = "development", "Development"
    DIAGNOSTIC = "diagnostic", "Diagnostic"
    GOLD_STANDARD = "gold_standard", "Gold standard"
    HELD_OUT = "held_out", "Held out"


PUBLIC_SEGMENTS = (Segment.DEVELOPMENT, Segment.DIAGNOSTIC)
SECRET_SEGMENTS = (Segment.GOLD_STANDARD, Segment.HELD_OUT)


class Domain(models.TextChoices):
    CONV = "conv", "Conversation"
    ECOMMERCE = "ecommerce", "E-commerce"
    EDU = "edu", "Education"
    FINANCIAL = "financial", "Financial"
    GOV = "gov", "Government"
    LEGAL = "legal", "Legal"
    LITERARY = "literary", "Literary"
    MARKETING = "marketing", "Marketing"
    MEDICAL = "medical", "Medical"
    NEWS = "news", "News"
    RELIGIOUS = "religious", "Religious"
    SCIENTIFIC = "scientific", "Scientific"
    SUBTITLES = "subtitles", "Subtitles"
    SUPPORT = "support", "Support"
    TECH = "tech", "Technology"
    UI = "ui", "User interface"


class Register(models.TextChoices):
    CONVERSATIONAL = "conversational", "Conversational"
    FORMAL = "formal", "Formal"
    TECHNICAL = "technical", "Technical"
    CEREMONIAL = "ceremonial", "Ceremonial"
    EDUCATIONAL = "educational", "Educational"


class Context(models.TextChoices):
    GREETING = "greeting", "Greeting"
    DECLARATION = "declaration", "Declaration"
    QUESTION = "question", "Question"
    INSTRUCTION = "instruction", "Instruction"
    NARRATIVE = "narrative", "Narrative"
    LABEL = "label", "Label"
    ERROR = "error", "Error"


class Dataset(models.Model):
    """A corpus, named by the `dataset.id` of its files and stewarded by one organization."""

    identifier = models.CharField(max_length=200, unique=True)
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="datasets")
    is_public = models.BooleanField(
        default=False,
        help_text="Release the development and diagnostic segments to everyone. Secret segments never are.",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["identifier"]

    def __str__(self) -> str:
        return self.identifier


class DatasetVersion(models.Model):
    """One version of a dataset; frozen once anything (a run card) depends on its exact content."""

    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="versions")
    version = models.CharField(max_length=50)
    language_pair = models.CharField(max_length=100)
    source_language = models.CharField(max_length=35)
    target_language = models.CharField(max_length=35)
    created = models.DateField(help_text="The envelope's ISO 8601 creation date.")
    license = models.CharField(max_length=100)
    provenance = models.JSONField(default=list)
    envelope = models.TextField(help_text="The dataset envelope exactly as imported (JSON text).")
    sha256 = models.CharField(max_length=64, help_text="SHA-256 of the corpus file this version's content is.")
    entry_count = models.PositiveIntegerField(default=0)
    frozen_at = models.DateTimeField(null=True, blank=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["dataset__identifier", "-imported_at"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "version"], name="dataset_version_unique"),
            models.CheckConstraint(condition=Q(sha256__regex=r"^[0-9a-f]{64}$"), name="dataset_version_sha256_hex"),
        ]

    def __str__(self) -> str:
        return f"{self.dataset.identifier} {self.version}"

    @property
    def is_frozen(self) -> bool:
        return self.frozen_at is not None


class Entry(models.Model):
    """One translation challenge of a dataset version."""

    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="entries")
    position = models.PositiveIntegerField(help_text="Index in the corpus file's entries list.")
    entry_id = models.CharField(max_length=200, help_text="The entry's `id`, as text.")
    source = models.TextField()
    reference = models.TextField()
    segment = models.CharField(max_length=20, choices=Segment.choices, default=Segment.DEVELOPMENT)
    difficulty = models.PositiveSmallIntegerField(null=True, blank=True)
    provenance = models.CharField(max_length=200, blank=True)
    register = models.CharField(max_length=20, choices=Register.choices, blank=True)
    context = models.CharField(max_length=20, choices=Context.choices, blank=True)
    domain = models.CharField(max_length=20, choices=Domain.choices, blank=True)
    morphological_analysis = models.TextField(blank=True)
    notes = models.TextField(blank=True)
    variant_class = models.CharField(max_length=200, blank=True)
    document = models.TextField(help_text="The entry's JSON object exactly as given, key order and nulls kept.")

    class Meta:
        ordering = ["version", "position"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["version", "entry_id"], name="entry_unique_id_per_version"),
            models.UniqueConstraint(fields=["version", "position"], name="entry_unique_position_per_version"),
            models.CheckConstraint(condition=Q(segment__in=Segment.values), name="entry_segment_valid"),
            models.CheckConstraint(
                condition=Q(difficulty__isnull=True) | Q(difficulty__gte=1, difficulty__lte=5),
                name="entry_difficulty_1_to_5",
            ),
            models.CheckConstraint(condition=Q(domain__in=[*Domain.values, ""]), name="entry_domain_valid"),
            models.CheckConstraint(condition=Q(register__in=[*Register.values, ""]), name="entry_register_valid"),
            models.CheckConstraint(condition=Q(context__in=[*Context.values, ""]), name="entry_context_valid"),
        ]
        indexes = [
            models.Index(fields=["version", "segment"], name="entry_version_segment"),
            models.Index(fields=["version", "domain"], name="entry_version_domain"),
        ]

    def __str__(self) -> str:
        return f"{self.version} #{self.entry_id}"

    @property
    def is_secret(self) -> bool:
        return self.segment in SECRET_SEGMENTS


class StagedImport(models.Model):
    """An uploaded CSV/XLSX kept server-side between the dry-run preview and its confirmation (corpus.bulk)."""

    class Format(models.TextChoices):
        CSV = "csv", "CSV"
        XLSX = "xlsx", "XLSX"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="staged_imports")
    format = models.CharField(max_length=10, choices=Format.choices)
    filename = models.CharField(max_length=255, blank=True)
    content = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.filename or self.format} for {self.version_id} by {self.user_id}"
