"""Datasets, their versions and their entries, as in the corpus schema (SPEC §3).

Each entry keeps the JSON object it arrived as (`document`, key order and nulls intact) so that
export is lossless; the columns beside it are what pages and queries filter on.
"""

import hashlib
import uuid
from pathlib import PurePath

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import MD5, Cast
from django.utils import timezone
from django.utils.translation import gettext_lazy

from common.append_only import AppendOnlyModel
from organizations.models import Organization

from .search import entry_search_text


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


class Sha256Source(models.TextChoices):
    """What a version's `sha256` is the hash of (docs/corpus.md, "Hashes")."""

    FILE = "file", "SHA-256 of the corpus file as imported"
    CONTENT = "content", "SHA-256 of the canonical export, computed here"


class FileLayout(models.TextChoices):
    """The shape of the corpus file a version was imported from, which export writes back (docs/corpus.md)."""

    DATASET = "dataset", "{\"dataset\": {...}, \"entries\": [...]}"
    OBJECT = "object", "an object holding \"entries\" and other members"
    LIST = "list", "a bare list of entries"


class DatasetVersion(models.Model):
    """One version of a dataset; frozen once anything (a run card) depends on its exact content."""

    # Indexed as the first column of dataset_version_unique.
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="versions", db_index=False)
    version = models.CharField(max_length=50)
    language_pair = models.CharField(max_length=100)
    source_language = models.CharField(max_length=35)
    target_language = models.CharField(max_length=35)
    created = models.DateField(help_text="The envelope's ISO 8601 creation date.")
    license = models.CharField(max_length=100)
    provenance = models.JSONField(default=list)
    envelope = models.TextField(help_text=(
        "The dataset envelope exactly as imported (JSON text): with layout `dataset` the `dataset` object, with "
        "`object` every member of the file's object but `entries`, with `list` null."))
    layout = models.CharField(max_length=10, choices=FileLayout.choices, default=FileLayout.DATASET, help_text=(
        "The shape of the imported file, which export writes back."))
    sha256 = models.CharField(max_length=64, help_text=(
        "SHA-256 of the corpus file this version's content is: what run cards pin. Shown only to the steward's "
        "secret readers when public_sha256 differs."))
    sha256_source = models.CharField(max_length=10, choices=Sha256Source.choices, default=Sha256Source.FILE)
    public_sha256 = models.CharField(
        max_length=64, help_text="What everyone else sees and pins: sha256 itself, or for a content hash of a version "
        "holding secret entries, a keyed hash (HMAC-SHA256 from SECRET_KEY) that confirms no guess of them.")
    public_download_sha256 = models.CharField(max_length=64, blank=True, default="", help_text=(
        "SHA-256 of the public download (the public segments' entries only, byte-stable): the pin of run cards "
        "scoring public entries. Empty until computed (corpus.selectors.public_download_hash fills it)."))
    entry_count = models.PositiveIntegerField(default=0)
    frozen_at = models.DateTimeField(null=True, blank=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField(default=timezone.now)
    note = models.TextField(blank=True, help_text=(
        "The version's note, shown with it: what changed from the version it came from (a rotation says only that "
        "one happened, never which entries moved)."))
    held_out_activated_at = models.DateTimeField(null=True, blank=True, help_text=(
        "When governance staff made the held_out entries scorable (benchmark specification §2.3: reserved for "
        "future evaluation). Until then a run card scoring one is refused as if the entry did not exist."))
    held_out_activated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        ordering = ["dataset__identifier", "-imported_at"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "version"], name="dataset_version_unique"),
            models.CheckConstraint(condition=Q(sha256__regex=r"^[0-9a-f]{64}$"), name="dataset_version_sha256_hex"),
            models.CheckConstraint(condition=Q(public_sha256__regex=r"^[0-9a-f]{64}$"),
                                   name="dataset_version_public_sha256_hex"),
        ]

    def __str__(self) -> str:
        return f"{self.dataset.identifier} {self.version}"

    @property
    def is_frozen(self) -> bool:
        return self.frozen_at is not None

    @property
    def held_out_active(self) -> bool:
        return self.held_out_activated_at is not None

    @property
    def public_hash_is_keyed(self) -> bool:
        return self.public_sha256 != self.sha256


def source_digest(text: str) -> uuid.UUID:
    """The key an entry's exact source text is found by (`entry_source_digest`): the MD5 of its UTF-8 bytes, as a
    UUID."""
    return uuid.UUID(hashlib.md5(text.encode(), usedforsecurity=False).hexdigest())


def source_digest_of(entry_path: str = "") -> Cast:
    """`source_digest` of the entries' `source` (reached through `entry_path`) computed by the database, as the index
    `entry_source_digest` holds it: filter on it with a `source_digest` to find an entry by its source text."""
    return Cast(MD5(f"{entry_path}__source" if entry_path else "source"), output_field=models.UUIDField())


class Entry(models.Model):
    """One translation challenge of a dataset version."""

    # Indexed as the first column of entry_unique_position_per_version, among others.
    version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="entries", db_index=False)
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
    document_id = models.CharField(max_length=200, blank=True, help_text=(
        "Entries of one text (a story, a conversation) share it; in their positions' order they are each other's "
        "context, shown to speakers beside the sentence they rate."))
    document = models.TextField(help_text="The entry's JSON object exactly as given, key order and nulls kept.")
    search_text = models.TextField(default="", blank=True, editable=False, help_text=(
        "Source, reference and notes folded for search (corpus.search): kept in step on every write."))

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
            # Only entries that name a text: corpora without any pay nothing for it on import.
            models.Index(fields=["version", "document_id", "position"], name="entry_document_position",
                         condition=~Q(document_id="")),
            # Entries by their exact source text, in any dataset (the machine-paste check of elicitation finds the
            # stored outputs for a source this way): the text's digest, 16 bytes whatever its length, where an index
            # of the text itself would refuse texts over about 2,700 bytes.
            models.Index(source_digest_of(), name="entry_source_digest"),
        ]

    def __str__(self) -> str:
        return f"{self.version} #{self.entry_id}"

    def save(self, *args, **kwargs):
        """Keep `search_text` equal to the folded text fields, whoever saves (bulk writes use
        corpus.services.entry_values, which folds the same way)."""
        self.search_text = entry_search_text(self.source, self.reference, self.notes)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and {"source", "reference", "notes"} & set(update_fields):
            kwargs["update_fields"] = {*update_fields, "search_text"}
        super().save(*args, **kwargs)

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


class ConsentUse(models.TextChoices):
    """What a community may consent to for one of its datasets (SPEC §6). The values are also the names of
    ConsentRecord's boolean columns, so `consent_filter(use)` is a plain column test."""

    PUBLIC_RELEASE = "public_release", "Public release of the development and diagnostic segments"
    EVALUATION = "evaluation", "Evaluation"
    HUMAN_REVIEW = "human_review", "Human review"
    GATEWAY_DISCLOSURE = "gateway_disclosure", "A1 gateway disclosure of secret sources to a model provider"
    CORPUS_CREATION = "corpus_creation", "Corpus creation from speakers' own translations"


CONSENT_USE_SHORT_LABELS = {
    ConsentUse.PUBLIC_RELEASE: gettext_lazy("public release"),
    ConsentUse.EVALUATION: gettext_lazy("evaluation"),
    ConsentUse.HUMAN_REVIEW: gettext_lazy("human review"),
    ConsentUse.GATEWAY_DISCLOSURE: gettext_lazy("A1 gateway disclosure"),
    ConsentUse.CORPUS_CREATION: gettext_lazy("corpus creation"),
}

CONSENT_USE_EXPLANATIONS = {
    ConsentUse.PUBLIC_RELEASE: gettext_lazy(
        "Anyone may read and download the development and diagnostic entries (pages, exports, API). Secret "
        "segments are never released."),
    ConsentUse.EVALUATION: gettext_lazy(
        "Method developers may submit run cards against this dataset, and their scores appear on the public "
        "leaderboard."),
    ConsentUse.HUMAN_REVIEW: gettext_lazy(
        "Review campaigns may show machine translations of its entries to the community's speakers for rating."),
    ConsentUse.GATEWAY_DISCLOSURE: gettext_lazy(
        "Secret source sentences may be sent to a model provider through the A1 gateway, each run approved "
        "separately by a decision of governance staff."),
    ConsentUse.CORPUS_CREATION: gettext_lazy(
        "Curators may ask the community's speakers to translate source texts and verify each other's translations, "
        "and add the accepted ones to this dataset as elicited entries."),
}

# What stops, on the next request, when no active record covers a use any more.
CONSENT_REVOCATION_EFFECTS = {
    ConsentUse.PUBLIC_RELEASE: gettext_lazy(
        "Public pages, downloads and API entries of the dataset stop and answer “withdrawn by its community”; it "
        "leaves the public dataset list."),
    ConsentUse.EVALUATION: gettext_lazy(
        "New run cards against it are refused, and its leaderboard rows and run cards are withdrawn from public "
        "view (you still see them, marked withdrawn)."),
    ConsentUse.HUMAN_REVIEW: gettext_lazy(
        "Open review campaigns on it pause and their items stop being served to speakers."),
    ConsentUse.GATEWAY_DISCLOSURE: gettext_lazy(
        "No further A1 run on its secret sources is approved, and approvals not used yet let no run card in."),
    ConsentUse.CORPUS_CREATION: gettext_lazy(
        "Elicitation batches for it pause: no source is served for translation or verification, and no accepted "
        "translation is added to it."),
}

CONSENT_DOCUMENT_EXTENSIONS = ("pdf", "png", "jpg", "jpeg", "txt", "docx")


def consent_document_path(record: "ConsentRecord", filename: str) -> str:
    """A random name under MEDIA_ROOT/consent/: the original name is kept in `document_name`, and nothing
    about the file can be guessed from a path (documents are served only by the governance view)."""
    return f"consent/{record.dataset_id}/{uuid.uuid4().hex}{PurePath(filename).suffix.lower()}"


class ConsentRecordQuerySet(models.QuerySet):
    def delete(self):
        raise PermissionError("Consent records are never deleted; revoke them instead.")


class ConsentRecord(models.Model):
    """A community's documented consent for uses of one dataset (SPEC §2 principle 4, §6).

    One boolean column per use (rather than one row per use, or a JSON list): a record is one decision,
    granted and revoked as a whole; "covers this use" is a plain indexed column test on SQLite and
    PostgreSQL alike (JSON `contains` is unavailable on SQLite); and "at least one use" stays a
    CheckConstraint, which one-row-per-use could not express.

    Nothing is deleted: revoking fills `revoked_at`, `revoked_by` and `revocation_reason` together, once
    (on PostgreSQL a trigger refuses every other change and any DELETE). Re-granting is a new record.
    """

    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="consents")
    public_release = models.BooleanField(default=False)
    evaluation = models.BooleanField(default=False)
    human_review = models.BooleanField(default=False)
    gateway_disclosure = models.BooleanField(default=False)
    corpus_creation = models.BooleanField(default=False)
    granted_by_name = models.CharField(
        max_length=300, help_text="Who granted it on the community's behalf, e.g. a council resolution."
    )
    granted_on = models.DateField()
    document = models.FileField(upload_to=consent_document_path, max_length=255, blank=True)
    document_name = models.CharField(max_length=255, blank=True, help_text="The uploaded file's original name.")
    document_reference = models.CharField(max_length=500, blank=True, help_text="A URL or an archive reference.")
    notes = models.TextField(blank=True)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    revocation_reason = models.TextField(blank=True)

    objects = ConsentRecordQuerySet.as_manager()

    class Meta:
        ordering = ["-granted_on", "-recorded_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(public_release=True) | Q(evaluation=True) | Q(human_review=True)
                | Q(gateway_disclosure=True) | Q(corpus_creation=True),
                name="consent_covers_a_use",
            ),
            models.CheckConstraint(
                condition=Q(revoked_at__isnull=True, revoked_by__isnull=True, revocation_reason="")
                | (Q(revoked_at__isnull=False, revoked_by__isnull=False) & ~Q(revocation_reason="")),
                name="consent_revocation_complete",
            ),
            models.CheckConstraint(condition=~Q(document="") | ~Q(document_reference=""),
                                   name="consent_documented"),
            models.CheckConstraint(condition=~Q(granted_by_name=""), name="consent_granted_by_named"),
        ]
        indexes = [
            models.Index(fields=["dataset"], condition=Q(revoked_at__isnull=True), name="consent_active_dataset"),
        ]

    def __str__(self) -> str:
        return f"Consent #{self.pk} for {self.dataset_id}: {', '.join(self.uses)}"

    @property
    def uses(self) -> list[ConsentUse]:
        return [use for use in ConsentUse if getattr(self, use.value)]

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def delete(self, *args, **kwargs):
        raise PermissionError("Consent records are never deleted; revoke them instead.")


# ---------------------------------------------------------------------------------------------------------
# Local Contexts labels and notices (docs/labels.md; the types are corpus.local_contexts.LABEL_TYPES)
# ---------------------------------------------------------------------------------------------------------

class LocalContextsProject(models.Model):
    """A Local Contexts Hub project whose labels were imported for a dataset (from a project file, or synced from
    the Hub when an API key is configured). Its labels are the dataset's cached copy: pages show them offline, with
    when they were last synced."""

    # Indexed as the first column of localcontextsproject_once_per_dataset.
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="hub_projects", db_index=False)
    unique_id = models.CharField(max_length=100, help_text="The project's `unique_id` on the Hub.")
    title = models.CharField(max_length=300, blank=True)
    project_page = models.CharField(max_length=500, blank=True)
    imported_at = models.DateTimeField(default=timezone.now)
    imported_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    synced_at = models.DateTimeField(null=True, blank=True, help_text="When the Hub last answered for it.")
    sync_problem = models.TextField(blank=True, help_text="Why the last sync failed (the cached labels stay).")

    class Meta:
        ordering = ["dataset", "unique_id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "unique_id"], name="localcontextsproject_once_per_dataset"),
            models.CheckConstraint(condition=~Q(unique_id=""), name="localcontextsproject_has_unique_id"),
        ]

    def __str__(self) -> str:
        return f"{self.title or self.unique_id} ({self.dataset_id})"


class CulturalLabel(models.Model):
    """A TK or BC label, or a notice, attached by a dataset's governance staff to the dataset (`version` empty) or
    to one of its versions: its type, the community's own name and text in their language, and whether the
    community holds it restrictive (public export and release then wait for a release decision of exactly the
    dataset's restrictive labels)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    # Indexed as the first column of culturallabel_once_per_scope.
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="cultural_labels", db_index=False)
    version = models.ForeignKey(DatasetVersion, null=True, blank=True, on_delete=models.PROTECT,
                                related_name="cultural_labels", help_text="Empty: the label covers the dataset.")
    label_type = models.CharField(max_length=60)
    name = models.CharField(max_length=200, help_text="The label's name as the community wrote it.")
    text = models.TextField(help_text="The community's own text (plain text).")
    language = models.CharField(max_length=35, blank=True, help_text="BCP 47 tag of the name and text.")
    language_name = models.CharField(max_length=100, blank=True)
    community = models.CharField(max_length=300, blank=True)
    restrictive = models.BooleanField(default=False)
    project = models.ForeignKey(LocalContextsProject, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="labels", help_text="The Hub project it was imported from.")
    hub_id = models.CharField(max_length=100, blank=True, help_text="The label's `unique_id` on the Hub.")
    attached_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    attached_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["dataset", "label_type", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "version", "label_type"], nulls_distinct=False,
                                    name="culturallabel_once_per_scope"),
            models.CheckConstraint(condition=~Q(name="") & ~Q(text=""), name="culturallabel_has_name_and_text"),
            models.CheckConstraint(condition=Q(label_type__regex=r"^(tk|bc|notice)_[a-z_]+$"),
                                   name="culturallabel_type_shape"),
        ]

    def __str__(self) -> str:
        return f"{self.name} on {self.dataset_id}"


class CulturalLabelTranslation(models.Model):
    """A translation of a label the community wrote itself, in one language (never a machine translation)."""

    # Indexed as the first column of culturallabeltranslation_once_per_language.
    label = models.ForeignKey(CulturalLabel, on_delete=models.CASCADE, related_name="translations", db_index=False)
    language = models.CharField(max_length=35)
    language_name = models.CharField(max_length=100, blank=True)
    name = models.CharField(max_length=200, blank=True)
    text = models.TextField()

    class Meta:
        ordering = ["label", "language"]
        constraints = [
            models.UniqueConstraint(fields=["label", "language"], name="culturallabeltranslation_once_per_language"),
            models.CheckConstraint(condition=~Q(language="") & ~Q(text=""),
                                   name="culturallabeltranslation_has_language_and_text"),
        ]

    def __str__(self) -> str:
        return f"{self.label} [{self.language}]"


class LabelRelease(AppendOnlyModel):
    """An executed release decision (`corpus.label_release`) for exactly one set of a dataset's restrictive labels:
    public export and release are open while the dataset's current restrictive set is the latest release's. Written
    once (append-only: a PostgreSQL trigger refuses changes)."""

    # Indexed as the first column of labelrelease_dataset_latest.
    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="label_releases", db_index=False)
    label_set_sha256 = models.CharField(max_length=64)
    labels = models.JSONField(help_text="The released labels as the decision's payload named them.")
    decision = models.UUIDField(help_text="The public id of the decision that released them.")
    released_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    released_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-released_at", "-pk"]
        indexes = [models.Index(fields=["dataset", "-released_at"], name="labelrelease_dataset_latest")]
        constraints = [
            models.CheckConstraint(condition=Q(label_set_sha256__regex=r"^[0-9a-f]{64}$"),
                                   name="labelrelease_sha256_hex"),
        ]

    def __str__(self) -> str:
        return f"Release of {self.dataset_id}'s labels {self.label_set_sha256[:12]}"

    append_only_message = "Label releases are never changed or deleted; a new release decision records a new one."
