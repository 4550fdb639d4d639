"""Admin for maintainers: run-card metadata only. The raw card and per-entry results can hold secret
text and are shown through leaderboard.selectors, never here."""

from django.contrib import admin

from .models import Method, RunCard

HIDDEN_FIELDS = ("raw", "discrepancies", "method_config", "verification_error")


@admin.register(RunCard)
class RunCardAdmin(admin.ModelAdmin):
    list_display = ["run_id", "model_slug", "dataset_version", "segment", "status", "hash_status", "composite",
                    "submitted_at"]
    list_filter = ["status", "hash_status", "segment", "scoring_standard"]
    search_fields = ["run_id", "model_slug"]
    exclude = list(HIDDEN_FIELDS)
    readonly_fields = [f.name for f in RunCard._meta.fields if f.name not in HIDDEN_FIELDS]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Method)
class MethodAdmin(admin.ModelAdmin):
    list_display = ["method_id", "name", "method_class", "dependency_class", "updated_at"]
    readonly_fields = ["method_id", "name", "method_class", "dependency_class", "card", "manifest", "submitted_by",
                       "updated_at"]

    def has_add_permission(self, request):
        return False
