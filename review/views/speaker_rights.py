"""The speaker's own page: their ratings and pay, their credit, withdrawing ratings."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from common.responses import private
from ledger.errors import LedgerError
from ledger.errors import NotAllowed as CreditNotAllowed
from ledger.selectors import credit_choices, credits_to_choose
from ledger.services import set_speaker_credit
from organizations.models import Organization

from ..forms import (
    CreditForm,
)
from ..selectors.pay import speaker_pay
from ..selectors.speaker_rights import (
    has_withdrawn_from,
    speaker_campaign_to_withdraw,
)
from ..services.errors import NothingToWithdraw
from ..services.speaker_rights import withdraw_ratings


@login_required
def my_ratings(request):
    """The speaker's hours and amount owed per campaign, how each organization credits them, and the way to
    withdraw their ratings. Only their own: every read filters on the signed-in user."""
    rows = speaker_pay(request.user)
    credits = credit_choices(request.user)
    organizations = credits_to_choose(request.user)
    credit_forms = [(organization, CreditForm(prefix=organization.slug, initial={
        "choice": credits[organization.pk].choice if organization.pk in credits else "anonymous",
        "display_name": credits[organization.pk].display_name if organization.pk in credits else "",
        "full_name": request.user.get_full_name()})) for organization in organizations]
    return private(render(request, "review/my_ratings.html", {
        "rows": rows, "credit_forms": credit_forms, "can_withdraw_any": any(row.can_withdraw for row in rows),
    }))


@login_required
@require_POST
def my_credit(request, slug: str):
    organization = get_object_or_404(Organization, slug=slug)
    form = CreditForm(request.POST, prefix=slug)
    if form.is_valid():
        try:
            set_speaker_credit(actor=request.user, organization=organization, choice=form.cleaned_data["choice"],
                               display_name=form.cleaned_data["display_name"],
                               full_name=form.cleaned_data["full_name"])
        except CreditNotAllowed as error:
            raise Http404(str(error)) from error
        except LedgerError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, _("Saved: %(organization)s credits you this way from now on, on every list.")
                             % {"organization": organization.name})
    else:
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
    return redirect(reverse("review:my_ratings") + "#credit")


@login_required
def withdraw(request, public_id):
    """A confirmation that says what withdrawing does, then the withdrawal (POST)."""
    campaign = speaker_campaign_to_withdraw(request.user, public_id)
    if campaign is None and request.method == "POST" and has_withdrawn_from(request.user, public_id):
        # A second tap arriving after the first one's withdrawal: the same answer as one that raced it.
        messages.info(request, _("You have no ratings to withdraw in this campaign."))
        return redirect("review:my_ratings")
    if campaign is None:
        raise Http404(_("No ratings of yours to withdraw in this campaign."))
    if request.method == "POST":
        try:
            withdrawal = withdraw_ratings(actor=request.user, campaign=campaign)
        except NothingToWithdraw as error:  # a second tap that found them already withdrawn
            messages.info(request, str(error))
            return redirect("review:my_ratings")
        messages.success(request, ngettext(
            "Withdrawn: your %(count)d rating no longer counts anywhere.",
            "Withdrawn: your %(count)d ratings no longer count anywhere.", withdrawal.rating_rows)
            % {"count": withdrawal.rating_rows})
        return redirect("review:my_ratings")
    return private(render(request, "review/withdraw.html", {
        "campaigns": [campaign], "action": reverse("review:withdraw", args=[campaign.public_id])}))
