"""Admin for maintainers: terms, acceptances, submissions, their history and transfers are evidence, read-only."""

from django.contrib import admin

from common.admin import ReadOnlyAdmin

from .models import MethodSubmission, OwnershipTransfer, ParticipationTerms, SubmissionEvent, TermsAcceptance


@admin.register(ParticipationTerms)
class ParticipationTermsAdmin(ReadOnlyAdmin):
    list_display = ["organization", "version", "published_at", "published_by"]
    list_filter = ["organization"]


@admin.register(TermsAcceptance)
class TermsAcceptanceAdmin(ReadOnlyAdmin):
    list_display = ["terms", "user", "accepted_at"]
    search_fields = ["user__email"]


@admin.register(MethodSubmission)
class MethodSubmissionAdmin(ReadOnlyAdmin):
    list_display = ["method_name", "method_id", "organization", "submitter", "state", "derived_class", "created_at"]
    list_filter = ["state", "derived_class", "organization"]
    search_fields = ["method_id", "method_name", "submitter__email"]
    list_select_related = ["organization", "submitter"]
    exclude = ["package"]  # stored outside MEDIA_URL's reach; its name, size and sha256 are shown


@admin.register(SubmissionEvent)
class SubmissionEventAdmin(ReadOnlyAdmin):
    list_display = ["submission", "from_state", "to_state", "actor", "created_at"]
    list_select_related = ["submission__organization", "actor"]


@admin.register(OwnershipTransfer)
class OwnershipTransferAdmin(ReadOnlyAdmin):
    list_display = ["method_name", "organization", "terms", "recorded_by", "recorded_at"]
