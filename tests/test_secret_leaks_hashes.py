"""The public hash of a dataset version confirms no guess of its secret entries: once the app computes the
version's sha256 from its content (after an edit, a bulk import, a next version) and the version holds secret
entries, everyone but the steward's secret readers sees — and pins run cards to — a keyed content hash."""

import hashlib
import importlib

import pytest
from django.apps import apps

from corpus.models import DatasetVersion, Entry, Sha256Source
from corpus.selectors import export_chunks
from corpus.services import add_entry, create_next_version, freeze_version, import_corpus, keyed_content_hash
from leaderboard.models import RunCard

from .cards import body, make_card, seal
from .conftest import corpus_bytes, entry, mixed_entries, proven, publish

pytestmark = pytest.mark.django_db
GUESSED = {"id": 9, "source": "a guessed source", "reference": "a guessed reference", "segment": "development"}


@pytest.fixture
def edited(public_version):
    add_entry(public_version, GUESSED)
    public_version.refresh_from_db()
    return public_version


def page(client, version) -> str:
    response = client.get(f"/datasets/versions/{version.pk}/")
    assert response.status_code == 200
    return response.content.decode()


def api(client, version) -> dict:
    response = client.get(f"/api/v1/dataset-versions/{version.pk}/")
    assert response.status_code == 200
    return response.json()


def test_an_edited_version_with_secret_entries_shows_the_public_a_keyed_hash(client, edited, speaker, governance_user):
    full_export = b"".join(export_chunks(proven(governance_user), edited))
    assert edited.sha256 == hashlib.sha256(full_export).hexdigest(), "the hash anyone could recompute from a guess"
    assert edited.sha256_source == Sha256Source.CONTENT
    assert edited.public_sha256 == keyed_content_hash(edited.sha256) != edited.sha256
    for user in (None, speaker):
        if user is not None:
            client.force_login(user)
        shown = page(client, edited)
        assert edited.sha256 not in shown and edited.public_sha256 in shown and "keyed content hash" in shown
        payload = api(client, edited)
        assert (payload["sha256"], payload["sha256_kind"]) == (edited.public_sha256, "keyed")
        assert edited.sha256 not in str(client.get("/api/v1/dataset-versions/").json())
    client.force_login(governance_user)
    assert edited.sha256 in page(client, edited)
    assert (api(client, edited)["sha256"], api(client, edited)["sha256_kind"]) == (edited.sha256, "content")


def test_the_hash_of_an_imported_file_stays_public(client, public_version):
    assert public_version.sha256 == hashlib.sha256(corpus_bytes(mixed_entries())).hexdigest()
    assert (public_version.sha256_source, public_version.public_sha256) == (Sha256Source.FILE, public_version.sha256)
    assert public_version.sha256 in page(client, public_version)
    assert api(client, public_version)["sha256_kind"] == "file"


def test_a_content_hash_without_secret_entries_stays_public(client, steward):
    version = import_corpus(corpus_bytes([entry(1), entry(2, "diagnostic")], id="open-set"), steward).version
    publish(version.dataset)
    add_entry(version, GUESSED)
    version.refresh_from_db()
    assert version.sha256_source == Sha256Source.CONTENT and version.public_sha256 == version.sha256
    assert (api(client, version)["sha256"], api(client, version)["sha256_kind"]) == (version.sha256, "content")


def test_a_next_version_is_a_content_hash_kept_from_the_public(client, public_version):
    freeze_version(public_version)
    successor = create_next_version(public_version, "1.1")
    assert successor.sha256_source == Sha256Source.CONTENT
    assert successor.public_sha256 == keyed_content_hash(successor.sha256) != successor.sha256
    assert successor.sha256 not in page(client, successor)


def test_run_cards_pin_the_hash_their_submitter_is_shown(client, edited, speaker, governance_user):
    public_entries = list(Entry.objects.filter(version=edited, segment="development").order_by("position"))
    card = make_card(edited, public_entries)  # pins edited.sha256, the real content hash
    client.force_login(speaker)
    refused = client.post("/api/v1/run-cards/", body(card), content_type="application/json")
    assert refused.status_code == 400
    assert [problem["path"] for problem in refused.json()["problems"]] == ["dataset.sha256"]
    assert edited.sha256 not in refused.content.decode(), "a refusal must not hand out the real hash either"
    assert edited.public_sha256 in refused.content.decode()
    card = make_card(edited, public_entries)
    card["dataset"]["sha256"] = edited.public_sha256
    assert client.post("/api/v1/run-cards/", body(seal(card)), content_type="application/json").status_code == 201
    client.force_login(governance_user)
    card = make_card(edited, public_entries, model_slug="steward-model")
    assert client.post("/api/v1/run-cards/", body(card), content_type="application/json").status_code == 201
    assert RunCard.objects.count() == 2


def test_the_migration_classifies_stored_hashes(steward, public_version):
    edited = import_corpus(corpus_bytes(mixed_entries(), id="edited-set"), steward).version
    add_entry(edited, GUESSED)
    edited.refresh_from_db()
    real = edited.sha256
    DatasetVersion.objects.filter(pk__in=[public_version.pk, edited.pk]).update(
        sha256_source=Sha256Source.FILE, public_sha256="0" * 64)  # as the columns arrive on existing rows
    migration = importlib.import_module("corpus.migrations.0006_dataset_version_hash_source")
    migration.classify_hashes(apps, None)
    edited.refresh_from_db()
    public_version.refresh_from_db()
    assert (edited.sha256, edited.sha256_source, edited.public_sha256) == (real, "content", keyed_content_hash(real))
    assert (public_version.sha256_source, public_version.public_sha256) == ("file", public_version.sha256)


def test_maintainers_see_the_public_hash_in_the_admin(client, edited, maintainer):
    client.force_login(maintainer)
    response = client.get(f"/admin/corpus/datasetversion/{edited.pk}/change/")
    assert response.status_code == 200
    assert edited.sha256 not in response.content.decode() and edited.public_sha256 in response.content.decode()
