"""Admin for maintainers: terms, acceptances, submissions, their history, sign-offs, rights holders' permissions and
transfers are evidence, read-only."""

from django.contrib import admin

from common.admin import ReadOnlyAdmin

from .models import (
    DependencySignOff,
    MethodSubmission,
    OwnershipTransfer,
    ParticipationTerms,
    RightsHolderPermission,
    SubmissionEvent,
    TermsAcceptance,
)


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


@admin.register(DependencySignOff)
class DependencySignOffAdmin(ReadOnlyAdmin):
    list_display = ["submission", "dependency_id", "reviewer", "signed_at", "manifest_sha256"]
    list_select_related = ["submission__organization", "reviewer"]


@admin.register(RightsHolderPermission)
class RightsHolderPermissionAdmin(ReadOnlyAdmin):
    list_display = ["submission", "dependency_id", "rights_holder", "recorded_by", "recorded_at"]
    list_select_related = ["submission__organization", "recorded_by"]
    exclude = ["document"]  # served only to the organization's governance staff; its name is shown
