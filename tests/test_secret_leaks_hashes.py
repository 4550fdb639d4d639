"""The public hash of a dataset version confirms no guess of its secret entries: whenever the version holds
secret entries, whether its sha256 is the hash of the imported file or of its content (after an edit, a bulk
import, a next version), everyone but the steward's secret readers sees — and pins run cards to — a keyed
content hash. Nor does a run card's fingerprint, on its page, in the API or in the admin, carry a hash kept
from the viewer."""

import hashlib
import importlib
import json

import pytest
from django.apps import apps
from django.urls import reverse

from corpus.models import DatasetVersion, Entry, Sha256Source
from corpus.selectors import export_chunks
from corpus.services import (
    add_entry,
    content_sha256,
    corpus_file_chunks,
    create_next_version,
    freeze_version,
    import_corpus,
    keyed_content_hash,
)
from leaderboard.models import RunCard
from leaderboard.services import submit_run_card
from leaderboard.verification import check_fingerprint, components_hash, compute_fingerprint, fingerprint_components

from .cards import body, make_card, seal
from .conftest import corpus_bytes, entry, mixed_entries, proven, publish, shared_fixture

pytestmark = pytest.mark.django_db

# These cards are legacy-composite ones (make_card's default); standard/1 is the default ranking.
LEGACY_BOARD = "/leaderboard/?standard=legacy-composite"
LEGACY_API = "/api/v1/leaderboard/?standard=legacy-composite"
GUESSED = {"id": 9, "source": "a guessed source", "reference": "a guessed reference", "segment": "development"}


@shared_fixture
def edited(public_version, curator):
    add_entry(actor=curator, version=public_version, data=GUESSED)
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


def assert_keyed_for_all_but_the_steward(client, version, kind, speaker, governance_user):
    for user in (None, speaker):
        if user is not None:
            client.force_login(user)
        assert version.sha256 not in page(client, version)
        assert (api(client, version)["sha256"], api(client, version)["sha256_kind"]) == (version.public_sha256, "keyed")
    client.force_login(governance_user)
    assert version.sha256 in page(client, version)
    assert (api(client, version)["sha256"], api(client, version)["sha256_kind"]) == (version.sha256, kind)


def test_the_hash_of_an_imported_file_with_secret_entries_is_kept_from_the_public(client, public_version, speaker,
                                                                                   governance_user):
    assert public_version.sha256 == hashlib.sha256(corpus_bytes(mixed_entries())).hexdigest()
    assert public_version.sha256_source == Sha256Source.FILE
    assert public_version.public_sha256 == keyed_content_hash(public_version.sha256) != public_version.sha256
    assert_keyed_for_all_but_the_steward(client, public_version, "file", speaker, governance_user)


def test_a_reimported_export_has_the_content_hash_as_its_file_hash_and_keeps_it_from_the_public(
        client, steward, public_version, speaker, governance_user):
    envelope = {**json.loads(public_version.envelope), "version": "2.0"}
    documents = public_version.entries.order_by("position").values_list("document", flat=True)
    exported = b"".join(corpus_file_chunks(json.dumps(envelope, ensure_ascii=False), documents))
    round_trip = import_corpus(data=exported, organization=steward, actor=None).version
    assert round_trip.sha256_source == Sha256Source.FILE
    assert round_trip.sha256 == hashlib.sha256(exported).hexdigest() == content_sha256(round_trip), (
        "the hash anyone could recompute from a guess of the secret entries")
    assert round_trip.public_sha256 == keyed_content_hash(round_trip.sha256)
    assert_keyed_for_all_but_the_steward(client, round_trip, "file", speaker, governance_user)


def test_the_hash_of_an_imported_file_without_secret_entries_stays_public(client, steward):
    version = import_corpus(
        data=corpus_bytes([entry(1), entry(2, "diagnostic")], id="open-set"),
        organization=steward,
        actor=None,
    ).version
    publish(version.dataset)
    assert (version.sha256_source, version.public_sha256) == (Sha256Source.FILE, version.sha256)
    assert version.sha256 in page(client, version)
    assert (api(client, version)["sha256"], api(client, version)["sha256_kind"]) == (version.sha256, "file")


def test_a_content_hash_without_secret_entries_stays_public(client, steward, curator):
    version = import_corpus(
        data=corpus_bytes([entry(1), entry(2, "diagnostic")], id="open-set"),
        organization=steward,
        actor=None,
    ).version
    publish(version.dataset)
    add_entry(actor=curator, version=version, data=GUESSED)
    version.refresh_from_db()
    assert version.sha256_source == Sha256Source.CONTENT and version.public_sha256 == version.sha256
    assert (api(client, version)["sha256"], api(client, version)["sha256_kind"]) == (version.sha256, "content")


def test_a_next_version_is_a_content_hash_kept_from_the_public(client, public_version):
    freeze_version(version=public_version, actor=None)
    successor = create_next_version(version=public_version, new_version="1.1", actor=None)
    assert successor.sha256_source == Sha256Source.CONTENT
    assert successor.public_sha256 == keyed_content_hash(successor.sha256) != successor.sha256
    assert successor.sha256 not in page(client, successor)


def test_run_cards_pin_the_hash_their_submitter_is_shown(client, edited, speaker, governance_user):
    public_entries = list(Entry.objects.filter(version=edited, segment="development").order_by("position"))
    card = make_card(edited, public_entries)
    card["dataset"]["sha256"] = edited.sha256  # the real content hash
    client.force_login(speaker)
    refused = client.post("/api/v1/run-cards/", body(seal(card)), content_type="application/json")
    assert refused.status_code == 400
    assert [problem["path"] for problem in refused.json()["problems"]] == ["dataset.sha256"]
    assert edited.sha256 not in refused.content.decode(), "a refusal must not hand out the real hash either"
    assert edited.public_sha256 in refused.content.decode()
    card = make_card(edited, public_entries)
    card["dataset"]["sha256"] = edited.public_sha256
    assert client.post("/api/v1/run-cards/", body(seal(card)), content_type="application/json").status_code == 201
    client.force_login(governance_user)
    card = make_card(edited, public_entries, model_slug="steward-model")
    card["dataset"]["sha256"] = edited.sha256
    assert client.post("/api/v1/run-cards/", body(seal(card)), content_type="application/json").status_code == 201
    card = make_card(edited, public_entries, model_slug="steward-model-2")
    card["dataset"]["sha256"] = edited.public_sha256  # the hash everyone is shown, which the steward knows too
    assert client.post("/api/v1/run-cards/", body(seal(card)), content_type="application/json").status_code == 201
    assert RunCard.objects.count() == 3


def test_migration_0006_classifies_stored_hashes(steward, public_version, curator):
    edited = import_corpus(
        data=corpus_bytes(mixed_entries(), id="edited-set"),
        organization=steward,
        actor=None,
    ).version
    add_entry(actor=curator, version=edited, data=GUESSED)
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


def test_migration_0008_keys_every_version_holding_secret_entries_and_its_cards(steward, public_version,
                                                                               governance_user):
    open_set = import_corpus(
        data=corpus_bytes([entry(1), entry(2, "diagnostic")], id="open-set"),
        organization=steward,
        actor=None,
    ).version
    card = make_card(public_version, development(public_version), sealed=False)
    card["dataset"]["sha256"] = public_version.sha256
    card["fingerprint"] = "0" * 64
    stored = submit_run_card(body=body(seal(card)), actor=governance_user)
    _, discrepancies = check_fingerprint(card)
    # As 0006 left them: the imported file's hash public, the card's fingerprint and discrepancies over it.
    DatasetVersion.objects.filter(pk=public_version.pk).update(public_sha256=public_version.sha256)
    RunCard.objects.filter(pk=stored.pk).update(fingerprint=compute_fingerprint(card),
                                                discrepancies=[d.as_dict() for d in discrepancies])
    migration = importlib.import_module("corpus.migrations.0008_public_sha256_keyed_for_secret_entries")
    migration.key_public_hashes(apps, None)
    public_version.refresh_from_db()
    open_set.refresh_from_db()
    stored.refresh_from_db()
    keyed = keyed_content_hash(public_version.sha256)
    assert (public_version.sha256_source, public_version.public_sha256) == ("file", keyed)
    assert open_set.public_sha256 == open_set.sha256
    assert stored.fingerprint == public_fingerprint(card, keyed)
    assert [d["path"] for d in stored.discrepancies] == ["fingerprint"]
    for kept in (public_version.sha256, compute_fingerprint(card)):
        assert kept not in json.dumps(stored.discrepancies)


# --- the fingerprint of a card pinning a hash kept from the public ------------------------------------------

def development(version):
    return list(Entry.objects.filter(version=version, segment="development").order_by("position"))


def public_fingerprint(card, dataset_sha256):
    components = fingerprint_components(card)
    components["dataset_sha256"] = dataset_sha256
    return components_hash(components)


def string_form(card):
    card["fingerprint"] = "0" * 64  # a discrepancy whose recomputed value is the fingerprint over the real hash
    return [compute_fingerprint(card)]


def object_form(card):
    components = {**fingerprint_components(card), "model_slug": "another-model"}
    card["fingerprint"] = {"hash": "0" * 64, "components": components, "version": 1}
    return [components_hash(components)]


def object_form_without_the_hash(card):
    components = {**fingerprint_components(card), "dataset_sha256": "f" * 64}
    card["fingerprint"] = {"hash": components_hash(components), "components": components, "version": 1}
    return []


@pytest.fixture(params=[string_form, object_form, object_form_without_the_hash],
                ids=["string", "object", "object-with-another-hash"])
def steward_card(request, edited, governance_user):
    """A public card by the steward's governance staff pinning the real hash, its own fingerprint disagreeing
    with it; with everything that is, or hashes, that real hash."""
    card = make_card(edited, development(edited), sealed=False)
    card["dataset"]["sha256"] = edited.sha256
    assert edited.sha256 != edited.public_sha256
    kept = [edited.sha256, compute_fingerprint(card), *request.param(card)]
    stored = submit_run_card(body=body(seal(card)), actor=governance_user)
    assert stored.status == RunCard.Status.READY and stored.discrepancies
    return stored, card, kept


def test_the_card_page_and_the_api_show_no_fingerprint_over_a_hash_kept_from_the_viewer(
        client, edited, steward_card, speaker, maintainer, governance_user):
    stored, card, kept = steward_card
    assert stored.fingerprint == public_fingerprint(card, edited.public_sha256)
    for user in (None, speaker, maintainer, governance_user):
        if user is not None:
            client.force_login(user)
        shown = client.get(reverse("leaderboard:card", args=[stored.public_id])).content.decode()
        shown += client.get(f"/api/v1/run-cards/{stored.public_id}/").content.decode()
        assert stored.fingerprint in shown and "disagree" in shown
        for value in kept:
            assert value not in shown, value


def test_a_public_card_of_the_same_setup_shares_the_fingerprint(client, edited, steward_card, speaker):
    stored, _, _ = steward_card
    card = make_card(edited, development(edited), sealed=False)
    card["dataset"]["sha256"] = edited.public_sha256
    reproduction = submit_run_card(body=body(seal(card)), actor=speaker)
    assert reproduction.fingerprint == stored.fingerprint == compute_fingerprint(card)
    rows = client.get(LEGACY_API).json()["results"]
    assert [row["cards_in_group"] for row in rows] == [2]


def test_the_admin_shows_neither_the_fingerprint_nor_its_components(client, steward_card, maintainer):
    stored, card, kept = steward_card
    client.force_login(maintainer)
    shown = "".join(client.get(url).content.decode() for url in (
        "/admin/leaderboard/runcard/", f"/admin/leaderboard/runcard/{stored.pk}/change/"))
    assert str(stored.run_id) in shown
    for value in [*kept, stored.fingerprint, card["system_prompt_sha256"]]:
        assert value not in shown, value
