"""Admin for maintainers. Entries are listed through the visibility selector, like everywhere else."""

from django.contrib import admin

from .models import Dataset, DatasetVersion, Entry
from .selectors import visible_entries


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["identifier", "organization", "is_public"]
    list_filter = ["is_public", "organization"]
    search_fields = ["identifier"]
    readonly_fields = ["identifier", "organization", "is_public", "created_at"]

    def has_add_permission(self, request):
        return False


@admin.register(DatasetVersion)
class DatasetVersionAdmin(admin.ModelAdmin):
    list_display = ["dataset", "version", "language_pair", "entry_count", "frozen_at", "imported_at"]
    readonly_fields = [f.name for f in DatasetVersion._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(Entry)
class EntryAdmin(admin.ModelAdmin):
    """Read-only: entries change through the curator pages, which keep the version's sha256 true."""

    list_display = ["entry_id", "version", "segment", "difficulty", "domain", "source"]
    list_filter = ["segment", "difficulty", "domain"]
    search_fields = ["source", "reference", "entry_id"]
    readonly_fields = [f.name for f in Entry._meta.fields]

    def get_queryset(self, request):
        return visible_entries(request.user).select_related("version__dataset")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
