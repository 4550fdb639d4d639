"""TOTP secrets and recovery-code seeds are stored encrypted (Fernet: AES-128-CBC with an HMAC), so a copy of
the database or a look at the authenticator table does not hand anyone a second factor.

The key comes from MFA_ENCRYPTION_KEY, or is derived from SECRET_KEY when that is not set. Secrets encrypted
under an earlier key still decrypt when that key is listed in MFA_ENCRYPTION_KEY_FALLBACKS (or, for a
derived key, when the old SECRET_KEY is in SECRET_KEY_FALLBACKS); new ones use the current key."""

import base64
import hashlib

from allauth.mfa.adapter import DefaultMFAAdapter
from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings

PREFIX = "fernet:"


def _fernet_for(material: str) -> Fernet:
    digest = hashlib.sha256(b"champollion-review/mfa-secrets/" + material.encode("utf-8")).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def _fernet() -> MultiFernet:
    """The current key first (it encrypts), then every earlier one (they still decrypt)."""
    if settings.MFA_ENCRYPTION_KEY:
        materials = [settings.MFA_ENCRYPTION_KEY, *settings.MFA_ENCRYPTION_KEY_FALLBACKS]
    else:
        materials = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return MultiFernet([_fernet_for(material) for material in materials])


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
