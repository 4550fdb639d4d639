"""Two-factor authentication before secrets: the page that tells governance staff and curators how to set
it up, and the view decorators that show it.

The rule itself lives in `organizations.selectors` (`secret_reader_org_ids`, `governance_org_ids`): without
an active TOTP authenticator nothing secret reaches anyone, whatever the view does. These decorators only
make the pages of those roles say why, instead of answering 404 to someone who holds the role.
"""

from collections.abc import Callable
from functools import wraps

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from .models import SECRET_READER_ROLES, Role
from .selectors import lacks_mfa_for, memberships_of, session_needs_code


def mfa_required_response(request: HttpRequest) -> HttpResponse:
    """403 with the set-up steps and the user's roles (nothing about the object asked for, so the page is
    the same whether it exists or not)."""
    return render(request, "organizations/mfa_required.html", {
        "memberships": memberships_of(request.user),
        "session_only": session_needs_code(request.user),
    }, status=403)


def secret_holder_required(*roles: Role) -> Callable:
    """For pages only holders of `roles` use (governance or curator pages): a holder of one of them whose
    account has no two-factor authentication gets the set-up page (403) instead of the view. Everyone else
    reaches the view, which answers them as before (404 or 403 for those without the role)."""
    roles = tuple(roles) or SECRET_READER_ROLES

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if lacks_mfa_for(request.user, roles):
                return mfa_required_response(request)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def mfa_explains_not_found(*roles: Role) -> Callable:
    """For pages everyone uses whose secret parts need two-factor authentication (dataset, entry, export,
    submission pages): when the view finds nothing (404) for a holder of `roles` without it, they get the
    set-up page instead — what they asked for may be a secret their role shows once it is set up. Every
    404 is answered the same way for them, so this reveals nothing about what exists."""
    roles = tuple(roles) or SECRET_READER_ROLES

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except Http404:
                if lacks_mfa_for(request.user, roles):
                    return mfa_required_response(request)
                raise

        return wrapper

    return decorator
