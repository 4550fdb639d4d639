"""Every write of the ledger: pay policies, payments and their corrections for any registered kind of paid work
(`ledger.work`), how each speaker is credited, and keeping a credited name when an account forgets it. Rates of one
piece of work (a campaign's, a batch's) are written by the app that owns it, through `checked_pay_rate`."""

import re
from datetime import date, timedelta
from decimal import Decimal

from django.db import models, transaction
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require

from . import work
from .errors import LedgerError, NotAllowed
from .models import CURRENCY_PATTERN, MAX_RATING_SECONDS, Payment, PayPolicy, SpeakerCredit
from .selectors import credits_to_choose, rate_in_force, stored_pay_policy

DISPLAY_NAME_LIMIT = 100
MAX_HOURLY_RATE = Decimal("100000")
MAX_PAYMENT = Decimal("10000000")


@transaction.atomic
def set_speaker_credit(*, actor: User, organization: Organization, choice: str, display_name: str = "",
                       full_name: str | None = None) -> SpeakerCredit:
    """How the organization credits the speaker from now on, on every list that names speakers (the choice can be
    changed at any time). Only the speaker chooses; a former speaker keeps the choice for their kept work."""
    if organization.pk not in {org.pk for org in credits_to_choose(actor)}:
        raise NotAllowed(_("You have never worked for %(organization)s.") % {"organization": organization.name})
    if choice not in SpeakerCredit.Choice.values:
        raise LedgerError(_("Choose how to be credited: by your name, by a name you choose, or anonymously."), "choice")
    display_name = " ".join(display_name.split())
    if choice == SpeakerCredit.Choice.DISPLAY_NAME and not display_name:
        raise LedgerError(_("Write the name to be credited by."), "display_name")
    if len(display_name) > DISPLAY_NAME_LIMIT:
        raise LedgerError(_("The name is limited to %(count)d characters.") % {"count": DISPLAY_NAME_LIMIT},
                          "display_name")
    if choice == SpeakerCredit.Choice.NAME and full_name is not None and full_name.strip():
        set_account_name(actor, full_name)
    if choice == SpeakerCredit.Choice.NAME and not actor.get_full_name().strip():
        raise LedgerError(_("Your account has no name yet: add it on your account page, or choose a name to be "
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
        raise LedgerError(_("The name is limited to 150 characters."), "full_name")
    if name != user.get_full_name():
        user.first_name, user.last_name = name, ""
        user.save(update_fields=["first_name", "last_name"])


@transaction.atomic
def keep_credited_names(*, actor: User) -> None:
    """Before the account forgets its name: a speaker credited by their name keeps that credit, the name moving
    into it (anonymous when the account has none)."""
    name = actor.get_full_name().strip()[:DISPLAY_NAME_LIMIT]
    for credit in SpeakerCredit.objects.filter(user=actor, choice=SpeakerCredit.Choice.NAME):
        credit.choice = SpeakerCredit.Choice.DISPLAY_NAME if name else SpeakerCredit.Choice.ANONYMOUS
        credit.display_name = name
        credit.save(update_fields=["choice", "display_name"])


def checked_pay_rate(hourly_rate: Decimal, currency: str) -> str:
    """The currency as stored (upper case); a refused rate or currency names its field."""
    if not hourly_rate.is_finite() or not Decimal(0) <= hourly_rate < MAX_HOURLY_RATE:
        raise LedgerError(_("The hourly rate must be a number from 0 to 99,999.99."), "hourly_rate")
    if hourly_rate.as_tuple().exponent < -2:  # type: ignore[operator]
        raise LedgerError(_("The hourly rate has at most two decimals."), "hourly_rate")
    code = currency.strip().upper()
    if not re.fullmatch(CURRENCY_PATTERN, code):
        raise LedgerError(_("The currency is a three-letter ISO 4217 code, such as CAD, USD or EUR."), "currency")
    return code


def paid_at_organization_rate(organization: Organization) -> Q:
    """Payments for any work of the organization without a rate of its own (paid at the organization's)."""
    query = Q(pk__in=[])
    for kind in work.registered():
        query |= Q(**{f"{kind.payment_field}__organization": organization,
                      f"{kind.payment_field}__hourly_rate__isnull": True})
    return query


@transaction.atomic
def set_pay_policy(*, actor: User, organization: Organization, hourly_rate: Decimal, currency: str,
                   default_seconds_per_rating: int) -> PayPolicy:
    """The organization's pay for its speakers' time, used by every campaign and batch without a rate of its own
    (audited)."""
    require(actor, "organization.govern", organization, error=NotAllowed)
    code = checked_pay_rate(hourly_rate, currency)
    if Payment.objects.filter(paid_at_organization_rate(organization)).exclude(currency=code).exists():
        raise LedgerError(_("Payments for work paid at the organization's rate were recorded in another currency: "
                            "keep it, or give that work a rate of its own first."), "currency")
    if not 1 <= default_seconds_per_rating <= MAX_RATING_SECONDS:
        raise LedgerError(_("The seconds per rating must be from 1 to %(max)d.") % {"max": MAX_RATING_SECONDS},
                          "default_seconds_per_rating")
    policy, _created = PayPolicy.objects.update_or_create(organization=organization, defaults={
        "hourly_rate": hourly_rate, "currency": code, "default_seconds_per_rating": default_seconds_per_rating,
        "updated_by": actor, "updated_at": timezone.now()})
    record_event(AuditAction.PAY_RATE_CHANGED, actor=actor, organization=organization, obj=policy, details={
        "hourly_rate": str(hourly_rate), "currency": code, "default_seconds_per_rating": default_seconds_per_rating})
    return policy


@transaction.atomic
def record_payment(*, actor: User, work_done: models.Model, speaker: User, amount: Decimal, paid_on: date,
                   reference: str = "", note: str = "", corrects: Payment | None = None) -> Payment:
    """Governance staff record money paid to a speaker for a campaign or a batch (audited, never edited). A
    correction — a reversal when negative — names the payment it corrects and says why, and is recorded by
    governance staff like any payment."""
    kind = work.kind_of(work_done)
    organization = work_done.organization  # type: ignore[attr-defined]
    require(actor, "organization.govern", organization, error=NotAllowed)
    work_done = kind.model._default_manager.select_for_update().get(pk=work_done.pk)
    if not kind.has_worked(work_done, speaker):
        raise LedgerError(kind.nobody_message(), "speaker")
    rate = rate_in_force(work_done, stored_pay_policy(organization))
    if rate.currency == "":
        raise LedgerError(_("Set the pay rate first: a payment is recorded in the rate's currency."), "amount")
    if not amount.is_finite() or amount == 0 or abs(amount) >= MAX_PAYMENT:
        raise LedgerError(_("The amount must be a number other than 0, below 10,000,000."), "amount")
    if amount.as_tuple().exponent < -2:  # type: ignore[operator]
        raise LedgerError(_("The amount has at most two decimals."), "amount")
    if paid_on > timezone.localdate() + timedelta(days=1):
        raise LedgerError(_("The payment date is in the future."), "paid_on")
    note, reference = note.strip(), reference.strip()
    if len(reference) > 200:
        raise LedgerError(_("The reference is limited to 200 characters."), "reference")
    if corrects is not None:
        if getattr(corrects, f"{kind.payment_field}_id") != work_done.pk or corrects.speaker_id != speaker.pk:
            raise LedgerError(_("A correction corrects a payment to the same speaker for the same work."),
                              "corrects")
        if not note:
            raise LedgerError(_("Say in the note why the payment is corrected."), "note")
        if corrects.corrects_id is not None:
            raise LedgerError(_("Correct the original payment, not a correction."), "corrects")
        corrected = corrects.amount + (corrects.corrections.aggregate(total=Sum("amount"))["total"] or 0) + amount
        if corrected < 0:
            raise LedgerError(_("A correction cannot take back more than the payment it corrects (%(left)s "
                                "%(currency)s left).") % {"left": corrected - amount, "currency": corrects.currency},
                              "amount")
    elif amount < 0:
        raise LedgerError(_("A negative amount is only recorded as the correction of a payment."), "amount")
    payment = Payment.objects.create(**{kind.payment_field: work_done}, speaker=speaker, amount=amount,
                                     currency=rate.currency, paid_on=paid_on, reference=reference, note=note,
                                     corrects=corrects, recorded_by=actor)
    record_event(AuditAction.PAYMENT_RECORDED, actor=actor, organization=organization, obj=payment, details={
        "speaker": speaker.email, "amount": str(amount), "currency": rate.currency, "paid_on": paid_on.isoformat(),
        "reference": reference, "corrects": corrects.pk if corrects else None})
    return payment
