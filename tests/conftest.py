"""Shared fixtures: organizations, one user per role, and corpus files with recognisable secret text."""

import datetime
import json
import os

import pytest
from django.conf import settings as django_settings

from corpus.models import ConsentUse
from corpus.services import grant_consent, import_corpus, set_dataset_public
from governance.services import add_member, create_organization

PASSWORD = "correct horse battery staple 42"
SECRET_MARK = "SECRETTEXT"


def pytest_sessionstart(session):
    if os.environ.get("REQUIRE_POSTGRES") and "postgresql" not in django_settings.DATABASES["default"]["ENGINE"]:
        raise pytest.UsageError("REQUIRE_POSTGRES is set but DATABASE_URL does not name PostgreSQL.")


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def clean_cache():
    """Rate-limit counters live in the cache; each test starts with none."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


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


@pytest.fixture
def steward(db):
    organization, _ = create_organization("steward", "Steward Nation", ["crk"], "OCAP®")
    return organization


@pytest.fixture
def other_org(db):
    organization, _ = create_organization("other", "Other Nation", ["oj"], "CARE")
    return organization


def member(email, organization, role):
    user, _, _ = add_member(email, organization, role, PASSWORD)
    return user


@pytest.fixture
def governance_user(steward):
    return member("gov@steward.example", steward, "governance")


@pytest.fixture
def curator(steward):
    return member("curator@steward.example", steward, "curator")


@pytest.fixture
def speaker(steward):
    return member("speaker@steward.example", steward, "speaker")


@pytest.fixture
def outsider(other_org):
    """A speaker and even a curator elsewhere: no rights on the steward's corpora."""
    user = member("outsider@other.example", other_org, "speaker")
    add_member(user.email, other_org, "curator")
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
    return grant_consent(dataset, list(ConsentUse), "Council resolution 2026-14 (test)", datetime.date(2026, 1, 15),
                         recorded_by, document_reference="Band office archive, binder 7 (test)")


def publish(dataset):
    """Consent to every use, then release the public segments: what most tests start from."""
    grant_all_consents(dataset)
    return set_dataset_public(dataset, True)


@pytest.fixture
def public_version(steward):
    """A public dataset holding one entry of each segment; the secret ones carry SECRET_MARK."""
    outcome = import_corpus(corpus_bytes(mixed_entries()), steward)
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
