"""A batch's figures per person: the curator's dashboard and its CSV, and governance staff's pay page, where
payments and corrections are recorded."""

import csv
import io
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
from ledger.services import record_payment
from organizations.mfa import secret_holder_required
from organizations.models import SECRET_READER_ROLES, Role
from organizations.permissions import permitted

from ..models import Batch
from ..selectors.curation import batch_progress
from ..selectors.figures import (
    batch_cost,
    batch_rate,
    flagged_versions,
    repeatedly_flagged,
    skip_counts,
    speaker_figures,
)
from .shared import curated_batch


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def dashboard(request, public_id):
    batch = curated_batch(request, public_id)
    rate = batch_rate(batch)
    figures = speaker_figures(batch, rate)
    return private(render(request, "elicitation/dashboard.html", {
        "batch": batch, "rate": rate, "progress": batch_progress(batch), "figures": figures,
        "flagged_people": repeatedly_flagged(figures), "flagged": flagged_versions(batch)[:50],
        "cost": batch_cost(figures), "skips": skip_counts(batch),
        "can_pay": permitted(request.user, "organization.govern", batch.organization)}))


@login_required
@secret_holder_required(*SECRET_READER_ROLES)
def dashboard_export(request, public_id):
    """Per person, the dashboard's figures as CSV (labels as credited, anonymous otherwise; no text)."""
    batch = curated_batch(request, public_id)
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["person", "translated", "accepted", "rejected", "flagged_machine_like", "verified",
                     "verification_agreement", "seconds", "owed", "paid", "currency"])
    rate = batch_rate(batch)
    for row in speaker_figures(batch, rate):
        writer.writerow([row.label, row.translated, row.accepted, row.rejected, row.flagged, row.verified,
                         "" if row.agreement is None else f"{row.agreement:.2f}", row.seconds,
                         "" if row.owed is None else row.owed, row.paid, rate.currency])
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    return private(as_download(response, f"elicitation-{batch.public_id}", "csv"))


@login_required
@secret_holder_required(Role.GOVERNANCE)
def batch_pay(request, public_id):
    """Governance staff's pay page for a batch: each person's time, accepted translations, what they are owed and
    were paid; recording a payment or a correction (a reversal is a negative correction, recorded here only)."""
    batch = get_object_or_404(Batch.objects.select_related("organization", "dataset"), public_id=public_id)
    if not permitted(request.user, "organization.govern", batch.organization):
        raise Http404(_("No such batch in your organizations."))
    rate = batch_rate(batch)
    figures = speaker_figures(batch, rate)
    payments = list(payments_for(batch))
    labels = {row.user_id: row.label for row in figures}
    form = PaymentForm(request.POST or None, speakers=[(row.user_id, row.label) for row in figures], payments=[
        (p.pk, f"#{p.pk} · {labels.get(p.speaker_id, '')} · {p.amount} {p.currency} · {p.paid_on.isoformat()}")
        for p in payments])
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            record_payment(actor=request.user, work_done=batch,
                           speaker=get_object_or_404(get_user_model(), pk=data["speaker"]), amount=data["amount"],
                           paid_on=data["paid_on"], reference=data["reference"], note=data["note"],
                           corrects=next((p for p in payments if p.pk == data["corrects"]), None))
        except ApplicationError as error:
            form.add_error(error.field if error.field in form.fields else None, error.message)
        else:
            messages.success(request, _("Payment recorded."))
            return redirect("elicitation:batch_pay", public_id=batch.public_id)
    return private(render(request, "elicitation/pay.html", {
        "batch": batch, "rate": rate, "figures": figures, "form": form,
        "payments": [(payment, labels.get(payment.speaker_id, "")) for payment in payments],
        "cost": batch_cost(figures), "paid": sum((row.paid for row in figures), start=Decimal("0.00")),
    }, status=400 if form.errors else 200))
