"""Shared fixtures: organizations, one user per role, and corpus files with recognisable secret text."""

import datetime
import gc
import inspect
import itertools
import json
import os
from pathlib import Path

import pytest
from django.conf import settings as django_settings

from corpus.models import ConsentUse
from corpus.services import grant_consent, import_corpus, set_dataset_public
from organizations.services import add_member, create_organization

from .shared_world import MISSING, SHARED, SharedWorld

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse battery staple 42"
SECRET_MARK = "SECRETTEXT"


def pytest_configure(config):
    from . import workers

    workers.isolate()


def pytest_collection_finish(session):
    """Once the test modules are imported, what is loaded so far (Django, the apps, the tests) is kept out of the
    cyclic garbage collector's passes (gc.freeze), and a pass starts after 50,000 new objects rather than 700: the
    ORM makes and drops objects by the million, and with the defaults the collector walked the whole loaded heap
    again and again, a fifth of the suite's CPU time. Objects are freed as before (reference counting); cycles are
    still collected, in larger batches."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(request):
    """With `--reuse-db` on SQLite (`make test-fast`), each worker's test database is a file kept between runs,
    named after the project's migrations, so a changed migration gets a freshly migrated one; without it,
    pytest-django's (an in-memory database, dropped at the end). The kept file is written without waiting for
    the disk (PRAGMA synchronous = OFF): it holds nothing worth a sync, and migrating it and the tests that
    commit spent seconds waiting for one at each commit."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if (request.config.getoption("reuse_db") and database["ENGINE"] == "django.db.backends.sqlite3"
            and not database.get("TEST", {}).get("NAME")):
        database.setdefault("TEST", {})["NAME"] = str(kept_sqlite_database())
        options = database.setdefault("OPTIONS", {})
        options["init_command"] = ";".join(filter(None, [options.get("init_command"), "PRAGMA synchronous = OFF"]))
    request.getfixturevalue("django_db_modify_db_settings_parallel_suffix")


def kept_sqlite_database() -> Path:
    """.test-databases/sqlite-<hash of every migration>; pytest-django adds each xdist worker's name. Files of
    other migrations (another branch, an edited migration) are deleted."""
    import hashlib

    digest = hashlib.sha256()
    for migration in sorted(ROOT.glob("*/migrations/*.py")):
        digest.update(str(migration.relative_to(ROOT)).encode() + b"\0" + migration.read_bytes())
    name = f"sqlite-{digest.hexdigest()[:16]}"
    folder = ROOT / ".test-databases"
    folder.mkdir(exist_ok=True)
    for stale in folder.glob("sqlite-*"):
        if not stale.name.startswith(name):
            stale.unlink(missing_ok=True)
    return folder / name


@pytest.fixture(scope="session")
def shared_world(django_db_setup, django_db_blocker, media_folders):
    """The rows consecutive tests start from alike (tests/shared_world.py), rolled back at the end."""
    world = SharedWorld(django_db_blocker, media_folders[0] / "shared")
    yield world
    world.close()


@pytest.fixture
def _django_db_helper(request, django_db_setup, django_db_blocker, shared_world):
    """pytest-django's transaction of each test, started once the shared rows the test starts from are in place."""
    from pytest_django import fixtures

    shared_world.prepare(request.node)
    yield from fixtures._django_db_helper.__wrapped__(request, django_db_setup, django_db_blocker)


def shared_fixture(make):
    """A fixture made by `make`, which takes the fixtures its parameters name: made once for consecutive tests
    that start from the same rows (tests/shared_world.py), each test getting its own copy of the objects. A fixture
    that stores files is not one: they would go to a folder no test reads."""
    arguments = tuple(inspect.signature(make).parameters)

    def fixture(request, shared_world, **values):
        shared = shared_world.value(request.node, fixture)
        return shared if shared is not MISSING else make(**values)

    fixture.__signature__ = inspect.Signature([inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                               for name in ("request", "shared_world", *arguments)])
    fixture.__name__, fixture.__qualname__, fixture.__doc__ = make.__name__, make.__qualname__, make.__doc__
    fixture.__module__ = make.__module__
    SHARED[fixture] = (make, arguments)
    return pytest.fixture(fixture)


def pytest_sessionstart(session):
    if os.environ.get("REQUIRE_POSTGRES") and "postgresql" not in django_settings.DATABASES["default"]["ENGINE"]:
        raise pytest.UsageError("REQUIRE_POSTGRES is set but DATABASE_URL does not name PostgreSQL.")


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def media_folders(tmp_path_factory):
    """The folder of the test run's uploads, and the numbers of its tests' own folders in it."""
    return tmp_path_factory.getbasetemp() / "media", itertools.count()


@pytest.fixture(autouse=True)
def uploads_in_a_temporary_folder(settings, media_folders):
    """Uploaded files (submission packages, consent documents) go to a folder of the test's own in the test run's
    folder, never to the checkout's media/ folder. The folder is made by the first file stored in it (as the
    storage makes any missing folder): most tests store none, and making and later deleting a folder for each
    test cost seconds a run."""
    base, numbers = media_folders
    settings.MEDIA_ROOT = base / str(next(numbers))


@pytest.fixture(autouse=True)
def force_login_proves_the_second_factor(monkeypatch):
    """`client.force_login(user)` stands for a complete sign-in: password, then the authenticator code when
    the account has one (recorded in the session as allauth's sign-in records it). Tests of sessions that
    did not prove the second factor sign in through the real forms or call `password_only_login`."""
    from django.test import Client

    original = Client.force_login

    def force_login(self, user, backend=None):
        original(self, user, backend)
        record_second_factor(self, user)

    monkeypatch.setattr(Client, "force_login", force_login)


def record_second_factor(client, user) -> None:
    """Record in `client`'s session that it typed the code of `user`'s authenticator (when there is one)."""
    import time

    from allauth.account.internal.flows.login import AUTHENTICATION_METHODS_SESSION_KEY
    from allauth.mfa.models import Authenticator

    totp = Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).first()
    session = client.session
    records = [{"method": "password", "at": time.time(), "email": user.email}]
    if totp is not None:
        records.append({"method": "mfa", "at": time.time(), "id": totp.pk, "type": "totp"})
    session[AUTHENTICATION_METHODS_SESSION_KEY] = records
    session["account_authentication_methods_user"] = str(user.pk)
    session.save()


def password_only_login(client, user):
    """A session signed in with the password alone, as a sign-in that never reached the code step leaves."""
    import time

    from allauth.account.internal.flows.login import AUTHENTICATION_METHODS_SESSION_KEY

    client.force_login(user)
    session = client.session
    session[AUTHENTICATION_METHODS_SESSION_KEY] = [{"method": "password", "at": time.time(), "email": user.email}]
    session["account_authentication_methods_user"] = str(user.pk)
    session.save()
    return client


def proven(user):
    """`user` as the request of a session that proved its authenticator sees it (for selector tests)."""
    from allauth.mfa.models import Authenticator

    from accounts.second_factor import SECOND_FACTOR_PROOF

    setattr(user, SECOND_FACTOR_PROOF, frozenset(Authenticator.objects.filter(user=user).values_list("pk", flat=True)))
    user.__dict__.pop("_authenticators", None)
    user.__dict__.pop("_memberships", None)
    return user


@pytest.fixture(autouse=True)
def roomy_api_rates(monkeypatch, request):
    """API rate limits high enough for tests that make hundreds of requests (the fuzzing, the visibility walk);
    tests/test_limits.py checks the limits themselves at their configured rates."""
    if request.module.__name__.endswith("test_limits"):
        return
    from rest_framework.throttling import SimpleRateThrottle

    rates = {scope: "1000000/min" for scope in SimpleRateThrottle.THROTTLE_RATES}
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", rates)


@pytest.fixture(autouse=True)
def clean_cache():
    """Rate-limit counters live in the cache; each test starts with none."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts and ends in the site's default language: a request in another language activates it for
    the thread, and the next test must not inherit it."""
    from django.utils import translation

    translation.activate(settings_language())
    yield
    translation.activate(settings_language())


def settings_language() -> str:
    from django.conf import settings

    return settings.LANGUAGE_CODE


def entry(entry_id, segment="development", **fields):
    """An entry whose texts carry the secret marker when its segment is secret."""
    marker = f"{SECRET_MARK}-{segment}-{entry_id}" if segment in ("gold_standard", "held_out") else f"public-{entry_id}"
    data = {"id": entry_id, "source": f"source {marker}", "reference": f"reference {marker}", "segment": segment}
    data.update(fields)
    return data


def corpus_bytes(entries, **envelope) -> bytes:
    dataset = {
        "id": "test-en-crk",
        "version": "1.0",
        "language_pair": "EN→CRK",
        "source_language": "en",
        "target_language": "crk",
        "created": "2026-05-01",
        "license": "CC-BY-4.0",
        "provenance": ["elicited"],
    }
    dataset.update(envelope)
    return json.dumps({"dataset": dataset, "entries": entries}, ensure_ascii=False, indent=1).encode("utf-8")


def mixed_entries():
    return [
        entry(1, "development", difficulty=1, domain="conv", register="conversational", provenance="elicited"),
        entry(2, "diagnostic", difficulty=2, domain="medical", register="formal", provenance="textbook"),
        entry(3, "gold_standard", difficulty=3, domain="medical", register="formal", provenance="gold_standard"),
        entry(4, "held_out", difficulty=4, domain="legal", register="formal", provenance="gold_standard"),
    ]


@shared_fixture
def steward(db):
    organization, _ = create_organization(
        slug="steward",
        name="Steward Nation",
        languages=["crk"],
        principles="OCAP®",
        actor=None,
    )
    return organization


@shared_fixture
def other_org(db):
    organization, _ = create_organization(
        slug="other",
        name="Other Nation",
        languages=["oj"],
        principles="CARE",
        actor=None,
    )
    return organization


def member(email, organization, role):
    """A user holding `role`; governance staff and curators get two-factor authentication too, as reading their
    community's secrets requires (`add_member` alone gives a role holder without it), and the user object is
    the one of a request that proved it (`proven`), as services called by the pages receive it."""
    user, _, _ = add_member(email=email, organization=organization, role=role, password=PASSWORD, actor=None)
    if role in ("governance", "curator"):
        enable_totp(user)
        proven(user)
    if role == "speaker":
        qualify(user, organization)
    return user


TEST_PAIR_LANGUAGES = ("en", "crk")


def qualify(user, organization, languages=TEST_PAIR_LANGUAGES, reading: int = 4, writing: int = 4, variety: str = "",
            script: str = ""):
    """`user` states `languages` (the test pair EN→CRK unless told) at `reading`/`writing` and the organization
    attests them (the site operator's attestation, as demo data is): what review pools are drawn from
    (docs/speakers.md). Speakers made by `member` get it; a test of an unqualified speaker uses `add_member`."""
    from corpus.language_pairs import language_code
    from speakers.models import LanguageSkill
    from speakers.services import add_skill, attest_skill, checked_variety

    for language in languages:
        skill = LanguageSkill.objects.filter(user=user, language=language_code(language), script=script,
                                             variety_key=checked_variety(variety)[1]).first()
        if skill is None:
            skill = add_skill(actor=user, language=language, reading=reading, writing=writing, variety=variety,
                              script=script)
        if not skill.attestations.filter(organization=organization, withdrawn_at__isnull=True).exists():
            attest_skill(actor=None, skill=skill, organization=organization)
    return user


def enable_totp(user) -> str:
    """Give `user` an active TOTP authenticator (as activating it under My account → Two-factor authentication
    does) and return its secret; the existing one's secret when they have one. Governance staff and curators
    see secret segments only with it."""
    from allauth.mfa.models import Authenticator
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
    from allauth.mfa.utils import decrypt

    existing = Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).first()
    if existing is not None:
        return decrypt(existing.data["secret"])
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    user.__dict__.pop("_authenticators", None)  # organizations.selectors remembers the answer on the user object
    return secret


@pytest.fixture(autouse=True)
def totp_clock(monkeypatch):
    """allauth's TOTP clock stands still in the middle of the current 30-second period for the whole test (the
    rest of the code keeps the real time): a code computed by `current_totp_code` is the one the server expects
    when it checks it, however long the test takes, and no test waits for the next period."""
    import time
    import types

    from allauth.mfa import app_settings
    from allauth.mfa.totp.internal import auth

    period = app_settings.TOTP_PERIOD
    frozen = int(time.time()) // period * period + period / 2
    monkeypatch.setattr(auth, "time", types.SimpleNamespace(time=lambda: frozen))


def current_totp_code(secret: str) -> str:
    """The code an authenticator app holding `secret` shows now (by the TOTP clock `totp_clock` freezes),
    computed with allauth's own helpers."""
    from allauth.mfa import app_settings
    from allauth.mfa.totp.internal import auth

    return auth.format_hotp_value(auth.hotp_value(secret, int(auth.time.time()) // app_settings.TOTP_PERIOD))


def totp_code(user) -> str:
    """The current code of the user's authenticator. allauth accepts each code once; this forgets that the
    code was used, so a test can sign the same user in twice within one 30-second period."""
    from allauth.mfa.models import Authenticator
    from allauth.mfa.totp.internal.auth import TOTP
    from allauth.mfa.utils import decrypt
    from django.core.cache import cache

    authenticator = Authenticator.objects.get(user=user, type=Authenticator.Type.TOTP)
    code = current_totp_code(decrypt(authenticator.data["secret"]))
    cache.delete(TOTP(authenticator)._get_used_cache_key(code))
    return code


@shared_fixture
def governance_user(steward):
    """Governance staff of the steward, with two-factor authentication (which reading secrets requires)."""
    return member("gov@steward.example", steward, "governance")


@shared_fixture
def curator(steward):
    """A curator of the steward, with two-factor authentication."""
    return member("curator@steward.example", steward, "curator")


@pytest.fixture
def governance_user_without_mfa(steward):
    """Governance staff who has not set up two-factor authentication yet: sees nothing secret."""
    user, _, _ = add_member(
        email="gov-no-2fa@steward.example",
        organization=steward,
        role="governance",
        password=PASSWORD,
        actor=None,
    )
    return user


@pytest.fixture
def curator_without_mfa(steward):
    """A curator who has not set up two-factor authentication yet: sees nothing secret."""
    user, _, _ = add_member(
        email="curator-no-2fa@steward.example",
        organization=steward,
        role="curator",
        password=PASSWORD,
        actor=None,
    )
    return user


@shared_fixture
def speaker(steward):
    return member("speaker@steward.example", steward, "speaker")


@shared_fixture
def outsider(other_org):
    """A speaker and even a curator elsewhere, with two-factor authentication: no rights on the steward's
    corpora all the same."""
    user = member("outsider@other.example", other_org, "speaker")
    add_member(email=user.email, organization=other_org, role="curator", actor=None)
    enable_totp(user)
    return user


@pytest.fixture
def maintainer(db):
    from accounts.models import User

    return User.objects.create_superuser("maintainer@example.org", PASSWORD)


def grant_all_consents(dataset, recorded_by=None):
    """An active consent record covering every use, as a community's governance staff would record it
    (datasets need one before they are published, evaluated or reviewed)."""
    if recorded_by is None:
        from accounts.models import User

        recorded_by, _ = User.objects.get_or_create(email="consent-recorder@example.org")
    return grant_consent(
        dataset=dataset,
        uses=list(ConsentUse),
        granted_by_name="Council resolution 2026-14 (test)",
        granted_on=datetime.date(2026, 1, 15),
        actor=recorded_by,
        document_reference="Band office archive, binder 7 (test)",
    )


def publish(dataset):
    """Consent to every use, then release the public segments: what most tests start from."""
    grant_all_consents(dataset)
    return set_dataset_public(dataset=dataset, is_public=True, actor=None)


def published_version(organization, entries):
    """A version of `entries` imported for `organization`, with consent to every use and its public segments
    released."""
    version = import_corpus(data=corpus_bytes(entries), organization=organization, actor=None).version
    publish(version.dataset)
    return version


def entries_of(version):
    """The version's entries in the order of its file."""
    from corpus.models import Entry

    return list(Entry.objects.filter(version=version).order_by("position"))


@shared_fixture
def public_version(steward):
    """A public dataset holding one entry of each segment; the secret ones carry SECRET_MARK."""
    outcome = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None)
    publish(outcome.version.dataset)
    return outcome.version


def client_for(client, user):
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def eager_tasks():
    """Run Celery tasks in-process even when a broker is configured; tests/test_tasks.py runs them on
    a real worker and broker."""
    from config.celery import app as celery_app

    before = celery_app.conf.task_always_eager
    celery_app.conf.update(task_always_eager=True)
    yield
    celery_app.conf.update(task_always_eager=before)


def activate_held_out(version) -> None:
    """Make the version's held_out entries scorable, as its governance staff do once the segment is used for
    evaluation (until then a run card scoring one is refused)."""
    from django.utils import timezone

    from corpus.models import DatasetVersion

    DatasetVersion.objects.filter(pk=version.pk).update(held_out_activated_at=timezone.now())
    version.refresh_from_db()


# Review: the run card a campaign reviews and the speakers it draws on (tests/review_setup.py builds them).

@shared_fixture
def card(steward, governance_user):
    """A gold-standard card of the steward in every difficulty tier, uploaded by its sandbox operator."""
    from .review_setup import gold_card

    return gold_card(steward, governance_user)


@shared_fixture
def public_card(card):
    """`card` on a published dataset: its row is on the public (cached) leaderboard."""
    publish(card.dataset_version.dataset)
    return card


@pytest.fixture
def pool_size() -> int:
    """How many speakers `pool` holds; a module overrides this fixture for a smaller pool."""
    return 4


@shared_fixture
def pool(steward, pool_size):
    """Qualified speakers of the steward (speaker1@… to speaker<pool_size>@…), a campaign's pool."""
    from .review_setup import speakers

    return speakers(steward, pool_size)
