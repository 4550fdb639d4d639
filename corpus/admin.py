"""Admin for maintainers. Entries are listed through the visibility selector, like everywhere else; no admin
here filters or searches on entry text (common.admin.SafeAdmin)."""

from django.contrib import admin
from django.contrib.auth.models import AnonymousUser

from common.admin import ReadOnlyAdmin, SafeAdmin

from .models import ConsentRecord, Dataset, DatasetVersion, Entry
from .selectors import visible_entries


@admin.register(Dataset)
class DatasetAdmin(SafeAdmin):
    list_display = ["identifier", "organization", "is_public"]
    list_filter = ["is_public", "organization"]
    search_fields = ["identifier"]
    readonly_fields = ["identifier", "organization", "is_public", "created_at"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(DatasetVersion)
class DatasetVersionAdmin(ReadOnlyAdmin):
    list_display = ["dataset", "version", "language_pair", "entry_count", "frozen_at", "imported_at"]
    search_fields = ["dataset__identifier"]
    # sha256 may be a content hash that confirms guesses of secret entries: maintainers see public_sha256.
    exclude = ["sha256"]
    readonly_fields = [f.name for f in DatasetVersion._meta.fields if f.name != "sha256"]


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    """Read-only: entries change through the curator pages, which keep the version's sha256 true. The admin
    lists what the public sees, whatever roles the maintainer also holds (they read their community's secret
    entries on its pages, with the audit trail); searched by id only."""

    list_display = ["entry_id", "version", "segment", "difficulty", "domain", "source"]
    list_filter = ["segment", "difficulty", "domain"]
    search_fields = ["entry_id"]
    # search_text only repeats source, reference and notes, folded for search.
    readonly_fields = [f.name for f in Entry._meta.fields if f.name != "search_text"]

    def get_queryset(self, request):
        return visible_entries(AnonymousUser()).select_related("version__dataset")


@admin.register(ConsentRecord)
class ConsentRecordAdmin(ReadOnlyAdmin):
    """Read-only: consent is recorded and revoked by the steward's governance staff on the consent page,
    which checks their role and writes the audit log. Never deleted. The document itself is served only
    to governance staff, so the admin shows its name, not a link."""

    list_display = ["dataset", "granted_on", "granted_by_name", "public_release", "evaluation", "human_review",
                    "gateway_disclosure", "corpus_creation", "revoked_at"]
    list_filter = ["public_release", "evaluation", "human_review", "gateway_disclosure", "corpus_creation",
                   "dataset__organization"]
    search_fields = ["dataset__identifier", "granted_by_name"]
    fields = readonly_fields = [
        "dataset", "public_release", "evaluation", "human_review", "gateway_disclosure", "corpus_creation",
        "granted_by_name", "granted_on", "document_name", "document_reference", "notes", "recorded_by", "recorded_at",
        "revoked_at", "revoked_by", "revocation_reason",
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("dataset", "recorded_by", "revoked_by")
