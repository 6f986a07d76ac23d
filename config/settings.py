"""Settings for every environment, driven only by environment variables.

With nothing set the app runs on SQLite and the in-memory channel layer, so a fresh clone works with
no services. ``DATABASE_URL`` switches to PostgreSQL, ``REDIS_URL`` to channels-redis. Debug is off
unless ``DJANGO_DEBUG=1`` (and then serves this machine only); the secret key is this installation's
own (``DATA_DIR``), ``DJANGO_HTTPS=1`` for a deployment behind a TLS proxy.
"""

import hashlib
import os
import secrets
import tempfile
import warnings
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from campaigns.lan import is_loopback, lan_addresses

BASE_DIR = Path(__file__).resolve().parent.parent


def env_flag(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def installation_secret(folder: Path) -> str:
    """This installation's secret key: made once into ``folder/secret_key`` (mode 0600), read after.

    Feed cursors and every signature lean on it, so it is never in the repository. The file appears
    whole or not at all (written aside, then linked into place), and two workers starting at once
    agree: the second link fails and that worker reads the first one's key.
    """
    path = folder / "secret_key"
    if not path.exists():
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor, draft = tempfile.mkstemp(dir=folder, prefix=".secret_key-")  # created 0600
        try:
            with os.fdopen(descriptor, "w") as file:
                file.write(secrets.token_urlsafe(50))
                file.flush()
                os.fsync(file.fileno())
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(draft)
    key = path.read_text().strip()
    if len(key) < 32:
        raise ImproperlyConfigured(f"{path} holds no usable secret key: delete it to make a new one.")
    return key


# The address the server was told to listen on (`make run` passes HOST to every step), "" when unknown:
# a loopback bind means the others in the room cannot reach it, and the invite link says so.
SERVE_HOST = os.environ.get("HOST", "")

# Where this installation keeps what must not be in the repository (its secret key).
DATA_DIR = Path(os.environ.get("DJANGO_DATA_DIR") or BASE_DIR / "data")

# Off unless asked for: a debug page shows a traceback and the settings to whoever meets an error.
DEBUG = env_flag("DJANGO_DEBUG", False)

# Set it where several machines serve one deployment (each would make a key of its own otherwise).
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or installation_secret(DATA_DIR)

if DEBUG:
    # The debug pages are for this machine's own browser: refuse a bind the room could reach (HOST, as
    # `make run` passes it to every step), and answer no other address (DebugServesLoopbackOnly below,
    # which also covers a server started by hand).
    if not is_loopback(os.environ.get("HOST", "127.0.0.1")):
        raise ImproperlyConfigured(
            f"DJANGO_DEBUG=1 shows tracebacks and settings to whoever meets an error, so it serves this "
            f"machine only: start it with HOST=127.0.0.1 (HOST is {os.environ['HOST']!r})."
        )
    default_hosts = ["127.0.0.1", "localhost", "[::1]"]
else:
    # `make run` is a game for the room: unset, the app also answers on this machine's LAN addresses.
    default_hosts = ["127.0.0.1", "localhost", "[::1]", *lan_addresses()]
ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", ",".join(default_hosts)).split(",") if h.strip()
]
# A wildcard would make AllowedHostsOriginValidator accept websockets from any origin.
if "*" in ALLOWED_HOSTS:
    raise ImproperlyConfigured("DJANGO_ALLOWED_HOSTS may not contain '*'")

# Served to the internet behind a TLS-terminating proxy (README, "Running at scale"): HTTPS-only cookies
# and redirect, HSTS, and the hashed static files `collectstatic` wrote. Off, as `make run` serves the
# room over plain HTTP from the static folders themselves.
HTTPS = env_flag("DJANGO_HTTPS", False)

CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

# The game systems, each one package under sheets/systems/ (and one Django app): the only list of them.
GAME_SYSTEMS = [
    "sheets.systems.fivebyfive",
    "sheets.systems.freefall",
    "sheets.systems.triad",
    "sheets.systems.l5r",
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "crispy_forms",
    "crispy_bootstrap5",
    "axes",
    "csp",
    "campaigns",
    "sheets",
    *GAME_SYSTEMS,
    "play",
]

MIDDLEWARE = [
    *(["campaigns.middleware.DebugServesLoopbackOnly"] if DEBUG else []),
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Django's LoginRequiredMiddleware, but an htmx request is sent to the login page as a full page.
    "campaigns.middleware.LoginRequiredMiddleware",
    # Every request that rolls, works out odds, imports or writes spends its user's budget (limits.py).
    "campaigns.middleware.RateLimitMiddleware",
    "campaigns.middleware.NoStoreForUsersMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "csp.middleware.CSPMiddleware",
    # Last, so it sees the outcome of the login view.
    "axes.middleware.AxesMiddleware",
]

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
            ],
        },
    },
]

if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
    if os.environ.get("PG_TEST_NAME"):
        # Two test runs on one server each need a test database of their own.
        DATABASES["default"]["TEST"] = {"NAME": os.environ["PG_TEST_NAME"]}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", BASE_DIR / "db.sqlite3"),
            # Keep each worker thread's connection: opening one (and its PRAGMAs) per roll doubled the
            # time a roll spends in the database thread (bench/table.py).
            "CONN_MAX_AGE": 600,
            "CONN_HEALTH_CHECKS": True,
            "OPTIONS": {
                # WAL lets readers run beside the writer; IMMEDIATE takes the write lock up front so
                # two writers queue on the busy timeout instead of failing with "database is locked".
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
            # A file, not :memory:, so the browser tests' live server thread shares the test database.
            "TEST": {"NAME": os.environ.get("SQLITE_TEST_PATH", BASE_DIR / ".test-db.sqlite3")},
        }
    }


def default_layer_prefix(database: dict) -> str:
    """A channel-layer prefix of this deployment's own, derived from the database it writes to.

    Redis pub/sub ignores the database number in REDIS_URL, so two deployments on one Redis server
    would hear each other's tables without distinct prefixes. Workers of one deployment share one
    database and so one prefix; two deployments never share a database. SECRET_KEY is left out on
    purpose: rotating it worker by worker would split one deployment's table in two.
    """
    identity = "|".join(str(database.get(part) or "") for part in ("ENGINE", "HOST", "PORT", "NAME"))
    return "tabletop-" + hashlib.sha256(identity.encode()).hexdigest()[:16]


# Set it explicitly when the workers of one deployment reach the database under different addresses.
CHANNEL_LAYER_PREFIX = os.environ.get("CHANNEL_LAYER_PREFIX") or default_layer_prefix(DATABASES["default"])

# TABLETOP_STOCK=1 serves with the framework as shipped: Django's own ASGI handler, channels' own
# in-memory layer and consumer dispatch, plain ORM updates, no frozen start-up objects. The speed layer
# (docs/architecture.md, "The speed layer") leans on framework internals; this is the way back when an
# upgrade of Django or Channels changes them, and CI runs the suite once in this mode.
TABLETOP_STOCK = os.environ.get("TABLETOP_STOCK") == "1"

# How many worker processes serve this deployment: uvicorn and gunicorn both take WEB_CONCURRENCY as
# their worker count, and campaigns.checks warns when several run on the in-memory layer.
try:
    WEB_WORKERS = int(os.environ.get("WEB_CONCURRENCY") or 1)
except ValueError:
    raise ImproperlyConfigured("WEB_CONCURRENCY must be a whole number of workers") from None

# Worker threads serving HTTP requests (config.asgi), each with its own database connection: a request
# waits for a free one past this many at once. A roll is a few milliseconds of CPU under one GIL, so
# more threads only contend for it (and, on SQLite, for its one writer's lock): over 100 tables of 8,
# 8 threads cost a quarter more CPU per roll than 2 (docs/performance.md). PostgreSQL's round trips
# leave room for a few more.
try:
    HTTP_THREADS = max(1, int(os.environ.get("HTTP_THREADS") or (4 if os.environ.get("DATABASE_URL") else 2)))
except ValueError:
    raise ImproperlyConfigured("HTTP_THREADS must be a whole number of threads") from None

# Every request reads its session: cached_db answers from the cache and writes through to the database,
# saving that query. Only with one worker: the default cache is per process, so with several a logout
# in one would leave the session alive in the others' caches (their misses still read the database).
SESSION_ENGINE = "django.contrib.sessions.backends." + ("cached_db" if WEB_WORKERS == 1 else "db")

if os.environ.get("REDIS_URL"):
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub rather than channels-redis' list-based core layer: a table's broadcast reaches
            # the workers that have sockets in the group and nothing is left queued in Redis, so there
            # are no stale group members after a restart and no capacity to tune; it also halves the
            # broadcast cost (bench/table.py). Delivery is at most once either
            # way: every entry is saved first and a reconnecting page catches up from the database.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [os.environ["REDIS_URL"]], "prefix": CHANNEL_LAYER_PREFIX},
        }
    }
elif TABLETOP_STOCK:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
else:
    # channels' in-memory layer with its housekeeping paced (campaigns/layers.py): one process only.
    CHANNEL_LAYERS = {"default": {"BACKEND": "campaigns.layers.TableChannelLayer"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "landing"

# Login throttling: behind one address (or loopback) lock the pair, never the whole address.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", 5))
AXES_COOLOFF_TIME = 0.25  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Uploaded portraits (sheets/portraits.py): never served as static files, only through a view that checks
# the viewer's seat, so there is no MEDIA_URL.
MEDIA_ROOT = Path(os.environ.get("DJANGO_MEDIA_ROOT") or DATA_DIR / "media")

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if HTTPS
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Unless collected (HTTPS above), WhiteNoise serves straight from the finders: `make run` and the test
# suite need no collectstatic, so its warning that STATIC_ROOT is not there yet says nothing amiss.
WHITENOISE_USE_FINDERS = not HTTPS
if WHITENOISE_USE_FINDERS:
    warnings.filterwarnings("ignore", message="No directory at: ", category=UserWarning)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Inputs and selects drawn without a template each (campaigns/form_renderer.py); part of the speed layer.
FORM_RENDERER = (
    "django.forms.renderers.DjangoTemplates" if TABLETOP_STOCK else "campaigns.form_renderer.FormRenderer"
)

CRISPY_ALLOWED_TEMPLATE_PACKS = "bootstrap5"
CRISPY_TEMPLATE_PACK = "bootstrap5"

if HTTPS:
    SECURE_SSL_REDIRECT = env_flag("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    SECURE_REFERRER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
