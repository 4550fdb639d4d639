"""Hostile input: deeply nested JSON, invalid UTF-8, NUL bytes, oversized bodies, markup in every text a
person can type (rendered escaped everywhere, the admin included), and an import that fails midway."""

import json
import uuid

import pytest

from corpus.models import Dataset, DatasetVersion, Entry
from corpus.services import import_corpus
from review import services as review_services
from review.models import Assignment, Campaign, Rating

from .conftest import corpus_bytes, entry
from .review_setup import gold_card, settings_for, speakers

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert('x')</script>"
JSON_ENDPOINTS = ("/api/v1/run-cards/", "/api/v1/methods/", "/api/v1/corpus-imports/?org=steward")


def nested(depth: int) -> bytes:
    return ("[" * depth + "]" * depth).encode()


@pytest.mark.parametrize("url", JSON_ENDPOINTS)
@pytest.mark.parametrize("payload, what", [
    (nested(100_000), "deeply nested JSON"),
    (b'{"run_id": "\xff\xfe"}', "invalid UTF-8"),
    (b'{"run_id": "a\\u0000b"}', "a NUL character"),
    (b"\x00\x00\x00", "NUL bytes"),
    (b"", "an empty body"),
])
def test_hostile_json_gets_a_400_that_says_what_was_wrong(client, governance_user, url, payload, what):
    client.force_login(governance_user)
    response = client.post(url, payload, content_type="application/json")
    assert response.status_code == 400, (what, response.status_code, response.content[:300])
    body = response.json()
    message = json.dumps(body)
    assert body and any(key in body for key in ("detail", "problems", "error")), (what, message)
    assert "Traceback" not in message


def test_an_oversized_body_is_refused_before_it_is_read(client, governance_user, settings):
    settings.RUN_CARD_MAX_BYTES = 1024
    client.force_login(governance_user)
    response = client.post("/api/v1/run-cards/", b"{" + b" " * 4096 + b"}", content_type="application/json")
    assert response.status_code in (400, 413)
    assert "the limit is 1,024 bytes" in response.content.decode()


def test_an_import_that_fails_midway_leaves_nothing_behind(steward, monkeypatch):
    from corpus.services import imports

    real_insert = imports.insert_entries

    def insert_then_fail(version, rows):
        real_insert(version, list(rows)[:2])
        raise ConnectionError("the database went away mid-import")

    monkeypatch.setattr(imports, "insert_entries", insert_then_fail)
    with pytest.raises(ConnectionError):
        import_corpus(
            data=corpus_bytes([entry(n) for n in range(1, 6)], id="interrupted"),
            organization=steward,
            actor=None,
        )
    assert not Dataset.objects.filter(identifier="interrupted").exists()
    assert not DatasetVersion.objects.exists() and not Entry.objects.exists()


def test_markup_typed_by_people_is_shown_as_text_everywhere(client, steward, governance_user, maintainer):
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 2)
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(
            pool, title=f"Spring {SCRIPT}", sample_size=4, ratings_per_item=2),
    )
    assignment = Assignment.objects.filter(campaign=campaign, speaker=pool[0]).first()
    review_services.record_rating(
        item=assignment.public_id,
        actor=pool[0],
        submission=review_services.Submission(
            uuid.uuid4(), "gist", frozenset({"hallucination"}), comment=SCRIPT,
            correction=f"=cmd|' /C calc'!A0 {SCRIPT}"),
    )
    review_services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="reject",
        rationale=f"Because {SCRIPT}",
    )
    client.force_login(governance_user)
    pages = [f"/review/campaigns/{campaign.public_id}/", f"/review/campaigns/{campaign.public_id}/decision/",
             "/review/campaigns/", f"/orgs/{steward.slug}/dashboard/", f"/orgs/{steward.slug}/audit/"]
    for url in pages:
        html = client.get(url).content.decode()
        assert SCRIPT not in html, url
        assert "&lt;script&gt;" in html, url
    export = client.get(f"/review/campaigns/{campaign.public_id}/ratings.csv").content.decode("utf-8-sig")
    assert "'=cmd|" in export, "a formula typed by a speaker stays text in a spreadsheet"
    audit_csv = client.get(f"/orgs/{steward.slug}/audit/?format=csv").content.decode("utf-8")
    assert not any(line.startswith("=") for line in audit_csv.splitlines())
    client.force_login(maintainer)
    admin = client.get("/admin/review/campaign/").content.decode()
    assert SCRIPT not in admin and "&lt;script&gt;" in admin
    assert Rating.objects.count() == 1 and Campaign.objects.count() == 1


def test_nul_in_a_rating_is_refused_not_a_server_error(client, steward, governance_user):
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 2)
    campaign = review_services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=4,
                                                                                      ratings_per_item=2),
    )
    assignment = Assignment.objects.filter(campaign=campaign, speaker=pool[0]).first()
    client.force_login(pool[0])
    response = client.post(f"/review/items/{assignment.public_id}/",
                           {"client_id": str(uuid.uuid4()), "value": "gist", "comment": "bad\x00byte"})
    assert response.status_code == 400 and b"Null characters are not allowed" in response.content
    assert not Rating.objects.exists()
