"""Settings, read from environment variables with working defaults.

Two ways to run, same code (docs/playground.md):
- embedded (default): SQLite, in-memory channel layer, in-memory Celery broker with the worker
  running inside the web process. Nothing to install.
- production: ``DATABASE_URL=postgres://...`` and ``REDIS_URL=redis://...`` select PostgreSQL,
  the Redis channel layer and the Redis broker; web, scheduler worker and binding worker run as
  separate processes (see Procfile).
"""

import os
from pathlib import Path
from urllib.parse import urlparse

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"
"""What the playground writes beside its code: the SQLite database, the embedded mode's key,
static files, recordings of clusters (``recordings/``)."""


def envbool(name: str, default: str = "False") -> bool:
    return os.getenv(name, default).lower() in ("1", "true", "yes", "on")


def envint(name: str, default: int) -> int:
    return int(os.getenv(name, str(default)))


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.getenv(name, default).split(",") if item.strip()]


def database_from_url(url: str) -> dict:
    """``postgres://user:pass@host:port/name`` or ``sqlite:///path`` as a Django DATABASES entry."""
    parsed = urlparse(url)
    if parsed.scheme == "sqlite":
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": parsed.path or ":memory:"}
    if parsed.scheme in ("postgres", "postgresql"):
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": parsed.path.lstrip("/"),
            "USER": parsed.username or "",
            "PASSWORD": parsed.password or "",
            "HOST": parsed.hostname or "",
            "PORT": str(parsed.port or ""),
            "CONN_MAX_AGE": envint("DB_CONN_MAX_AGE", 60),
        }
    raise ValueError(f"DATABASE_URL: unsupported scheme {parsed.scheme!r} (postgres or sqlite)")


SECRET_KEY = os.getenv("SECRET_KEY", "dev-only-insecure-key-change-me")
DEBUG = envbool("DEBUG", "True")
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = envlist(
    "CSRF_TRUSTED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000"
)

# Served over HTTPS (PLAYGROUND_HTTPS=true): plain HTTP is redirected, browsers are told to
# come back over HTTPS only (HSTS), and the session and CSRF cookies travel over HTTPS only;
# `manage.py check --deploy` is then clean. Behind a proxy that terminates TLS, also set
# PLAYGROUND_TRUST_X_FORWARDED_PROTO=true so its X-Forwarded-Proto says which requests came
# over HTTPS (only behind a proxy that sets the header on every request: clients could forge
# it otherwise). The probes stay on plain HTTP (kubelet sends them so): docs/operations.md.
HTTPS = envbool("PLAYGROUND_HTTPS")
if HTTPS:
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^(healthz|livez|readyz)(/|$)"]
    SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", "True")
    SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", "True")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
if envbool("PLAYGROUND_TRUST_X_FORWARDED_PROTO"):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "playground.workspaces",
    "playground.scheduling",
    "playground.live",
    "playground.front",
    "playground.clusters",
    "playground.compare",
    "playground.health",
    "playground.metrics",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # /healthz, /livez, /readyz: answered before ALLOWED_HOSTS is checked (kubelet's probes
    # name the pod's IP as their host), without a login (playground.health.middleware).
    "playground.health.middleware.HealthMiddleware",
    # Serves static/ from the web process (daphne has no static file server); in production
    # from STATIC_ROOT after `manage.py collectstatic`, with DEBUG from the source folders.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "playground.front.too_large.RequestTooLargeMiddleware",
]

MAX_MANIFEST_BYTES = 20 * 1024 * 1024
"""The largest manifests text a form takes, pasted or uploaded (an import, the object editor)."""
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_MANIFEST_BYTES + 1024 * 1024
"""Django refuses larger form fields (2.5 MB by default, a 5 MB paste was an error page);
the extra MiB is for the form's other fields. Beyond, ``too_large`` answers in words."""

ROOT_URLCONF = "playground.urls"
WSGI_APPLICATION = "playground.wsgi.application"
ASGI_APPLICATION = "playground.asgi.application"

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
            ],
        },
    },
]

DATABASE_URL = os.getenv("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": database_from_url(DATABASE_URL)}
else:
    VAR_DIR.mkdir(exist_ok=True)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.getenv("SQLITE_PATH", str(VAR_DIR / "playground.sqlite3")),
            # IMMEDIATE: a transaction takes the write lock when it begins, so two writers
            # queue for it instead of failing with "database is locked" when both upgrade.
            # WAL: readers never wait for the writer nor it for them, and a commit appends to
            # the log without syncing the disk (NORMAL: a power cut may lose the last commits,
            # never the file). The worker threads, the mirror and the pages all write at once;
            # with the rollback journal each commit synced the disk twice, all under one lock.
            "OPTIONS": {
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
            },
            # The test database is a file too (Django's default, ":memory:", is private to
            # one connection), so worker threads and a server process under test can share it.
            # One per test process: runs side by side never collide.
            "TEST": {"NAME": str(VAR_DIR / f"test-{os.getpid()}.sqlite3")},
        }
    }

REDIS_URL = os.getenv("REDIS_URL", "")
# Prepended to every Redis key (channel layer and broker), so several playgrounds, or test runs,
# can share one Redis without seeing each other's messages.
REDIS_KEY_PREFIX = os.getenv("REDIS_KEY_PREFIX", "")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # A consumer waits for its next message with a blocking pop of 5 seconds; redis-py
            # gives up reading after socket_timeout, 5 seconds by default too, which closed the
            # websocket of a page that received nothing for that long (code 1011).
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 30}],
                "prefix": f"{REDIS_KEY_PREFIX}asgi",
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

# Celery: Redis in production; otherwise an in-memory broker and a worker thread inside the
# web process (playground.scheduling.embedded_worker), so one command runs everything.
CELERY_BROKER_URL = os.getenv("CELERY_BROKER_URL", REDIS_URL or "memory://")
CELERY_RESULT_BACKEND = None
if REDIS_KEY_PREFIX:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"global_keyprefix": REDIS_KEY_PREFIX}
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ROUTES = {
    "playground.scheduling.tasks.run_scheduler_service": {"queue": "scheduler"},
    "playground.scheduling.tasks.run_binding_cycles": {"queue": "binding"},
    "playground.clusters.tasks.run_mirror": {"queue": "scheduler"},
    "playground.compare.tasks.run_comparison_variant": {"queue": "scheduler"},
}
EMBEDDED_WORKER = envbool("EMBEDDED_WORKER", "False" if REDIS_URL else "True")

SCHEDULER_LEASE_SECONDS = envint("SCHEDULER_LEASE_SECONDS", 15)
MIRROR_LEASE_SECONDS = envint("MIRROR_LEASE_SECONDS", 15)
MIRROR_WATCH_SECONDS = envint("MIRROR_WATCH_SECONDS", 60)
"""timeoutSeconds of the mirror's watches (upstream's reflectors pick 5 to 10 minutes): a
stopping mirror's last watch may take this long to end."""
DEBUGGER_STOP_SECONDS = envint("DEBUGGER_STOP_SECONDS", 600)
"""How long the scheduler waits at a debugger stop nobody answers before it continues."""

ENCRYPTION_KEY_FILE = Path(os.getenv("ENCRYPTION_KEY_FILE", VAR_DIR / "encryption.key"))
"""The embedded mode's key for credentials at rest, made on first use. PLAYGROUND_ENCRYPTION_KEY
or PLAYGROUND_SECRET_KEY_FILE come first; production requires one (see clusters.encryption)."""

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "workspaces"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.getenv("STATIC_ROOT", VAR_DIR / "static"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns about a missing one
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.getenv("LOG_LEVEL", "WARNING")},
    # Django's own default config gives "django" a console handler too; without this, every
    # request line of the development server is printed twice (there and through the root).
    "loggers": {"django": {"handlers": ["console"], "level": "INFO", "propagate": False}},
}

# Prometheus /metrics (docs/metrics.md). PROMETHEUS_MULTIPROC_DIR: a directory shared by the
# web and worker processes of one machine, emptied before they start (scripts/run does); each
# process writes its values there and /metrics adds them up. Unset: this process's values only.
PROMETHEUS_MULTIPROC_DIR = os.getenv("PROMETHEUS_MULTIPROC_DIR", "")
if PROMETHEUS_MULTIPROC_DIR:
    Path(PROMETHEUS_MULTIPROC_DIR).mkdir(parents=True, exist_ok=True)
METRICS_TOKEN = os.getenv("METRICS_TOKEN", "")
"""The bearer token scrapers send to /metrics; empty: only staff sessions may read it."""
