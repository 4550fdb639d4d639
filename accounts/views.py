from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from governance.selectors import memberships_of

from . import services


@login_required
def profile(request):
    new_key = request.session.pop("new_api_token_key", None)
    return render(
        request,
        "accounts/profile.html",
        {
            "memberships": memberships_of(request.user),
            "tokens": request.user.api_tokens.all(),
            "new_key": new_key,
        },
    )


@login_required
@require_POST
def create_token(request):
    _, key = services.create_api_token(request.user, request.POST.get("name", "").strip())
    request.session["new_api_token_key"] = key
    return redirect("accounts:profile")


@login_required
@require_POST
def revoke_token(request, token_id: int):
    try:
        token = services.revoke_api_token(request.user, token_id)
    except services.ApiToken.DoesNotExist as error:
        raise Http404("No such token among yours.") from error
    messages.success(request, f"Token {token.prefix}… revoked.")
    return redirect("accounts:profile")
