"""Official and open rankings, each of one language pair and one dataset version (benchmark specification §6.4, §2.3,
§9.5): the default page picks the version with the most verified cards and shows every standard's ranking that has
rows; rankings across versions or pairs only when asked for, and labelled; one community-review badge."""

import pytest
from django.utils import timezone

from corpus.models import Entry
from corpus.services import create_next_version
from leaderboard.models import RunCard
from leaderboard.services import submit_run_card

from .cards import body, make_card, seal
from .conftest import entry, publish, published_version

pytestmark = pytest.mark.django_db

STANDARD = "standard/1"


@pytest.fixture
def version(steward):
    entries = [entry(n, "development") for n in range(1, 11)] + [entry(n, "gold_standard") for n in range(11, 17)]
    return published_version(steward, entries)


def public(version):
    return list(Entry.objects.filter(version=version, segment="development").order_by("position"))


def secret(version):
    return list(Entry.objects.filter(version=version, segment="gold_standard").order_by("position"))


def submit(version, entries, user, **options) -> RunCard:
    return submit_run_card(body=body(make_card(version, entries, **options)), actor=user)


def lying(version, entries, user, model_slug) -> RunCard:
    card = make_card(version, entries, model_slug=model_slug, scoring_standard=STANDARD,
                     predict=lambda e: f"guess {e.entry_id}")
    for result in card["results"]:
        result["expected"] = result["predicted"]
    return submit_run_card(body=body(seal(card)), actor=user)


def page_text(client, **params) -> str:
    return " ".join(client.get("/leaderboard/", params).content.decode().split())


def test_a_first_visitor_sees_rows_whenever_cards_exist(client, version, speaker):
    submit(version, public(version), speaker, composite=0.8, model_slug="legacy-only")
    page = page_text(client)
    assert "legacy-only-2026" in page and "No run card matches yet." not in page
    assert "Rankings of EN→CRK · test-en-crk 1.0" in page
    assert "The dataset version with the most run cards verified against its stored corpus (1)" in page


def test_official_and_open_rankings_are_apart(client, version, speaker, governance_user):
    submit(version, public(version), speaker, model_slug="developer", scoring_standard=STANDARD)
    submit(version, secret(version), governance_user, model_slug="steward-run", scoring_standard=STANDARD)
    page = page_text(client)
    official, open_ranking = page.split("Open ranking")
    assert "Official ranking" in official and "steward-run-2026" in official and "developer-2026" not in official
    assert "developer-2026" in open_ranking and "steward-run-2026" not in open_ranking

    answer = client.get("/api/v1/leaderboard/").json()
    assert answer["ranking"]["ranking"] == "official" and answer["ranking"]["picked"] is True
    assert [row["model"] for row in answer["results"]] == ["steward-run-2026"]
    assert answer["results"][0]["ranking"] == "official"
    counts = {(item["ranking"], item["standard"]): item["count"] for item in answer["rankings"]}
    assert counts[("official", STANDARD)] == 1 and counts[("open", STANDARD)] == 1
    assert [row["model"] for row in client.get("/api/v1/leaderboard/", {"ranking": "open"}).json()["results"]] == [
        "developer-2026"]


def test_one_version_at_a_time_and_across_versions_only_when_asked(client, version, speaker):
    from corpus.services import freeze_version

    submit(version, public(version), speaker, model_slug="first", scoring_standard=STANDARD)
    freeze_version(version=version, actor=None)
    second = create_next_version(version=version, new_version="2.0", actor=None)
    publish(second.dataset)
    for slug in ("second-a", "second-b"):
        submit(second, public(second), speaker, model_slug=slug, scoring_standard=STANDARD)

    default = page_text(client)
    assert "Rankings of EN→CRK · test-en-crk 2.0" in default  # two verified cards against one
    assert "second-a-2026" in default and "first-2026" not in default
    chosen = page_text(client, dataset="test-en-crk", version="1.0")
    assert "first-2026" in chosen and "second-a-2026" not in chosen
    assert "The dataset version with the most" not in chosen

    across = page_text(client, scope="pair", language_pair="eng>crk")
    assert "Every dataset version of eng&gt;crk" in across and "not directly comparable" in across
    assert "first-2026" in across and "second-a-2026" in across
    api = client.get("/api/v1/leaderboard/", {"scope": "pair", "language_pair": "EN→CRK"}).json()
    assert {row["dataset_version"] for row in api["results"]} == {"1.0", "2.0"}
    assert api["ranking"]["scope"] == "pair" and api["ranking"]["picked"] is False
    assert client.get("/api/v1/leaderboard/", {"scope": "pair"}).status_code == 400  # a pair scope needs its pair
    assert client.get("/api/v1/leaderboard/", {"scope": "galaxy"}).status_code == 400
    assert client.get("/api/v1/leaderboard/", {"ranking": "secret"}).status_code == 400


def test_the_default_version_counts_verified_cards_only(client, version, speaker):
    from corpus.services import freeze_version

    submit(version, public(version), speaker, model_slug="honest-1", scoring_standard=STANDARD)
    submit(version, public(version), speaker, model_slug="honest-2", scoring_standard=STANDARD)
    freeze_version(version=version, actor=None)
    second = create_next_version(version=version, new_version="2.0", actor=None)
    publish(second.dataset)
    for slug in ("liar-1", "liar-2", "liar-3"):
        lying(second, public(second), speaker, slug)
    assert "Rankings of EN→CRK · test-en-crk 1.0" in page_text(client)


def test_the_community_review_outcome_is_one_badge(client, version, speaker):
    card = submit(version, public(version), speaker, composite=0.8, model_slug="reviewed")
    page = page_text(client)
    assert "provisional — awaiting community review" in page
    RunCard.objects.filter(pk=card.pk).update(community_review="approve", community_reviewed_at=timezone.now())
    page = page_text(client)
    assert "community review: approved" in page and "provisional — awaiting community review</span>" not in page
    [row] = client.get("/api/v1/leaderboard/", {"standard": "legacy-composite"}).json()["results"]
    assert row["review_badge"] == "approved" and row["quality_tier_provisional"] is False
    RunCard.objects.filter(pk=card.pk).update(community_review="reject")
    [row] = client.get("/api/v1/leaderboard/", {"standard": "legacy-composite"}).json()["results"]
    assert row["review_badge"] == "not_approved"
