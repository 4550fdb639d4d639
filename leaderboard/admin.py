"""Admin for maintainers: run-card metadata only. The raw card and per-entry results can hold secret
text and are shown through leaderboard.selectors, never here."""

from django.contrib import admin

from config.admin import ReadOnlyAdmin

from .models import Method, RunCard

HIDDEN_FIELDS = ("raw", "discrepancies", "method_config", "verification_error")


@admin.register(RunCard)
class RunCardAdmin(ReadOnlyAdmin):
    list_display = ["run_id", "model_slug", "dataset_version", "segment", "status", "hash_status", "composite",
                    "submitted_at"]
    list_filter = ["status", "hash_status", "segment", "scoring_standard"]
    search_fields = ["run_id", "model_slug"]
    exclude = list(HIDDEN_FIELDS)
    readonly_fields = [f.name for f in RunCard._meta.fields if f.name not in HIDDEN_FIELDS]


@admin.register(Method)
class MethodAdmin(ReadOnlyAdmin):
    list_display = ["method_id", "name", "method_class", "dependency_class", "updated_at"]
    search_fields = ["method_id", "name"]
    readonly_fields = ["method_id", "name", "method_class", "dependency_class", "card", "manifest", "submitted_by",
                       "updated_at"]
