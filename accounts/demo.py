"""Demo accounts' second factor (`manage.py load_demo`): a published TOTP key per demo role, for local use only."""

from urllib.parse import quote, urlencode

from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP
from allauth.mfa.utils import decrypt
from django.conf import settings


def otpauth_uri(email: str, secret: str) -> str:
    """What a QR code for the key holds; most authenticator apps also accept it pasted as a link."""
    issuer = settings.SITE_NAME
    query = urlencode({"secret": secret, "issuer": issuer}, quote_via=quote)
    return f"otpauth://totp/{quote(f'{issuer}:{email}')}?{query}"


def ensure_two_factor(user, secret: str) -> tuple[str, list[str]]:
    """The user's TOTP key (the demo key unless they already have an authenticator) and unused recovery
    codes, created when missing."""
    existing = Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).first()
    if existing is None:
        TOTP.activate(user, secret)
    else:
        secret = decrypt(existing.data["secret"])
    return secret, RecoveryCodes.activate(user).get_unused_codes()
