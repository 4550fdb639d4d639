from django.contrib.auth.models import AnonymousUser
from rest_framework import serializers

from .label_selectors import label_document, label_shown_in, release_block
from .models import Dataset, DatasetVersion, Entry
from .selectors import VersionHash, public_download_hash, version_hash, version_note

LABELS_HELP = (
    "The Local Contexts TK and BC labels and notices its community attached (docs/labels.md): each with the "
    "community's own name and text in its language, every translation the community wrote, `shown` (the name and "
    "text in the request's language when the community wrote one, else its own), whether it is restrictive, and "
    "where it applies.")


def labels_field() -> serializers.SerializerMethodField:
    return serializers.SerializerMethodField(help_text=LABELS_HELP)


def shown_documents(labels) -> list[dict]:
    return [{**document, "shown": label_shown_in(document)} for document in map(label_document, labels)]


class DatasetSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="identifier")
    organization = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    versions = serializers.SerializerMethodField()
    labels = labels_field()
    label_release_required = serializers.SerializerMethodField(help_text=(
        "Whether restrictive labels block its public export and release until its governance staff's release "
        "decision of exactly those labels executes."))

    class Meta:
        model = Dataset
        fields = ["id", "organization", "is_public", "versions", "labels", "label_release_required"]

    def get_versions(self, dataset) -> list[str]:
        return [version.version for version in dataset.versions.all()]

    def get_labels(self, dataset) -> list[dict]:
        return shown_documents(dataset.cultural_labels.all())

    def get_label_release_required(self, dataset) -> bool:
        return (any(label.restrictive for label in dataset.cultural_labels.all())
                and release_block(dataset) is not None)


class DatasetVersionSerializer(serializers.ModelSerializer):
    """`sha256` is the hash the requesting user may see and pin (corpus.selectors.version_hash): pass the
    request in the context, or it is the public's."""

    dataset = serializers.CharField(source="dataset.identifier")
    organization = serializers.CharField(source="dataset.organization.slug")
    frozen = serializers.BooleanField(source="is_frozen")
    sha256 = serializers.SerializerMethodField(help_text="The hash run cards pin (see sha256_kind).")
    sha256_kind = serializers.SerializerMethodField(help_text=(
        "file: SHA-256 of the corpus file as imported; content: SHA-256 of the canonical export; keyed: a keyed "
        "content hash (HMAC-SHA256), shown to those who may not see the secret entries it covers."))

    public_download_sha256 = serializers.SerializerMethodField(help_text=(
        "The public-download pin: SHA-256 of the bytes of this version's public download (its development and "
        "diagnostic entries only, byte-stable; the `public` action). A run card made from that download pins it."))
    note = serializers.SerializerMethodField(help_text=(
        "What changed from the version it came from, in the request's language; a rotation of segments says only that "
        "one happened, never which entries moved. Empty when there is none."))
    held_out_active = serializers.BooleanField(read_only=True, help_text=(
        "Whether run cards may score its held_out entries: the steward's governance staff activate the segment; "
        "until then a card scoring one is refused as if the entry did not exist."))

    class Meta:
        model = DatasetVersion
        fields = [
            "id", "dataset", "organization", "version", "language_pair", "source_language", "target_language",
            "created", "license", "provenance", "sha256", "sha256_kind", "public_download_sha256", "entry_count",
            "frozen", "frozen_at", "imported_at", "note", "held_out_active", "labels",
        ]

    labels = labels_field()

    def get_labels(self, version: DatasetVersion) -> list[dict]:
        return shown_documents(label for label in version.dataset.cultural_labels.all()
                               if label.version_id in (None, version.pk))

    def get_note(self, version: DatasetVersion) -> str:
        return version_note(version)

    def get_public_download_sha256(self, version: DatasetVersion) -> str:
        return public_download_hash(version)

    def _hash(self, version: DatasetVersion) -> VersionHash:
        request = self.context.get("request")
        return version_hash(request.user if request is not None else AnonymousUser(), version)

    def get_sha256(self, version: DatasetVersion) -> str:
        return self._hash(version).value

    def get_sha256_kind(self, version: DatasetVersion) -> str:
        return self._hash(version).kind


class EntrySerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="entry_id", help_text="The entry's id within its dataset version.")
    pk = serializers.IntegerField(read_only=True)
    dataset = serializers.CharField(source="version.dataset.identifier")
    version = serializers.CharField(source="version.version")
    difficulty = serializers.IntegerField(allow_null=True)

    class Meta:
        model = Entry
        fields = [
            "pk", "id", "dataset", "version", "source", "reference", "segment", "difficulty", "provenance",
            "register", "context", "domain", "morphological_analysis", "notes", "variant_class", "document_id",
        ]


class ImportProblemSerializer(serializers.Serializer):
    message = serializers.CharField()
    field = serializers.CharField()
    entry_index = serializers.IntegerField(allow_null=True)
    entry_id = serializers.CharField(allow_null=True)
    line = serializers.IntegerField(allow_null=True)
    column = serializers.IntegerField(allow_null=True)
    text = serializers.CharField(help_text="The whole problem as one sentence.")
    parameter = serializers.CharField(allow_null=True, help_text=(
        "For an envelope field the file lacks (or gives otherwise), or a segment name to map: the query or form "
        "parameter that supplies it."))
    value = serializers.CharField(allow_null=True, help_text=(
        "For a segment name that is none of the four: the name, which segment_map maps (name=segment)."))


class ImportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
    total = serializers.IntegerField()
    problems = ImportProblemSerializer(many=True)


class ImportResultSerializer(serializers.Serializer):
    created = serializers.BooleanField(help_text="False when the same file was already imported.")
    message = serializers.CharField()
    warnings = serializers.ListField(child=serializers.CharField())
    version = DatasetVersionSerializer()
