"""Admin for maintainers: run-card metadata only. The raw card and per-entry results can hold secret
text and are shown through leaderboard.selectors, never here. Nor are the fingerprint and its components:
of a card that pins a dataset hash kept from the public (docs/corpus.md, "Hashes"), together they would let
anyone test guesses of that hash."""

from django.contrib import admin

from common.admin import ReadOnlyAdmin

from .models import A1RunApproval, Method, RunCard
from .verification import FINGERPRINT_V1_COMPONENTS

# The card's columns holding a fingerprint component (dataset_sha256 is only in `raw`).
FINGERPRINT_FIELDS = ("fingerprint", *(name for name in FINGERPRINT_V1_COMPONENTS if name != "dataset_sha256"))
# setup_fingerprint is a fingerprint too; chrf_statistics derive from the references of the entries scored, secret
# ones included (docs/run-cards.md, "Bootstrap intervals and rank clusters").
HIDDEN_FIELDS = ("raw", "discrepancies", "method_config", "verification_error", *FINGERPRINT_FIELDS,
                 "setup_fingerprint", "chrf_statistics")


@admin.register(RunCard)
class RunCardAdmin(ReadOnlyAdmin):
    list_display = ["run_id", "dataset_version", "segment", "status", "hash_status", "composite", "submitted_at"]
    list_filter = ["status", "hash_status", "segment", "scoring_standard"]
    search_fields = ["run_id"]
    exclude = list(HIDDEN_FIELDS)
    readonly_fields = [f.name for f in RunCard._meta.fields if f.name not in HIDDEN_FIELDS]


@admin.register(Method)
class MethodAdmin(ReadOnlyAdmin):
    list_display = ["method_id", "name", "method_class", "dependency_class", "updated_at"]
    search_fields = ["method_id", "name"]
    readonly_fields = ["method_id", "name", "method_class", "dependency_class", "card", "manifest", "submitted_by",
                       "updated_at"]


@admin.register(A1RunApproval)
class A1RunApprovalAdmin(ReadOnlyAdmin):
    list_display = ["method_id", "dataset_version", "segments", "approved_at", "legacy", "run_card", "used_at"]
    list_select_related = ["dataset_version__dataset", "run_card"]
