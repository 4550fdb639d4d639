"""TOTP secrets and recovery-code seeds are stored encrypted (Fernet: AES-128-CBC with an HMAC), so a copy of
the database or a look at the authenticator table does not hand anyone a second factor.

The key comes from MFA_ENCRYPTION_KEY, or is derived from SECRET_KEY when that is not set; rotating the key
that is in use makes every stored secret unreadable (users then set up two-factor authentication again)."""

import base64
import hashlib

from allauth.mfa.adapter import DefaultMFAAdapter
from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings

PREFIX = "fernet:"


def _fernet() -> Fernet:
    material = getattr(settings, "MFA_ENCRYPTION_KEY", "") or settings.SECRET_KEY
    digest = hashlib.sha256(b"champollion-review/mfa-secrets/" + material.encode("utf-8")).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def encrypt_secret(text: str) -> str:
    return PREFIX + _fernet().encrypt(text.encode("utf-8")).decode("ascii")


def decrypt_secret(stored: str) -> str:
    if not stored.startswith(PREFIX):
        raise ValueError("an authenticator secret stored unencrypted; run the migrations")
    try:
        return _fernet().decrypt(stored[len(PREFIX):].encode("ascii")).decode("utf-8")
    except InvalidToken:
        raise ValueError("an authenticator secret that the current MFA_ENCRYPTION_KEY cannot decrypt") from None


class MFAAdapter(DefaultMFAAdapter):
    def encrypt(self, text: str) -> str:
        return encrypt_secret(text)

    def decrypt(self, encrypted_text: str) -> str:
        return decrypt_secret(encrypted_text)
