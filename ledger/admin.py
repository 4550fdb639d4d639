"""Admin for maintainers: pay policies and payments, read-only (governance staff set them on their pages)."""

from django.contrib import admin

from common.admin import ReadOnlyAdmin

from .models import Payment, PayPolicy


@admin.register(PayPolicy)
class PayPolicyAdmin(ReadOnlyAdmin):
    list_display = ["organization", "hourly_rate", "currency", "default_seconds_per_rating", "updated_at"]


@admin.register(Payment)
class PaymentAdmin(ReadOnlyAdmin):
    """Payments are set on a campaign's timesheet by its governance staff; here, the record only."""

    list_display = ["campaign", "speaker", "amount", "currency", "paid_on", "reference", "corrects", "recorded_at"]
    list_filter = ["currency"]
