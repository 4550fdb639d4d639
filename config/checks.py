"""System checks on settings that `manage.py check --deploy` cannot judge by itself."""

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register


@register(Tags.caches)
def shared_cache_in_production(app_configs, **kwargs) -> list[CheckMessage]:
    """API throttles, allauth's login rate limits and used TOTP codes are counted in the cache: in production
    (several web processes) the per-process memory cache multiplies every limit by the number of processes."""
    if not settings.PRODUCTION or settings.REDIS_CACHE_URL:
        return []
    return [Warning(
        "DJANGO_ENV=production without REDIS_CACHE_URL: the cache lives in each process's memory, so each web "
        "process counts API throttling, login rate limits and used two-factor codes on its own.",
        hint="Set REDIS_CACHE_URL (e.g. redis://redis.internal:6379/1) to share them between processes.",
        id="champollion.W001",
    )]


@register(Tags.security, deploy=True)
def mfa_encryption_key_in_production(app_configs, **kwargs) -> list[CheckMessage]:
    """TOTP secrets are encrypted with a key derived from SECRET_KEY unless MFA_ENCRYPTION_KEY is set: rotating
    SECRET_KEY without listing the old one in SECRET_KEY_FALLBACKS would lock every two-factor user out."""
    if not settings.PRODUCTION or settings.MFA_ENCRYPTION_KEY:
        return []
    return [Warning(
        "DJANGO_ENV=production without MFA_ENCRYPTION_KEY: two-factor secrets are encrypted with a key derived from "
        "SECRET_KEY, so rotating SECRET_KEY makes them unreadable unless the old key stays in SECRET_KEY_FALLBACKS.",
        hint="Set MFA_ENCRYPTION_KEY to a long random value and keep it (MFA_ENCRYPTION_KEY_FALLBACKS for old ones).",
        id="champollion.W002",
    )]
