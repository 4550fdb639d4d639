"""`Authorization: Token <key>` authentication against hashed, scoped, expiring personal API tokens."""

from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import ApiToken, TokenScope, hash_token_key
from .second_factor import prove_by_token

API_TOKEN = "_api_token"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def token_of(user) -> ApiToken | None:
    """The API token the request behind `user` authenticated with (None for sessions), for the audit log."""
    return getattr(user, API_TOKEN, None)


class ApiTokenAuthentication(authentication.TokenAuthentication):
    keyword = "Token"

    def authenticate(self, request):
        result = super().authenticate(request)
        if result is not None and result[1].scope == TokenScope.READ and request.method not in SAFE_METHODS:
            raise exceptions.PermissionDenied("This token is read-only (scope 'read'); create a 'publish' token "
                                              "under My account to send data.")
        return result

    def authenticate_credentials(self, key):
        token = (
            ApiToken.objects.select_related("user")
            .filter(key_hash=hash_token_key(key), revoked_at__isnull=True)
            .first()
        )
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        now = timezone.now()
        if token.expires_at <= now:
            raise exceptions.AuthenticationFailed(
                f"Token expired on {token.expires_at:%Y-%m-%d}; create a new one under My account.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        user = token.user
        setattr(user, API_TOKEN, token)
        if token.scope == TokenScope.SECRET:
            prove_by_token(user)
        return user, token
