"""Settings for Champollion Review, read from the environment.

Laptop defaults need nothing set: a SQLite file, eager Celery tasks, console e-mail.
`DJANGO_ENV=production` turns on the hardening that `manage.py check --deploy` asks for.
"""

import os
from pathlib import Path

# NumPy's OpenBLAS starts a thread per core for every matrix product, however small. Web and task processes are
# already one or two per core, so those threads only contend: the gate's bootstrap ran several times slower with
# them under load. Set before NumPy is first imported (an operator's own value wins).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DJANGO_ENV = os.environ.get("DJANGO_ENV", "development")
PRODUCTION = DJANGO_ENV == "production"

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if PRODUCTION:
        raise ImproperlyConfigured("SECRET_KEY must be set when DJANGO_ENV=production.")
    SECRET_KEY = "insecure-local-development-key-never-use-in-production"

DEBUG = env_bool("DEBUG", not PRODUCTION)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "" if PRODUCTION else "localhost,127.0.0.1,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "import_export",
    # The layers, bottom to top (docs/architecture.md; `lint-imports` enforces them).
    "common",
    "accounts",
    "organizations",
    "governance",  # k-of-n decisions; also the migration history of tables organizations and submissions own
    "languages",
    "corpus",
    "speakers",
    "leaderboard",
    "ledger",
    "review",
    "elicitation",  # a sibling of review: neither imports the other
    "submissions",
    "config",  # the site itself: URLs, settings, system checks, the demo loader
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "languages.activation.InterfaceLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "config.security.ContentSecurityPolicyMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "accounts.second_factor.SessionSecondFactorMiddleware",
    "organizations.audit.SecretResponseMiddleware",
]

# No inline script or style anywhere: every page's script is a static file (docs/deploy.md).
CONTENT_SECURITY_POLICY = os.environ.get("CONTENT_SECURITY_POLICY", "; ".join([
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
    "connect-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'self'", "frame-ancestors 'none'",
]))
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "organizations.context_processors.secret_access",
                "languages.context_processors.interface_language",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DATABASE_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
# The rating's reads are prepared statements on PostgreSQL (common.compiled): off behind a connection pooler in
# transaction mode that cannot keep them (PgBouncer before 1.21).
PREPARED_HOT_PATH = env_bool("DATABASE_PREPARED_HOT_PATH", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with a health check of a reused connection that costs no round trip (common/postgresql).
    DATABASES["default"]["ENGINE"] = "common.postgresql"
    # Opt-in: parameters bound by the server, and a statement run five times on a connection prepared, so that
    # PostgreSQL reuses its plan (the rating page's joins cost more to plan than to run). Off by default: a
    # statement then carries at most 65,535 parameters, which an ORM delete of a 100,000-entry version exceeds.
    if env_bool("DATABASE_PREPARED_STATEMENTS", False):
        DATABASES["default"].setdefault("OPTIONS", {}).update(server_side_binding=True, prepare_threshold=5)
    elif PREPARED_HOT_PATH:
        # psycopg prepares nothing when the threshold is None (Django's default); with a threshold never reached,
        # only the statements that ask for it are prepared (common.compiled), the ORM's own never.
        DATABASES["default"].setdefault("OPTIONS", {}).update(prepare_threshold=2**31 - 1)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
# Django's and allauth's backends, reading the user of each request through a prepared query (accounts/backends.py).
AUTHENTICATION_BACKENDS = [
    "accounts.backends.ModelBackend",
    "accounts.backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# The interface languages shipped with the code, named in their own language; a community adds its own in the app
# (docs/i18n.md). French is written by hand, never machine-translated.
LANGUAGES = [("en", "English"), ("fr-ca", "Français (Canada)")]
# The project's catalog first, then its corrections of django-allauth's French for Canada (locale_allauth/: the
# account pages' wording and typography; makemessages leaves it alone, compilemessages compiles it).
LOCALE_PATHS = [BASE_DIR / "locale", BASE_DIR / "locale_allauth"]
LANGUAGE_COOKIE_NAME = "champollion_language"
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
MEDIA_ROOT = BASE_DIR / "media"
MEDIA_URL = "/media/"
# Uploaded consent documents (MEDIA_ROOT/consent/) are served only by the governance view, never under MEDIA_URL.
CONSENT_DOCUMENT_MAX_BYTES = int(os.environ.get("CONSENT_DOCUMENT_MAX_BYTES", str(10 * 1024 * 1024)))

# Caches back allauth's login rate limits; a shared Redis cache keeps them consistent across web processes.
REDIS_CACHE_URL = os.environ.get("REDIS_CACHE_URL", "")
CACHES = {
    "default": (
        {"BACKEND": "common.cache.SharedClientRedisCache", "LOCATION": REDIS_CACHE_URL}
        if REDIS_CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    ),
    # `{% cache %}` fragments (the rating page's parts that every item of a campaign shares, every page's header), in
    # each process's own memory: read on every page shown, they cost no round trip; their keys hold all they show.
    "template_fragments": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                           "LOCATION": "template-fragments", "TIMEOUT": 600, "OPTIONS": {"MAX_ENTRIES": 2000}},
}

# Sessions are read from the cache (Redis, shared, in production) and written through to the database: a signed-in
# request costs no session query, and a cache that is emptied or restarted signs nobody out.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# Accounts: e-mail only, verified, rate limited.
SITE_NAME = "Champollion Review"
SITE_BASE_URL = os.environ.get("SITE_BASE_URL", "http://localhost:8000")
LOGIN_REDIRECT_URL = "accounts:profile"
LOGIN_URL = "account_login"
ACCOUNT_ADAPTER = "review.adapter.AccountAdapter"
ACCOUNT_USER_MODEL_USERNAME_FIELD = None
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_RATE_LIMITS = {
    "login": "30/m/ip",
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/m/ip",
    "reset_password": "20/m/ip,5/m/key",
    "confirm_email": "1/3m/key",
}
ACCOUNT_EMAIL_SUBJECT_PREFIX = "[Champollion Review] "
# Tell the account holder by e-mail when its password, e-mail address or two-factor authentication changes: a
# password used by someone else to swap the authenticator does not go unnoticed.
ACCOUNT_EMAIL_NOTIFICATIONS = True
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
# TOTP secrets are encrypted at rest (accounts/mfa_adapter.py) with this key, or one derived from SECRET_KEY.
MFA_ADAPTER = "accounts.mfa_adapter.MFAAdapter"
MFA_FORMS = {"authenticate": "accounts.forms.AuthenticateForm", "reauthenticate": "accounts.forms.ReauthenticateForm"}
MFA_ENCRYPTION_KEY = os.environ.get("MFA_ENCRYPTION_KEY", "")
MFA_ENCRYPTION_KEY_FALLBACKS = env_list("MFA_ENCRYPTION_KEY_FALLBACKS", "")

EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Champollion Review <noreply@localhost>")

# REST API.
REST_FRAMEWORK = {
    # A refusal a view did not answer itself: the status its kind maps to (common.errors).
    "EXCEPTION_HANDLER": "common.api.exception_handler",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_PARSER_CLASSES": [
        "config.parsers.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # Counted in the cache (shared only with REDIS_CACHE_URL); a 429 answer carries Retry-After.
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "common.limits.SignedInRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_THROTTLE_ANON", "120/min"),
        "user": os.environ.get("API_THROTTLE_USER", "600/min"),
        # POST /api/v1/run-cards/ per user (common.limits.WriteRateThrottle), on top of "user".
        "run_card_submit": os.environ.get("API_THROTTLE_RUN_CARD_SUBMIT", "5/min"),
    },
    # Behind the proxy, anonymous clients are told apart by X-Forwarded-For, as allauth's rate limits are.
    "NUM_PROXIES": int(os.environ.get("TRUSTED_PROXY_COUNT", "1")) if PRODUCTION else None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Champollion Review API",
    "DESCRIPTION": (
        "Corpora, dataset versions and entries of community-stewarded MT evaluation datasets. "
        "Secret segments (gold_standard, held_out) are returned only to governance staff and "
        "curators of the steward organization. Authenticate scripts with `Authorization: Token <key>`."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Celery: with no broker configured, tasks run eagerly in-process; the in-memory transport named with its host
# stands in for a broker, so nothing warns that a hostname is missing or tries to reach one on localhost.
CELERY_TASK_ALWAYS_EAGER = not os.environ.get("CELERY_BROKER_URL")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ACKS_LATE = True
# A task whose worker process dies mid-run goes back on the queue (its transaction rolled back with it);
# every task is idempotent, so running it again finishes the work once.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# Redis hands an unacknowledged task (its whole worker gone) to another worker after this many seconds.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "3600"))}
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
# Celery beat (`make beat`): review deadline reminders and the campaign figures list pages show.
CELERY_BEAT_SCHEDULE = {
    "review-deadline-reminders": {"task": "review.tasks.send_deadline_reminders_task", "schedule": 15 * 60},
    "review-campaign-summaries": {"task": "review.tasks.refresh_open_campaign_summaries_task", "schedule": 5 * 60},
    "governance-settle-due-decisions": {"task": "governance.tasks.settle_due_decisions", "schedule": 5 * 60},
    "organizations-seal-secret-views": {"task": "organizations.tasks.seal_secret_views_task", "schedule": 10},
    "corpus-sync-local-contexts": {"task": "corpus.tasks.sync_hub_projects", "schedule": 6 * 60 * 60},
}

# Local Contexts Hub (docs/labels.md): without a key the site works offline on imported project files; with one,
# the worker keeps imported projects' labels in step with the Hub (API v2).
LOCAL_CONTEXTS_API_KEY = os.environ.get("LOCAL_CONTEXTS_API_KEY", "")
LOCAL_CONTEXTS_API_URL = os.environ.get("LOCAL_CONTEXTS_API_URL", "https://localcontextshub.org/api/v2/")

# Corpus import limits.
CORPUS_MAX_UPLOAD_BYTES = int(os.environ.get("CORPUS_MAX_UPLOAD_BYTES", str(200 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
}

if PRODUCTION:
    # WhiteNoise serves the collected static files right after SecurityMiddleware.
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(60 * 60 * 24 * 365)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https"
    # Behind the proxy REMOTE_ADDR is the proxy's, so allauth's per-IP rate limits take the client address from
    # X-Forwarded-For, the TRUSTED_PROXY_COUNT-th entry from the right (the one the nearest proxy appended).
    ALLAUTH_TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "1"))
    REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"] = ["rest_framework.renderers.JSONRenderer"]
    # An unreachable mail server fails the send (and the task retries) instead of hanging a worker.
    EMAIL_TIMEOUT = 30
    # One log stream on stdout, with timestamps, for web, worker and beat alike.
    LOGGING["formatters"] = {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s"}}
    LOGGING["handlers"]["console"].update(stream="ext://sys.stdout", formatter="plain")
    # Celery keeps the handler above instead of installing its own (which writes to stderr).
    CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# Run cards: bodies up to this size; cards with more results than this are verified by a Celery task.
# A refusal by the secret-text scan tells a submitter who may not read the secrets that a string of theirs holds
# one: after this many in 24 hours, their cards are refused unscanned until the oldest is a day old.
RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY = int(os.environ.get("RUN_CARD_SECRET_TEXT_REFUSALS_PER_DAY", "3"))
# 32 MiB is about 35,000 results as the harness writes them (a 10,000-result card is 9.3 MiB and 230,000 JSON values);
# values are counted before json.loads builds them, so that a body of tiny values cannot cost a worker twenty times
# its size (leaderboard/card_json.py, docs/run-cards.md "Limits").
RUN_CARD_MAX_BYTES = int(os.environ.get("RUN_CARD_MAX_BYTES", str(32 * 1024 * 1024)))
RUN_CARD_MAX_VALUES = int(os.environ.get("RUN_CARD_MAX_VALUES", "1000000"))
RUN_CARD_INLINE_MAX_RESULTS = int(os.environ.get("RUN_CARD_INLINE_MAX_RESULTS", "2000"))
# The upstream harness's doors under /supabase/ (docs/run-cards.md): its anonymous lane is closed unless an
# operator opens it; requests per account (or address, for the anonymous lane and sign-in) and window.
HARNESS_ANONYMOUS_INTAKE = env_bool("HARNESS_ANONYMOUS_INTAKE", False)
HARNESS_RATES = {
    "card": os.environ.get("HARNESS_RATE_CARD", "5/min"),
    "read": os.environ.get("HARNESS_RATE_READ", "120/min"),
    "entries": os.environ.get("HARNESS_RATE_ENTRIES", "600/min"),
    "anonymous": os.environ.get("HARNESS_RATE_ANONYMOUS", "10/hour"),
    "token": os.environ.get("HARNESS_RATE_TOKEN", "30/min"),
}

# Method submissions (docs/submissions.md): the package's size, what it may expand to, and its member count.
SUBMISSION_MAX_BYTES = int(os.environ.get("SUBMISSION_MAX_BYTES", str(50 * 1024 * 1024)))
SUBMISSION_MAX_UNCOMPRESSED_BYTES = int(os.environ.get("SUBMISSION_MAX_UNCOMPRESSED_BYTES", str(200 * 1024 * 1024)))
SUBMISSION_MAX_MEMBERS = int(os.environ.get("SUBMISSION_MAX_MEMBERS", "2000"))
