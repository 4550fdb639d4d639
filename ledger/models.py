"""The pay and credit ledger: what an organization pays its speakers for their time, what it paid them, and how
each speaker is credited. It sits below the apps whose work it pays for (review's campaigns, elicitation's batches)
and names them by string only (`"review.Campaign"`, `"elicitation.Batch"`), never by import; each registers its kind
of paid work with `ledger.work`. The tables were created by review and
keep their names (`review_*`): the models moved here in the migration state only (docs/architecture.md)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from common.append_only import AppendOnlyModel
from organizations.models import Organization

MAX_RATING_SECONDS = 15 * 60
"""The most one rating's active time may count, whatever the device says: bounds a clock gone wrong."""
CURRENCY_PATTERN = r"^[A-Z]{3}$"


class PayPolicy(models.Model):
    """An organization's pay for its speakers' time: an hourly rate in one currency (a campaign may override it),
    and the seconds per rating its cost estimates assume before it has a history of its own."""

    organization = models.OneToOneField(Organization, on_delete=models.CASCADE, related_name="pay_policy")
    hourly_rate = models.DecimalField(max_digits=8, decimal_places=2)
    currency = models.CharField(max_length=3)
    default_seconds_per_rating = models.PositiveIntegerField(default=45)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        db_table = "review_paypolicy"
        constraints = [
            models.CheckConstraint(condition=Q(hourly_rate__gte=0, currency__regex=CURRENCY_PATTERN),
                                   name="paypolicy_rate_and_currency"),
            models.CheckConstraint(condition=Q(default_seconds_per_rating__gte=1,
                                               default_seconds_per_rating__lte=MAX_RATING_SECONDS),
                                   name="paypolicy_default_seconds_in_range"),
        ]


class Payment(AppendOnlyModel):
    """Money paid to a speaker for one piece of paid work (a review campaign or an elicitation batch: exactly one),
    as governance staff recorded it. Never edited: a mistake is put right by a correction, a new row that names the
    payment it corrects and says why (negative to take back)."""

    campaign = models.ForeignKey("review.Campaign", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="payments")
    batch = models.ForeignKey("elicitation.Batch", null=True, blank=True, on_delete=models.PROTECT,
                              related_name="payments")
    speaker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    currency = models.CharField(max_length=3)
    paid_on = models.DateField()
    reference = models.CharField(max_length=200, blank=True)
    note = models.TextField(blank=True)
    corrects = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="corrections")
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "review_payment"
        ordering = ["recorded_at", "pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(amount=0), name="payment_amount_not_zero"),
            models.CheckConstraint(condition=Q(amount__gt=0) | Q(corrects__isnull=False),
                                   name="payment_negative_only_as_correction"),
            models.CheckConstraint(condition=Q(corrects__isnull=True) | ~Q(note=""),
                                   name="payment_correction_says_why"),
            models.CheckConstraint(condition=Q(currency__regex=CURRENCY_PATTERN), name="payment_currency_code"),
            models.CheckConstraint(
                condition=Q(campaign__isnull=False, batch__isnull=True) | Q(campaign__isnull=True, batch__isnull=False),
                name="payment_for_one_piece_of_work"),
        ]

    append_only_message = "Payments are never edited or deleted; record a correction."


class SpeakerCredit(models.Model):
    """How a speaker is credited by one organization: by their name, by a name they chose, or not at all. No row
    means anonymous: nobody is named without having asked to be."""

    class Choice(models.TextChoices):
        NAME = "name", gettext_lazy("By my name")
        DISPLAY_NAME = "display_name", gettext_lazy("By a name I choose")
        ANONYMOUS = "anonymous", gettext_lazy("Anonymously")

    # Indexed as the first column of speakercredit_one_per_organization.
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="speaker_credits",
                                     db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    choice = models.CharField(max_length=12, choices=Choice.choices, default=Choice.ANONYMOUS)
    display_name = models.CharField(max_length=100, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "review_speakercredit"
        constraints = [
            models.UniqueConstraint(fields=["organization", "user"], name="speakercredit_one_per_organization"),
            models.CheckConstraint(condition=Q(choice__in=["name", "display_name", "anonymous"]),
                                   name="speakercredit_choice_valid"),
            models.CheckConstraint(condition=~Q(choice="display_name") | ~Q(display_name=""),
                                   name="speakercredit_display_name_given"),
        ]


class WorkClock(models.Model):
    """How far each speaker's paid working time has run (`counted_until`, the server's clock). Every timed piece of
    work, a rating or (next) a translation, is paid from the later of its showing and this point, and moves it on by
    what it was paid: items shown together and worked one after the other, or sent together after a spell offline,
    never add up to more than the speaker's wall time (`ledger.worktime`)."""

    speaker = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
                                   related_name="work_clock")
    counted_until = models.DateTimeField()

