"""Production mode (DJANGO_ENV=production): Django's deployment checks pass, and a missing SECRET_KEY stops start-up."""

import os
import runpy
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_FILE = ROOT / "config" / "settings.py"
# Variables the settings read that would change what production mode looks like.
SETTINGS_VARIABLES = (
    "DJANGO_ENV", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "CSRF_TRUSTED_ORIGINS", "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS", "TRUSTED_PROXY_COUNT", "DATABASE_URL", "REDIS_CACHE_URL", "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND", "EMAIL_BACKEND", "LOG_LEVEL", "MFA_ENCRYPTION_KEY", "MFA_ENCRYPTION_KEY_FALLBACKS",
)


def production_env(**overrides) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in SETTINGS_VARIABLES}
    env.update(
        DJANGO_ENV="production",
        DJANGO_SETTINGS_MODULE="config.settings",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="review.example.org",
    )
    env.update(overrides)
    return {name: value for name, value in env.items() if value is not None}


def run(args, env):
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow  # a Python process of its own loads every app in production mode (1.5 s)
def test_deploy_checks_pass_without_warnings():
    # Production shares its cache (throttles, rate limits) in Redis; without it the check warns (test_limits.py).
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                 production_env(REDIS_CACHE_URL="redis://127.0.0.1:6379/1", MFA_ENCRYPTION_KEY=secrets.token_hex(32)))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


@pytest.mark.slow  # a Python process of its own reads the production settings (1 s)
def test_production_refuses_to_start_without_secret_key():
    # Importing the WSGI module is what gunicorn does at start-up.
    result = run(["-c", "import config.wsgi"], production_env(SECRET_KEY=None))
    assert result.returncode != 0
    assert "django.core.exceptions.ImproperlyConfigured: SECRET_KEY must be set when DJANGO_ENV=production." in (
        result.stderr
    )


@pytest.mark.slow  # a Python process of its own loads the WSGI application (1.5 s)
def test_a_web_worker_keeps_what_it_loaded_out_of_full_collections():
    """gunicorn imports the WSGI module in each worker: what is loaded by then is frozen (gc.freeze)."""
    result = run(["-c", "import gc, config.wsgi; print(gc.get_freeze_count())"],
                 production_env(SECRET_KEY="x" * 50, REDIS_CACHE_URL="redis://127.0.0.1:6379/1"))
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.strip()) > 10_000


def load_settings(monkeypatch, **env) -> dict:
    """Evaluate config/settings.py under `env` without touching the settings this test run uses."""
    for name in SETTINGS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS_FILE))


def test_production_settings_in_process(monkeypatch):
    for secret_key in ({}, {"SECRET_KEY": ""}):
        with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set when DJANGO_ENV=production"):
            load_settings(monkeypatch, DJANGO_ENV="production", **secret_key)

    production = load_settings(
        monkeypatch, DJANGO_ENV="production", SECRET_KEY="x" * 50, REDIS_CACHE_URL="redis://127.0.0.1:6379/1"
    )
    assert production["DEBUG"] is False
    assert production["ALLOWED_HOSTS"] == []
    assert production["MIDDLEWARE"][:2] == [
        "django.middleware.security.SecurityMiddleware",
        "whitenoise.middleware.WhiteNoiseMiddleware",
    ]
    assert production["STORAGES"]["staticfiles"]["BACKEND"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    assert production["CACHES"]["default"] == {
        "BACKEND": "common.cache.SharedClientRedisCache",  # Django's RedisCache, one client per pool
        "LOCATION": "redis://127.0.0.1:6379/1",
    }
    assert production["SESSION_ENGINE"] == "django.contrib.sessions.backends.cached_db"
    assert production["LOGGING"]["handlers"]["console"]["stream"] == "ext://sys.stdout"
    assert production["CELERY_WORKER_HIJACK_ROOT_LOGGER"] is False
    assert production["ALLAUTH_TRUSTED_PROXY_COUNT"] == 1  # rate limits by client, not by proxy address

    laptop = load_settings(monkeypatch)
    assert laptop["DEBUG"] is True
    assert "whitenoise.middleware.WhiteNoiseMiddleware" not in laptop["MIDDLEWARE"]
    assert "stream" not in laptop["LOGGING"]["handlers"]["console"]
    assert laptop["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert "ALLAUTH_TRUSTED_PROXY_COUNT" not in laptop
