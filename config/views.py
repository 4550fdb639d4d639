from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.errors import ApplicationError
from common.responses import private
from corpus.selectors import visible_versions
from elicitation.selectors import withdrawable_work
from review.selectors import speaker_pay, waiting_item_count
from review.services.errors import NothingToWithdraw

from . import services
from .forms import DeleteAccountForm


def home(request):
    return render(request, "home.html", {
        "versions": visible_versions(request.user).order_by("-imported_at")[:5],
        "waiting_items": waiting_item_count(request.user),
    })


@login_required
def delete_account(request):
    """Delete one's own account, after typing its address; optionally withdrawing every rating and elicited
    translation first."""
    form = DeleteAccountForm(request.POST or None, email=request.user.email)
    if request.method == "POST" and form.is_valid():
        try:
            services.delete_account(actor=request.user, withdraw=form.cleaned_data["withdraw"])
        except ApplicationError as error:
            form.add_error(None, str(error))
        else:
            logout(request)
            messages.success(request, _("Your account is deleted."))
            return redirect("home")
    return private(render(request, "delete_account.html", {
        "form": form, "rated": bool(speaker_pay(request.user)),
        "translated": withdrawable_work(request.user)}, status=400 if form.errors else 200))


@login_required
def withdraw_all(request):
    """A speaker's one "withdraw everything": what happens to their ratings and to their elicited translations, then
    the withdrawal (POST). A second tap finds nothing left and is told so."""
    if request.method == "POST":
        try:
            withdrawn = services.withdraw_everything(actor=request.user)
        except NothingToWithdraw as error:
            messages.info(request, str(error))
            return redirect("review:my_ratings")
        count = sum(withdrawal.rating_rows for withdrawal in withdrawn.ratings)
        if withdrawn.ratings:
            messages.success(request, ngettext(
                "Withdrawn: your %(count)d rating no longer counts anywhere.",
                "Withdrawn: your %(count)d ratings no longer count anywhere.", count) % {"count": count})
        if withdrawn.elicited["withdrawn"] or withdrawn.elicited["kept_in_frozen_versions"]:
            elicited = withdrawn.elicited
            messages.success(request, ngettext(
                "%(withdrawn)d translation withdrawn and %(removed)d entries taken out of draft versions; %(kept)d "
                "stay in frozen versions, which never change.",
                "%(withdrawn)d translations withdrawn and %(removed)d entries taken out of draft versions; %(kept)d "
                "stay in frozen versions, which never change.", elicited["withdrawn"]) % {
                "withdrawn": elicited["withdrawn"], "removed": elicited["entries_removed"],
                "kept": elicited["kept_in_frozen_versions"]})
        return redirect("review:my_ratings")
    campaigns = [row.campaign for row in speaker_pay(request.user) if row.can_withdraw]
    elicited = withdrawable_work(request.user)
    if not campaigns and not elicited["withdrawable"]:
        raise Http404(_("No ratings of yours to withdraw."))
    return private(render(request, "withdraw_all.html", {"campaigns": campaigns, "elicited": elicited}))
