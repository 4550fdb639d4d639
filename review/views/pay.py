"""Governance staff's pay pages: a campaign's timesheet and its export, the organization's pay policy."""

from decimal import Decimal

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from common.downloads import as_download
from common.errors import ApplicationError
from common.responses import private
from ledger.forms import PaymentForm
from ledger.selectors import payments_for
from ledger.services import record_payment, set_pay_policy
from organizations.mfa import secret_holder_required
from organizations.models import Role

from ..forms import (
    CampaignRateForm,
    PayPolicyForm,
)
from ..resources import EXPORT_FORMATS, export_timesheet
from ..selectors import pay as pay_selectors
from ..selectors.pay import campaign_rate, stored_pay_policy
from ..services.pay import record_timesheet_export, set_campaign_rate
from .shared import CONTENT_TYPES, governed_or_404, governed_organization_or_404


@login_required
@secret_holder_required(Role.GOVERNANCE)
def timesheet(request, public_id):
    """Each speaker's time in the campaign, what it is owed and what was paid; the campaign's rate; recording a
    payment or a correction."""
    campaign = governed_or_404(request, public_id)
    rate = campaign_rate(campaign)
    rows = pay_selectors.timesheet(campaign, rate)
    payments = list(payments_for(campaign))
    names = {row.speaker_id: row.email for row in rows}
    payment_form = PaymentForm(
        request.POST if "record_payment" in request.POST else None,
        speakers=[(row.speaker_id, row.email) for row in rows],
        payments=[(p.pk, f"#{p.pk} · {names.get(p.speaker_id, p.speaker.email)} · {p.amount} {p.currency} · "
                         f"{p.paid_on.isoformat()}") for p in payments])
    rate_form = CampaignRateForm(request.POST if "set_rate" in request.POST else None, initial={
        "hourly_rate": campaign.hourly_rate, "currency": campaign.currency})
    if request.method == "POST":
        try:
            if "record_payment" in request.POST and payment_form.is_valid():
                data = payment_form.cleaned_data
                speaker = get_object_or_404(get_user_model(), pk=data["speaker"])
                corrects = next((p for p in payments if p.pk == data["corrects"]), None)
                record_payment(actor=request.user, work_done=campaign, speaker=speaker, amount=data["amount"],
                               paid_on=data["paid_on"], reference=data["reference"], note=data["note"],
                               corrects=corrects)
                messages.success(request, _("Payment recorded."))
                return redirect("review:timesheet", public_id=campaign.public_id)
            if "set_rate" in request.POST and rate_form.is_valid():
                set_campaign_rate(actor=request.user, campaign=campaign,
                                  hourly_rate=rate_form.cleaned_data["hourly_rate"],
                                  currency=rate_form.cleaned_data["currency"] or "")
                messages.success(request, _("The campaign's rate is saved."))
                return redirect("review:timesheet", public_id=campaign.public_id)
        except ApplicationError as error:
            form = payment_form if "record_payment" in request.POST else rate_form
            form.add_error(error.field if error.field in form.fields else None, str(error))
    invalid = payment_form.errors or rate_form.errors
    owed = None if rate.hourly_rate is None else sum((row.owed or Decimal(0) for row in rows), start=Decimal("0.00"))
    paid = sum((row.paid for row in rows), start=Decimal("0.00"))
    return private(render(request, "review/timesheet.html", {
        "campaign": campaign, "rate": rate, "rows": rows, "payments": payments, "payment_form": payment_form,
        "rate_form": rate_form, "totals": {
            "hours": sum(row.hours for row in rows), "ratings": sum(row.ratings for row in rows), "owed": owed,
            "paid": paid, "balance": None if owed is None else owed - paid},
    }, status=400 if invalid else 200))


@login_required
@secret_holder_required(Role.GOVERNANCE)
def timesheet_export(request, public_id, file_format: str):
    campaign = governed_or_404(request, public_id)
    if file_format not in EXPORT_FORMATS:
        raise Http404(_("Unknown export format."))
    rate = campaign_rate(campaign)
    rows = pay_selectors.timesheet(campaign, rate)
    record_timesheet_export(actor=request.user, campaign=campaign, file_format=file_format, rows=len(rows))
    response = HttpResponse(export_timesheet(rows, rate, file_format), content_type=CONTENT_TYPES[file_format])
    return as_download(response, f"timesheet-{campaign.public_id}", file_format)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def pay_policy(request, slug: str):
    organization = governed_organization_or_404(request, slug)
    stored = stored_pay_policy(organization)
    form = PayPolicyForm(request.POST or None, initial={
        "hourly_rate": stored.hourly_rate, "currency": stored.currency,
        "default_seconds_per_rating": stored.default_seconds_per_rating} if stored else None)
    if request.method == "POST" and form.is_valid():
        try:
            set_pay_policy(actor=request.user, organization=organization, **form.cleaned_data)
        except ApplicationError as error:
            form.add_error(error.field if error.field in form.fields else None, str(error))
        else:
            messages.success(request, _("Pay rate saved: it applies to every campaign without a rate of its own."))
            return redirect("review:pay_policy", slug=slug)
    return render(request, "review/pay_policy.html", {"organization": organization, "form": form, "stored": stored},
                  status=400 if form.errors else 200)
