"""`Authorization: Token <key>` authentication against hashed personal API tokens."""

from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import ApiToken, hash_token_key


class ApiTokenAuthentication(authentication.TokenAuthentication):
    keyword = "Token"

    def authenticate_credentials(self, key):
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=hash_token_key(key), revoked_at__isnull=True)
            .first()
        )
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
        return token.user, token
