"""A developer's whole journey with the upstream harness: download a public corpus from the app, run on the
downloaded bytes (the card pins their SHA-256, as the harness does), publish through the harness intake, and find
the card on the leaderboard, its install read and its page."""

import hashlib
import json
from types import SimpleNamespace

import pytest

from accounts.models import User
from accounts.services import create_api_token
from corpus.models import DatasetVersion
from corpus.services import import_corpus
from leaderboard.models import RunCard

from .conftest import SECRET_MARK, corpus_bytes, entry, publish
from .harness_fixtures import harness_card
from .test_harness_intake import BASE, headers, publish_like_the_harness

pytestmark = pytest.mark.django_db


@pytest.fixture
def mixed_version(steward):
    """Public development entries beside gold_standard and held_out ones: no download of it can hold them all."""
    entries = [entry(n, "development", difficulty=1 + n % 3, domain="conv") for n in range(1, 61)]
    entries += [entry(n, "gold_standard", domain="medical") for n in range(900, 905)]
    entries += [entry(950, "held_out")]
    outcome = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None)
    publish(outcome.version.dataset)
    return outcome.version


def downloaded_entries(data: bytes):
    """The entries of a downloaded corpus file, as the harness's loader reads them."""
    corpus = json.loads(data)
    rows = corpus["entries"] if isinstance(corpus, dict) else corpus
    return [SimpleNamespace(entry_id=row["id"], source=row["source"],
                            reference=row.get("reference", row.get("target")), difficulty=row.get("difficulty"))
            for row in rows]


def test_download_run_and_publish_through_the_intake(client, mixed_version):
    developer = User.objects.create_user("developer@example.org", first_name="Dana", last_name="Developer")
    key = create_api_token(actor=developer)[1]
    client.force_login(developer)
    download = client.get(f"/datasets/versions/{mixed_version.pk}/export.json?public=1")
    assert download.status_code == 200
    data = b"".join(download.streaming_content) if download.streaming else download.content
    assert SECRET_MARK.encode() not in data
    again = client.get(f"/datasets/versions/{mixed_version.pk}/export.json?public=1")
    assert (b"".join(again.streaming_content) if again.streaming else again.content) == data  # byte-stable
    pin = hashlib.sha256(data).hexdigest()
    assert pin != mixed_version.sha256
    client.logout()

    card, rows = harness_card(mixed_version, downloaded_entries(data), sha256=pin)
    assert len(rows) == 60
    row, answers = publish_like_the_harness(client, key, card, rows)
    assert answers["row"].status_code == 201, answers["row"].json()
    assert [a.status_code for a in answers["entries"]] == [201, 201]
    stored = RunCard.objects.get()
    assert stored.dataset_version == DatasetVersion.objects.get(pk=mixed_version.pk)
    assert stored.status == "ready" and stored.hash_status == "verified" and not stored.is_secret
    assert str(stored.public_id) == row["id"] and stored.segment == "development"

    listed = client.get(f"{BASE}/run_cards?select=id,submitter,chrf_plus_plus,run_card&language_pair=eq.eng>crk",
                        **headers()).json()
    assert [r["id"] for r in listed] == [row["id"]] and listed[0]["submitter"] == developer.public_label
    assert listed[0]["run_card"]["dataset"]["sha256"] == pin
    page = client.get(f"/leaderboard/cards/{row['id']}/")
    assert page.status_code == 200 and b"acme/mt-small" in page.content
    assert client.get("/leaderboard/", {"language_pair": "eng>crk", "standard": "standard/1"}).status_code == 200


def test_a_card_pinned_to_the_public_download_scores_public_entries_only(client, mixed_version, governance_user):
    """Even the steward's governance staff, who see the secret entries, cannot hang one on the public pin."""
    from corpus.models import Entry

    client.force_login(governance_user)
    data = client.get(f"/datasets/versions/{mixed_version.pk}/export.json?public=1")
    data = b"".join(data.streaming_content) if data.streaming else data.content
    pin = hashlib.sha256(data).hexdigest()
    client.logout()
    secret = Entry.objects.get(version=mixed_version, entry_id="900")
    card, rows = harness_card(mixed_version, downloaded_entries(data)[:9] + [secret], sha256=pin)
    card["dataset"]["entry_count"] = 10
    from .cards import seal
    seal(card)
    body = json.dumps({"run_card": card, "entries": rows})
    from leaderboard.services import RunCardRejected, submit_run_card
    with pytest.raises(RunCardRejected) as refused:
        submit_run_card(actor=governance_user, body=body.encode())
    assert [p.path for p in refused.value.problems] == ["entries[9].entry_id"]
    assert "public download" in refused.value.problems[0].message
    assert RunCard.objects.count() == 0
