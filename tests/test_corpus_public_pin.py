"""The public download of a version (its public segments only) is byte-stable, never holds a secret entry, and its
SHA-256 — the public-download pin — is published on the version page and in the API, equal to the SHA-256 of the
bytes a developer downloads (what the harness writes as the run card's dataset.sha256)."""

import hashlib
import json

import pytest

from corpus.models import DatasetVersion, Segment
from corpus.selectors import compute_public_download_hash, public_download_hash
from corpus.services import add_entry, create_next_version, freeze_version, import_corpus

from .conftest import SECRET_MARK, corpus_bytes, entry, mixed_entries, publish

pytestmark = pytest.mark.django_db


def download(client, version) -> bytes:
    response = client.get(f"/datasets/versions/{version.pk}/export.json?public=1")
    assert response.status_code == 200, response.status_code
    assert response["Content-Disposition"].endswith('-public.json"')
    return b"".join(response.streaming_content)


def test_public_download_is_byte_stable_and_holds_no_secret_entry(client, public_version):
    first = download(client, public_version)
    assert first == download(client, public_version)
    assert SECRET_MARK.encode() not in first
    document = json.loads(first)
    assert [item["segment"] for item in document["entries"]] == ["development", "diagnostic"]
    # Written "EN→CRK", the pair is one the harness refuses: the download carries it as the harness reads pairs,
    # the envelope's other members as stored.
    stored = json.loads(public_version.envelope)
    assert stored["language_pair"] == "EN→CRK"
    assert document["dataset"] == {**stored, "language_pair": {"source": "eng", "target": "crk"}}


def test_the_same_bytes_for_the_steward_and_the_public(client, public_version, governance_user):
    public = download(client, public_version)
    client.force_login(governance_user)
    assert download(client, public_version) == public
    # The steward's full export holds the secret entries; the public download never does.
    full = b"".join(client.get(f"/datasets/versions/{public_version.pk}/export.json").streaming_content)
    assert SECRET_MARK.encode() in full and full != public


def test_pin_is_published_and_equals_the_sha256_of_the_download(client, public_version):
    data = download(client, public_version)
    pin = hashlib.sha256(data).hexdigest()
    assert public_download_hash(public_version) == pin
    page = client.get(f"/datasets/versions/{public_version.pk}/")
    assert page.context["public_download_hash"] == pin and pin in page.content.decode()
    api = client.get(f"/api/v1/dataset-versions/{public_version.pk}/").json()
    assert api["public_download_sha256"] == pin
    api_download = client.get(f"/api/v1/dataset-versions/{public_version.pk}/public/")
    assert api_download.status_code == 200
    assert hashlib.sha256(b"".join(api_download.streaming_content)).hexdigest() == pin
    # The full file's hash stays the version's sha256 (governance's gold-standard runs pin it).
    assert public_version.sha256 != pin


def test_public_users_plain_export_is_the_public_download(client, public_version):
    plain = b"".join(client.get(f"/datasets/versions/{public_version.pk}/export.json").streaming_content)
    assert plain == download(client, public_version)


def test_pin_is_stored_at_import_and_follows_edits(steward, governance_user):
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    stored = DatasetVersion.objects.get(pk=version.pk).public_download_sha256
    assert stored == compute_public_download_hash(version)
    add_entry(actor=governance_user, version=version, data=entry(9, "held_out"))
    version.refresh_from_db()
    assert version.public_download_sha256 == stored  # a secret entry changes nothing public
    add_entry(actor=governance_user, version=version, data=entry(10, "diagnostic"))
    version.refresh_from_db()
    assert version.public_download_sha256 != stored
    assert version.public_download_sha256 == compute_public_download_hash(version)
    freeze_version(actor=None, version=version)
    successor = create_next_version(actor=None, version=version, new_version="1.1")
    assert successor.public_download_sha256 == compute_public_download_hash(successor)
    assert successor.public_download_sha256 != version.public_download_sha256  # its envelope names 1.1


def test_pin_of_a_version_stored_before_it_existed_is_computed_once(public_version):
    DatasetVersion.objects.filter(pk=public_version.pk).update(public_download_sha256="")
    version = DatasetVersion.objects.get(pk=public_version.pk)
    pin = public_download_hash(version)
    assert pin == compute_public_download_hash(version)
    assert DatasetVersion.objects.get(pk=public_version.pk).public_download_sha256 == pin


def test_pin_does_not_depend_on_publication(steward):
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    before = public_download_hash(version)
    publish(version.dataset)
    assert compute_public_download_hash(version) == before


def test_private_versions_public_download_is_not_shown_to_others(client, steward, outsider):
    version = import_corpus(data=corpus_bytes(mixed_entries()), organization=steward, actor=None).version
    assert client.get(f"/datasets/versions/{version.pk}/export.json?public=1").status_code == 404
    client.force_login(outsider)
    assert client.get(f"/datasets/versions/{version.pk}/export.json?public=1").status_code == 404
    assert client.get(f"/api/v1/dataset-versions/{version.pk}/public/").status_code == 404


def test_upstream_shape_public_download_keeps_its_shape(client, steward):
    flat = {"corpus_id": "flat-pin", "version": "1", "language_pair": {"source": "eng", "target": "crk"},
            "created": "2026-05-01", "license": "CC-BY-4.0",
            "entries": [entry(1), entry(2, Segment.GOLD_STANDARD), entry(3, Segment.DIAGNOSTIC)]}
    version = import_corpus(data=json.dumps(flat, ensure_ascii=False).encode(), organization=steward,
                            actor=None).version
    publish(version.dataset)
    data = download(client, version)
    assert hashlib.sha256(data).hexdigest() == public_download_hash(version)
    document = json.loads(data)
    assert document["corpus_id"] == "flat-pin" and [e["id"] for e in document["entries"]] == [1, 3]
    assert SECRET_MARK.encode() not in data
