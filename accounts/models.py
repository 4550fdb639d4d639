"""Users log in by e-mail; scripts authenticate with personal API tokens."""

import hashlib
import secrets
import unicodedata

from django.contrib.auth.models import AbstractUser, BaseUserManager
from django.db import models
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy


class UserManager(BaseUserManager):
    use_in_migrations = True

    def _create_user(self, email: str, password: str | None, **extra):
        if not email:
            raise ValueError("An e-mail address is required.")
        user = self.model(email=self.normalize_email(email), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **extra):
        extra.setdefault("is_staff", False)
        extra.setdefault("is_superuser", False)
        return self._create_user(email, password, **extra)

    def create_superuser(self, email: str, password: str | None = None, **extra):
        extra["is_staff"] = True
        extra["is_superuser"] = True
        return self._create_user(email, password, **extra)


PUBLIC_NAME_MAX_LENGTH = 60
PSEUDONYM_PREFIX = "contributor-"


class User(AbstractUser):
    """An account identified by its e-mail address; site staff (is_staff) are the maintainers."""

    username = None
    email = models.EmailField("e-mail address", unique=True)
    interface_language = models.CharField(
        max_length=35, blank=True, help_text="The interface language this user chose; empty follows the browser."
    )
    public_name = models.CharField(
        max_length=PUBLIC_NAME_MAX_LENGTH, blank=True,
        help_text="The name published with what the account publishes through the harness; empty: its pseudonym.")
    public_name_key = models.CharField(
        max_length=PUBLIC_NAME_MAX_LENGTH * 3, blank=True, editable=False,
        help_text="The public name case-folded (public_name_key): what no other account's may equal.")

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    objects = UserManager()

    class Meta(AbstractUser.Meta):
        constraints = [
            models.UniqueConstraint(fields=["public_name_key"], condition=~models.Q(public_name_key=""),
                                    name="user_public_name_key_unique"),
        ]

    def __str__(self) -> str:
        return self.email

    @property
    def public_label(self) -> str:
        """How the public may name the account: the public name it chose, else its pseudonym — never its e-mail
        address."""
        return self.public_name or pseudonym(self.pk)


def public_name_key(name: str) -> str:
    """`name` as public names are compared, case aside: Unicode's canonical caseless form (NFD, case folding), kept
    composed (NFC). Folded here, not by the database: SQLite's LOWER() folds ASCII letters only, so "Kîsik" and
    "KÎSIK" would be two names there. Folding can write a character as up to three (ß → ss, ﬃ → ffi)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFD", name).casefold())


def pseudonym(pk: int | None) -> str:
    """A stable name for an account that chose none, from which nothing about it can be learnt (keyed with
    SECRET_KEY)."""
    return PSEUDONYM_PREFIX + salted_hmac("accounts.User.pseudonym", str(pk)).hexdigest()[:10]


def hash_token_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


class TokenScope(models.TextChoices):
    """What a personal API token may do, chosen at creation. Only `secret` tokens read secret segments, and
    they are created only in a session that proved the second factor."""

    READ = "read", "Read public data only"
    PUBLISH = "publish", "Read public data and publish run cards and methods"
    SECRET = "secret", "Also read the secret segments your roles show (needs two-factor authentication)"


# The scopes as pages describe them, in the reader's language. TokenScope keeps its English labels: they are
# recorded in migrations, which translating them would churn.
TOKEN_SCOPE_LABELS = {
    TokenScope.READ: gettext_lazy("Read public data only"),
    TokenScope.PUBLISH: gettext_lazy("Read public data and publish run cards and methods"),
    TokenScope.SECRET: gettext_lazy("Also read the secret segments your roles show (needs two-factor authentication)"),
}

TOKEN_LIFETIME_DAYS = (30, 90, 365)
DEFAULT_TOKEN_LIFETIME_DAYS = 90


class ApiToken(models.Model):
    """A personal API token. Only its SHA-256 is stored: the key is shown once, at creation."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, blank=True)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8, help_text="First characters of the key, to recognise it.")
    scope = models.CharField(max_length=10, choices=TokenScope.choices, default=TokenScope.PUBLISH)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=models.Q(scope__in=TokenScope.values), name="api_token_scope_known"),
            models.CheckConstraint(condition=models.Q(expires_at__gt=models.F("created_at")),
                                   name="api_token_expires_after_creation"),
        ]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()

    @property
    def scope_label(self) -> str:
        """What the token may do, in the reader's language."""
        return str(TOKEN_SCOPE_LABELS.get(self.scope, self.scope))

    @property
    def label(self) -> str:
        """How the audit log names the token: its name and the first characters of its key."""
        return f"{self.name or 'unnamed token'} ({self.prefix}…)"

    @staticmethod
    def generate_key() -> str:
        return secrets.token_hex(20)
