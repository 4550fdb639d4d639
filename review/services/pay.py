"""Paying and crediting speakers: pay rates, recorded payments and corrections, timesheet exports, credit choices."""

import re
from datetime import date, timedelta
from decimal import Decimal

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from ledger.models import Payment, PayPolicy, SpeakerCredit
from ledger.services import DISPLAY_NAME_LIMIT
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require

from ..models import CURRENCY_PATTERN, MAX_RATING_SECONDS, Campaign, Rating
from .errors import NotAllowed, ReviewError


@transaction.atomic
def set_speaker_credit(*, actor: User, organization: Organization, choice: str, display_name: str = "",
                       full_name: str | None = None) -> SpeakerCredit:
    """How the organization credits the speaker from now on, on every list that names speakers (the choice can be
    changed at any time). Only the speaker chooses; a former speaker keeps the choice for their kept ratings."""
    from ..selectors.speaker_rights import credits_to_choose

    if organization.pk not in {org.pk for org in credits_to_choose(actor)}:
        raise NotAllowed(_("You have never rated for %(organization)s.") % {"organization": organization.name})
    if choice not in SpeakerCredit.Choice.values:
        raise ReviewError(_("Choose how to be credited: by your name, by a name you choose, or anonymously."), "choice")
    display_name = " ".join(display_name.split())
    if choice == SpeakerCredit.Choice.DISPLAY_NAME and not display_name:
        raise ReviewError(_("Write the name to be credited by."), "display_name")
    if len(display_name) > DISPLAY_NAME_LIMIT:
        raise ReviewError(_("The name is limited to %(count)d characters.") % {"count": DISPLAY_NAME_LIMIT},
                          "display_name")
    if choice == SpeakerCredit.Choice.NAME and full_name is not None and full_name.strip():
        set_account_name(actor, full_name)
    if choice == SpeakerCredit.Choice.NAME and not actor.get_full_name().strip():
        raise ReviewError(_("Your account has no name yet: add it on your account page, or choose a name to be "
                            "credited by."), "choice")
    credit, _created = SpeakerCredit.objects.update_or_create(
        organization=organization, user=actor,
        defaults={"choice": choice, "display_name": display_name if choice == SpeakerCredit.Choice.DISPLAY_NAME
                  else "", "updated_at": timezone.now()})
    record_event(AuditAction.SPEAKER_CREDIT_CHANGED, actor=actor, organization=organization, obj=credit,
                 details={"choice": choice})
    return credit


def set_account_name(user: User, full_name: str) -> None:
    """The account's name as one field (names don't split into first and last everywhere): kept in `first_name`."""
    name = " ".join(full_name.split())
    if len(name) > 150:
        raise ReviewError(_("The name is limited to 150 characters."), "full_name")
    if name != user.get_full_name():
        user.first_name, user.last_name = name, ""
        user.save(update_fields=["first_name", "last_name"])


MAX_HOURLY_RATE = Decimal("100000")


def checked_pay_rate(hourly_rate: Decimal, currency: str) -> str:
    """The currency as stored (upper case); a refused rate or currency names its field."""
    if not hourly_rate.is_finite() or not Decimal(0) <= hourly_rate < MAX_HOURLY_RATE:
        raise ReviewError(_("The hourly rate must be a number from 0 to 99,999.99."), "hourly_rate")
    if hourly_rate.as_tuple().exponent < -2:  # type: ignore[operator]
        raise ReviewError(_("The hourly rate has at most two decimals."), "hourly_rate")
    code = currency.strip().upper()
    if not re.fullmatch(CURRENCY_PATTERN, code):
        raise ReviewError(_("The currency is a three-letter ISO 4217 code, such as CAD, USD or EUR."), "currency")
    return code


@transaction.atomic
def set_pay_policy(*, actor: User, organization: Organization, hourly_rate: Decimal, currency: str,
                   default_seconds_per_rating: int) -> PayPolicy:
    """The organization's pay for its speakers' time, used by every campaign without a rate of its own (audited)."""
    require(actor, "organization.govern", organization, error=NotAllowed)
    code = checked_pay_rate(hourly_rate, currency)
    if Payment.objects.filter(campaign__organization=organization, campaign__hourly_rate__isnull=True).exclude(
            currency=code).exists():
        raise ReviewError(_("Payments of campaigns paid at the organization's rate were recorded in another "
                            "currency: keep it, or give those campaigns a rate of their own first."), "currency")
    if not 1 <= default_seconds_per_rating <= MAX_RATING_SECONDS:
        raise ReviewError(_("The seconds per rating must be from 1 to %(max)d.") % {"max": MAX_RATING_SECONDS},
                          "default_seconds_per_rating")
    policy, _created = PayPolicy.objects.update_or_create(organization=organization, defaults={
        "hourly_rate": hourly_rate, "currency": code, "default_seconds_per_rating": default_seconds_per_rating,
        "updated_by": actor, "updated_at": timezone.now()})
    record_event(AuditAction.PAY_RATE_CHANGED, actor=actor, organization=organization, obj=policy, details={
        "hourly_rate": str(hourly_rate), "currency": code, "default_seconds_per_rating": default_seconds_per_rating})
    return policy


@transaction.atomic
def set_campaign_rate(*, actor: User, campaign: Campaign, hourly_rate: Decimal | None, currency: str = "") -> Campaign:
    """A campaign's own hourly rate (None: back to the organization's), audited. Amounts owed follow the rate in
    force; payments already recorded stay as they were."""
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    code = "" if hourly_rate is None else checked_pay_rate(hourly_rate, currency)
    policy = PayPolicy.objects.filter(organization_id=campaign.organization_id).first()
    in_force = code if hourly_rate is not None else (policy.currency if policy else "")
    if campaign.payments.exclude(currency=in_force).exists():
        raise ReviewError(_("Payments of this campaign were recorded in another currency."), "currency")
    campaign.hourly_rate, campaign.currency = hourly_rate, code
    campaign.save(update_fields=["hourly_rate", "currency"])
    record_event(AuditAction.PAY_RATE_CHANGED, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"hourly_rate": None if hourly_rate is None else str(hourly_rate), "currency": code})
    return campaign


MAX_PAYMENT = Decimal("10000000")


@transaction.atomic
def record_payment(*, actor: User, campaign: Campaign, speaker: User, amount: Decimal, paid_on: date,
                   reference: str = "", note: str = "", corrects: Payment | None = None) -> Payment:
    """Governance staff record money paid to a speaker for a campaign (audited, never edited). A correction names
    the payment it corrects and says why; only a correction may be negative."""
    from ..selectors.pay import campaign_rate

    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if not Rating.objects.filter(assignment__campaign=campaign, speaker=speaker).exists():
        raise ReviewError(_("This speaker has no ratings in the campaign."), "speaker")
    rate = campaign_rate(campaign)
    if rate.currency == "":
        raise ReviewError(_("Set the pay rate first: a payment is recorded in the rate's currency."), "amount")
    if not amount.is_finite() or amount == 0 or abs(amount) >= MAX_PAYMENT:
        raise ReviewError(_("The amount must be a number other than 0, below 10,000,000."), "amount")
    if amount.as_tuple().exponent < -2:  # type: ignore[operator]
        raise ReviewError(_("The amount has at most two decimals."), "amount")
    if paid_on > timezone.localdate() + timedelta(days=1):
        raise ReviewError(_("The payment date is in the future."), "paid_on")
    note, reference = note.strip(), reference.strip()
    if len(reference) > 200:
        raise ReviewError(_("The reference is limited to 200 characters."), "reference")
    if corrects is not None:
        if corrects.campaign_id != campaign.pk or corrects.speaker_id != speaker.pk:
            raise ReviewError(_("A correction corrects a payment to the same speaker in the same campaign."),
                              "corrects")
        if not note:
            raise ReviewError(_("Say in the note why the payment is corrected."), "note")
        if corrects.corrects_id is not None:
            raise ReviewError(_("Correct the original payment, not a correction."), "corrects")
        corrected = corrects.amount + (corrects.corrections.aggregate(total=Sum("amount"))["total"] or 0) + amount
        if corrected < 0:
            raise ReviewError(_("A correction cannot take back more than the payment it corrects (%(left)s "
                                "%(currency)s left).") % {"left": corrected - amount, "currency": corrects.currency},
                              "amount")
    elif amount < 0:
        raise ReviewError(_("A negative amount is only recorded as the correction of a payment."), "amount")
    payment = Payment.objects.create(campaign=campaign, speaker=speaker, amount=amount, currency=rate.currency,
                                     paid_on=paid_on, reference=reference, note=note, corrects=corrects,
                                     recorded_by=actor)
    record_event(AuditAction.PAYMENT_RECORDED, actor=actor, organization=campaign.organization, obj=payment, details={
        "speaker": speaker.email, "amount": str(amount), "currency": rate.currency, "paid_on": paid_on.isoformat(),
        "reference": reference, "corrects": corrects.pk if corrects else None})
    return payment


@transaction.atomic
def record_timesheet_export(*, actor: User, campaign: Campaign, file_format: str, rows: int) -> None:
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    record_event(AuditAction.TIMESHEET_EXPORTED, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"format": file_format, "speakers": rows})
