from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _

from common.errors import ApplicationError
from corpus.selectors import visible_versions
from review.selectors import speaker_pay, waiting_item_count

from . import services
from .forms import DeleteAccountForm


def home(request):
    return render(request, "home.html", {
        "versions": visible_versions(request.user).order_by("-imported_at")[:5],
        "waiting_items": waiting_item_count(request.user),
    })


@login_required
def delete_account(request):
    """Delete one's own account, after typing its address; optionally withdrawing every rating first."""
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
    response = render(request, "delete_account.html", {
        "form": form, "rated": bool(speaker_pay(request.user))}, status=400 if form.errors else 200)
    patch_cache_control(response, private=True, no_store=True)
    return response
