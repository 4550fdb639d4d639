from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.responses import private

from . import services
from .forms import ApiTokenForm, PublicNameForm
from .second_factor import account_authenticators, second_factor_proven


def _profile(request, form: ApiTokenForm, status: int = 200, name_form: PublicNameForm | None = None):
    authenticators = account_authenticators(request.user)
    has_totp = authenticators[0] is not None
    proven = has_totp and second_factor_proven(request.user, authenticators)
    # The page shows a new token's key once: not kept by any cache, nor by the back button.
    return private(render(
        request,
        "accounts/profile.html",
        {
            "tokens": request.user.api_tokens.all(),
            "new_key": request.session.pop("new_api_token_key", None),
            "token_form": form,
            "name_form": name_form or PublicNameForm(initial={"public_name": request.user.public_name}),
            "second_factor_proven": proven,
            "session_needs_code": has_totp and not proven,
        },
        status=status,
    ))


@login_required
def profile(request):
    return _profile(request, ApiTokenForm())


@login_required
@require_POST
def create_token(request):
    form = ApiTokenForm(request.POST)
    if not form.is_valid():
        return _profile(request, form, status=400)
    try:
        _token, key = services.create_api_token(
            actor=request.user,
            name=form.cleaned_data["name"].strip(),
            scope=form.cleaned_data["scope"],
            lifetime_days=form.cleaned_data["lifetime_days"],
        )
    except services.TokenRefused as refusal:
        form.add_error(None, _("The token was not created: %(reason)s.") % {"reason": refusal})
        return _profile(request, form, status=403)
    request.session["new_api_token_key"] = key
    return redirect("accounts:profile")


@login_required
@require_POST
def revoke_token(request, token_id: int):
    try:
        token = services.revoke_api_token(actor=request.user, token_id=token_id)
    except services.ApiToken.DoesNotExist as error:
        raise Http404(_("No such token among yours.")) from error
    messages.success(request, _("Token %(prefix)s… revoked.") % {"prefix": token.prefix})
    return redirect("accounts:profile")


@login_required
@require_POST
def public_name(request):
    """Set (or clear) the name published with what the account publishes."""
    form = PublicNameForm(request.POST)
    if form.is_valid():
        try:
            services.set_public_name(actor=request.user, name=form.cleaned_data["public_name"])
        except services.PublicNameRefused as refusal:
            form.add_error("public_name", refusal.message)
        else:
            messages.success(request, _("You are published as %(name)s.") % {"name": request.user.public_label})
            return redirect("accounts:profile")
    return _profile(request, ApiTokenForm(), status=400, name_form=form)
