"""Two-factor authentication is proved by each session (or API token) itself, never inferred from the
account: a session opened by sign-up, e-mail confirmation, password reset or a password-only sign-in shows no
secret, even once the account activates an authenticator elsewhere. Fail closed: no proof recorded, no secret.

A session proves the second factor when allauth recorded an "mfa" authentication in it naming the account's
current TOTP authenticator: the code asked at sign-in or at re-authentication, or the code typed to activate
the authenticator in this very session (recorded on the `authenticator_added` signal). Proofs name the
authenticator, so deactivating it (and activating a new one) leaves old sessions unproven. A recovery code
proves enough to manage two-factor authentication (set up a new phone) but shows no secret.

The proof travels on the user object of the request (`SECOND_FACTOR_PROOF`), put there by the middleware
for sessions and by `accounts.authentication` for secret-scoped API tokens; a user object loaded any other
way (a task, a command, a service's own query) carries none.
"""

from allauth.account.internal.flows.login import (
    AUTHENTICATION_METHODS_SESSION_KEY,
    get_authentication_records,
    record_authentication,
)
from allauth.mfa.models import Authenticator
from allauth.mfa.signals import authenticator_added
from django.dispatch import receiver
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode

SECOND_FACTOR_PROOF = "_second_factor_proof"


class StandingProof:
    """A proof that names no authenticator: a secret-scoped API token's (such tokens are created only in a
    session that proved the second factor, and are revoked when the account's authenticator is removed), or a
    command run by the site operator (`load_demo`), who holds the database itself."""

    def __contains__(self, authenticator_id: object) -> bool:
        return True

    def __bool__(self) -> bool:
        return True


TOKEN_PROOF = StandingProof()
OPERATOR_PROOF = StandingProof()


MANAGEMENT_URL_NAMES = ("mfa_deactivate_totp", "mfa_view_recovery_codes", "mfa_generate_recovery_codes",
                        "mfa_download_recovery_codes")


class SessionSecondFactorMiddleware:
    """Puts the authenticator ids this session proved on the request's user (nothing when there is none:
    the user object is then not even loaded), and guards the pages that manage the second factor."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        session = getattr(request, "session", None)
        if session is not None and session.get(AUTHENTICATION_METHODS_SESSION_KEY) and request.user.is_authenticated:
            proven = frozenset(record["id"] for record in get_authentication_records(request, request.user)
                               if record.get("method") == "mfa" and isinstance(record.get("id"), int))
            if proven:
                setattr(request.user, SECOND_FACTOR_PROOF, proven)
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        """For an account with TOTP, the pages that change or reveal its second factor (deactivate, recovery
        codes) ask this session for a code first: otherwise a password alone would deactivate the authenticator
        or read a recovery code, and then prove a second factor it never had."""
        match = getattr(request, "resolver_match", None)
        if (match is None or match.url_name not in MANAGEMENT_URL_NAMES or not request.user.is_authenticated
                or account_authenticators(request.user)[0] is None or proven_for_management(request.user)):
            return None
        return redirect(f"{reverse('mfa_reauthenticate')}?{urlencode({'next': request.get_full_path()})}")


def prove_by_token(user) -> None:
    setattr(user, SECOND_FACTOR_PROOF, TOKEN_PROOF)


def prove_as_operator(user) -> None:
    """For operator commands acting in a user's name; still needs the account's active authenticator."""
    setattr(user, SECOND_FACTOR_PROOF, OPERATOR_PROOF)


MANAGEMENT_URL_NAMES = ("mfa_deactivate_totp", "mfa_view_recovery_codes", "mfa_generate_recovery_codes",
                        "mfa_download_recovery_codes", "mfa_activate_totp")


def account_authenticators(user) -> tuple[int | None, int | None]:
    """(TOTP id, recovery codes id) of the account, or None for each it lacks."""
    kinds = dict(Authenticator.objects.filter(user_id=user.pk).values_list("type", "pk"))
    return kinds.get(Authenticator.Type.TOTP), kinds.get(Authenticator.Type.RECOVERY_CODES)


def second_factor_proven(user, authenticators: tuple[int | None, int | None] | None = None) -> bool:
    """THE rule: the account has an active TOTP authenticator AND the request behind this user object proved it
    (a recovery code does not). `authenticators` is `account_authenticators(user)` when the caller already
    fetched it."""
    if not user or not user.is_authenticated:
        return False
    proven = getattr(user, SECOND_FACTOR_PROOF, None)
    if not proven:
        return False
    totp_id, _ = authenticators if authenticators is not None else account_authenticators(user)
    return totp_id is not None and totp_id in proven


def proven_for_management(user) -> bool:
    """The TOTP code or one of the recovery codes was typed in this session: enough to manage the factor."""
    proven = getattr(user, SECOND_FACTOR_PROOF, None)
    return bool(proven) and any(pk in proven for pk in account_authenticators(user) if pk is not None)


@receiver(authenticator_added, dispatch_uid="accounts.activation_proves_the_second_factor")
def activation_proves_the_second_factor(sender, request, user, authenticator, **kwargs) -> None:
    """Typing the authenticator's code to activate it proves it, in this session, as a sign-in would."""
    if request is not None and authenticator.type == Authenticator.Type.TOTP:
        record_authentication(request, user, "mfa", id=authenticator.pk, type="totp", activated=True)
        setattr(user, SECOND_FACTOR_PROOF, frozenset({authenticator.pk}))
