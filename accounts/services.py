"""Writes on accounts and API tokens."""

from django.db import transaction
from django.utils import timezone

from .models import ApiToken, User, hash_token_key

__all__ = ["ApiToken", "create_api_token", "get_or_create_user", "revoke_api_token"]


@transaction.atomic
def create_api_token(user: User, name: str = "") -> tuple[ApiToken, str]:
    """Create a token and return it with its clear key, which is never stored and cannot be shown again."""
    key = ApiToken.generate_key()
    token = ApiToken.objects.create(user=user, name=name[:100], key_hash=hash_token_key(key), prefix=key[:8])
    return token, key


@transaction.atomic
def revoke_api_token(user: User, token_id: int) -> ApiToken:
    token = ApiToken.objects.select_for_update().get(pk=token_id, user=user)
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


@transaction.atomic
def get_or_create_user(email: str, password: str | None = None) -> tuple[User, bool]:
    """Find a user by e-mail (case-insensitively) or create one with a verified primary address."""
    from allauth.account.models import EmailAddress

    email = User.objects.normalize_email(email.strip())
    user = User.objects.filter(email__iexact=email).first()
    created = user is None
    if created:
        user = User.objects.create_user(email=email, password=password)
    elif password:
        user.set_password(password)
        user.save(update_fields=["password"])
    EmailAddress.objects.update_or_create(
        user=user, email__iexact=user.email, defaults={"email": user.email, "verified": True, "primary": True}
    )
    return user, created
