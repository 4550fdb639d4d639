"""Writes on accounts and API tokens."""

import datetime
import re

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from common.errors import ApplicationError, ErrorKind, NotAllowed
from common.text import hidden_or_directional

from .models import (
    DEFAULT_TOKEN_LIFETIME_DAYS,
    PSEUDONYM_PREFIX,
    PUBLIC_NAME_MAX_LENGTH,
    TOKEN_LIFETIME_DAYS,
    ApiToken,
    TokenScope,
    User,
    hash_token_key,
    public_name_key,
)
from .second_factor import account_authenticators, second_factor_proven

__all__ = ["ApiToken", "PublicNameRefused", "TokenRefused", "create_api_token", "get_or_create_user",
           "revoke_api_token", "revoke_all_api_tokens", "set_public_name"]


class TokenRefused(NotAllowed):
    """A token that may not be created as asked; the message says why and what to do."""


class PublicNameRefused(ApplicationError):
    """A public name that may not be used; the message says why."""


# Anything that reads as an address: a public name is published, an e-mail address never is.
ADDRESS = re.compile(r"@|https?://|www\.", re.IGNORECASE)


@transaction.atomic
def set_public_name(*, actor: User, name: str) -> User:
    """The name published with what the account publishes (run cards published through the harness, whose session
    answers it as the user's name); empty returns to the account's pseudonym. Spaces are collapsed; refused: more
    than PUBLIC_NAME_MAX_LENGTH characters, control or invisible characters, anything that reads as an e-mail or web
    address, "anonymous", a pseudonym's form, or a name another account uses (case aside)."""
    name = " ".join(str(name).split())
    if len(name) > PUBLIC_NAME_MAX_LENGTH:
        raise PublicNameRefused(_("The public name has %(count)s characters; at most %(limit)s are allowed.")
                                % {"count": len(name), "limit": PUBLIC_NAME_MAX_LENGTH}, "public_name")
    if hidden_or_directional(name) or any(0xD800 <= ord(c) <= 0xDFFF for c in name):
        raise PublicNameRefused(_("The public name holds a control or invisible character; write it with visible "
                                  "characters only."), "public_name")
    if ADDRESS.search(name):
        raise PublicNameRefused(_("A public name is published: write a name, not an e-mail or web address."),
                                "public_name")
    if name.lower() == "anonymous" or name.lower().startswith(PSEUDONYM_PREFIX):
        raise PublicNameRefused(_("This name is kept for accounts that chose none; choose another."), "public_name")
    taken = PublicNameRefused(_("Another account uses this public name; choose another."), "public_name",
                              kind=ErrorKind.CONFLICT)
    key = public_name_key(name)
    if key and User.objects.filter(public_name_key=key).exclude(pk=actor.pk).exists():
        raise taken
    try:
        with transaction.atomic():
            User.objects.filter(pk=actor.pk).update(public_name=name, public_name_key=key)
    except IntegrityError:  # the same name chosen by another account at the same moment
        raise taken from None
    actor.public_name, actor.public_name_key = name, key
    return actor


@transaction.atomic
def create_api_token(*, actor: User, name: str = "", scope: str = TokenScope.PUBLISH,
                     lifetime_days: int = DEFAULT_TOKEN_LIFETIME_DAYS, operator: bool = False) -> tuple[ApiToken, str]:
    """Create a token and return it with its clear key, which is never stored and cannot be shown again.

    `actor` is the request's user object, carrying what its session proved. A token is as strong as the
    session that makes it: an account with two-factor authentication creates tokens only in a session that
    typed the code, and only such a session may create a `secret` token. `operator` is a site operator at
    the command line (`create_api_token`), who may not create `secret` tokens at all."""
    if scope not in TokenScope.values:
        raise TokenRefused(_("unknown scope %(scope)s; expected one of: %(scopes)s")
                           % {"scope": repr(str(scope)[:20]), "scopes": ", ".join(TokenScope.values)})
    if lifetime_days not in TOKEN_LIFETIME_DAYS:
        raise TokenRefused(_("lifetime must be one of %(choices)s days")
                           % {"choices": ", ".join(map(str, TOKEN_LIFETIME_DAYS))})
    proven = second_factor_proven(actor)
    if scope == TokenScope.SECRET and (operator or not proven):
        raise TokenRefused(_("a token that reads secret segments can only be created in a session confirmed with "
                             "your authenticator code (not from the command line)") if operator else
                           _("a token that reads secret segments can only be created in a session confirmed with "
                             "your authenticator code"))
    if not operator and not proven and account_authenticators(actor)[0] is not None:
        raise TokenRefused(_("this session has not been confirmed with your authenticator code; confirm it, then "
                             "create the token"))
    key = ApiToken.generate_key()
    now = timezone.now()
    token = ApiToken.objects.create(user=actor, name=name[:100], key_hash=hash_token_key(key), prefix=key[:8],
                                    scope=scope, created_at=now,
                                    expires_at=now + datetime.timedelta(days=lifetime_days))
    return token, key


@transaction.atomic
def revoke_api_token(*, actor: User, token_id: int) -> ApiToken:
    token = ApiToken.objects.select_for_update().get(pk=token_id, user=actor)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.revoked_reason = "revoked by its owner"
        token.save(update_fields=["revoked_at", "revoked_reason"])
    return token


@transaction.atomic
def revoke_all_api_tokens(user_id: int, reason: str) -> int:
    """Revoke every active token of the account: its password changed or its second factor went away, so
    nothing made under the old credentials may outlive them."""
    return ApiToken.objects.filter(user_id=user_id, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), revoked_reason=reason[:200])


@transaction.atomic
def get_or_create_user(email: str, password: str | None = None) -> tuple[User, bool]:
    """Find a user by e-mail (case-insensitively) or create one with a verified primary address."""
    from allauth.account.models import EmailAddress

    email = User.objects.normalize_email(email.strip())
    user = User.objects.filter(email__iexact=email).first()
    created = user is None
    if user is None:
        user = User.objects.create_user(email=email, password=password)
    elif password:
        user.set_password(password)
        user.save(update_fields=["password"])
    EmailAddress.objects.update_or_create(
        user=user, email__iexact=user.email, defaults={"email": user.email, "verified": True, "primary": True}
    )
    return user, created


@transaction.atomic
def anonymise_user(user: User) -> None:
    """Take the person out of the account for good: no address, no name, no way to sign in, no token, no second
    factor. The row stays, so that what the account did (ratings, decisions, the audit log) keeps its author as
    "a deleted account"."""
    from allauth.account.models import EmailAddress
    from allauth.mfa.models import Authenticator

    revoke_all_api_tokens(user.pk, "account deleted")
    EmailAddress.objects.filter(user=user).delete()
    Authenticator.objects.filter(user=user).delete()
    user.email = f"deleted-{user.pk}@deleted.invalid"
    user.first_name = user.last_name = user.interface_language = user.public_name = user.public_name_key = ""
    user.is_active = user.is_staff = user.is_superuser = False
    user.set_unusable_password()
    user.save()
