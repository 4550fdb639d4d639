"""Admin for maintainers: campaign and decision records only, read-only. Items and ratings carry the
texts of secret entries and speakers' words; governance staff read them on the decision page."""

from django.contrib import admin

from common.admin import ReadOnlyAdmin

from .models import Campaign, Decision, RatingWithdrawal


@admin.register(Campaign)
class CampaignAdmin(ReadOnlyAdmin):
    list_display = ["title", "organization", "status", "sample_size", "ratings_per_item", "opened_at"]
    list_filter = ["status", "organization"]
    exclude = ["summary"]


@admin.register(Decision)
class DecisionAdmin(ReadOnlyAdmin):
    list_display = ["campaign", "outcome", "decided_by", "decided_at"]
    list_filter = ["outcome"]


@admin.register(RatingWithdrawal)
class RatingWithdrawalAdmin(ReadOnlyAdmin):
    list_display = ["campaign", "speaker", "withdrawn_at", "rating_rows", "counted"]
