"""Two-factor authentication per session, not only per account: a session signed in with the password
alone (for instance before the account's authenticator was activated) shows no secret, even once the
account has one. allauth records how each session was authenticated; the middleware reads that record.

A session proves its second factor when allauth recorded an "mfa" authentication in it: the code asked
at sign-in, or the code typed to activate the authenticator in this very session (recorded on the
`authenticator_added` signal). Sessions opened outside allauth's sign-in (Django's `login()` in code, as
tests do) carry no record and are judged by the account alone; the admin's own login form is routed
through allauth's (config/urls.py), so it is no way around the code.
"""

from allauth.account.internal.flows.login import (
    AUTHENTICATION_METHODS_SESSION_KEY,
    record_authentication,
)
from allauth.mfa.models import Authenticator
from allauth.mfa.signals import authenticator_added
from django.dispatch import receiver

SESSION_WITHOUT_SECOND_FACTOR = "_session_without_second_factor"


class SessionSecondFactorMiddleware:
    """Marks the request's user when this session was authenticated without the second factor."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        records = request.session.get(AUTHENTICATION_METHODS_SESSION_KEY) if hasattr(request, "session") else None
        if records and not any(record.get("method") == "mfa" for record in records):
            if request.user.is_authenticated:
                setattr(request.user, SESSION_WITHOUT_SECOND_FACTOR, True)
        return self.get_response(request)


def session_lacks_second_factor(user) -> bool:
    return bool(getattr(user, SESSION_WITHOUT_SECOND_FACTOR, False))


@receiver(authenticator_added, dispatch_uid="governance.activation_proves_the_second_factor")
def activation_proves_the_second_factor(sender, request, user, authenticator, **kwargs) -> None:
    """Typing the authenticator's code to activate it proves it, in this session, as a sign-in would."""
    if request is not None and authenticator.type == Authenticator.Type.TOTP:
        record_authentication(request, user, "mfa", type="totp", activated=True)
