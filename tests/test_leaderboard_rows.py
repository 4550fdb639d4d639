"""The leaderboard's rows as the page writes them (leaderboard/templatetags/ranking_rows.py) and its pages computed
in one statement per ranking (leaderboard/selectors/pages.py): the same numbers floatformat wrote, what a row holds
escaped, every badge in the reader's language, counts and pages of every ranking, a page past the end."""

import datetime
import random

import pytest
from django.template.defaultfilters import floatformat
from django.urls import reverse
from django.utils import translation

from leaderboard.selectors import LeaderboardQuery
from leaderboard.templatetags.ranking_rows import fixed, ranking_rows

from .test_leaderboard import LEGACY, submit
from .test_leaderboard import version as version  # noqa: F401 - fixture


@pytest.mark.parametrize("language, separator", [("en", "."), ("fr-ca", ",")])
def test_fixed_writes_what_floatformat_writes(language, separator):
    numbers = random.Random(12345)
    values = [0, 1, 0.0, -0.0, 0.5, 0.0005, 0.00049, 0.1235, 2.675, 99.95, 1e-07, 123456.789, -0.0001, -1.5,
              *(numbers.random() for _ in range(300)), *(numbers.uniform(0, 100) for _ in range(300)),
              *(numbers.uniform(0, 0.01) for _ in range(100))]
    with translation.override(language):
        for value in values:
            for places in (1, 2, 3, 4):
                assert fixed(value, places, separator) == floatformat(value, places), (value, places)
        assert fixed(None, 3, separator) == ""
        assert fixed(float("inf"), 3, separator) == floatformat(float("inf"), 3)


ROW = {
    "rank": 1, "id": "1b2c3d4e-0000-0000-0000-000000000001", "method": "<script>alert(1)</script>",
    "method_class": "raw-llm", "dependency_class": "A2", "external_dependency": True, "model": "m'odel<1>",
    "configuration": {"model": "m", "condition": "c", "temperature": 0.7, "tools_enabled": ["<b>"],
                      "system_prompt_sha256": "abcdef123456"},
    "composite": 0.61234, "chrf_plus_plus": 45.678, "chrf_ci": {"lower": 40.05, "upper": 50.15, "source": "card"},
    "sacrebleu_signature": None, "recomputed_score": {"metric": "composite", "claimed": 0.9, "recomputed": 0.61234},
    "rank_cluster": None, "fst_acceptance_rate": None, "exact_match_rate": 0.2, "semantic_score": 0.5555,
    "cost_per_entry_usd": 0.0005, "avg_latency_seconds": 1.0, "cost_adjusted": 0.333333, "quality_tier": "Fluent",
    "review_badge": "provisional", "quality_tier_provisional": True,
    "community_review": {"outcome": "not_approved", "decided_at": datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC),
                         "ratings_withdrawn_since": 2},
    "verification_tier": "GDS Verified", "scoring_standard": "legacy-composite", "dataset": "d",
    "dataset_version": "1", "language_pair": "EN→CRK", "ranking": "open", "segment": "development",
    "entries_scored": 5, "cards_in_group": 3, "discrepancy_count": 2,
    "date": datetime.datetime(2026, 3, 4, 23, 30, tzinfo=datetime.UTC), "withdrawn": True, "unverified": True,
    "corpus_mismatches": 20, "development_data": {"used": True, "uses": ["few-shot"], "entries": "all"},
    "verified_against_corpus": False, "labels": [],
}


def test_a_row_escapes_what_it_holds_and_writes_every_badge():
    html = " ".join(str(ranking_rows([ROW], LeaderboardQuery.from_params({**LEGACY, "domain": "legal"}))).split())
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "m&#x27;odel&lt;1&gt;" in html and "tools: &lt;b&gt;" in html
    for text in ("withdrawn", "unverified: no per-entry rows", "not verified: 20 results differ from the stored corpus",
                 "(3 runs)", "claimed 0.900, recomputed 0.612", "2 disagreements", "prompt <span class=\"mono\">abcdef",
                 "T=0.7", "used development entries: few-shot", "5 entries scored", "[40.1–50.2]", "$0.0005", "1.00 s",
                 "provisional — awaiting community review", "community review: not approved, 2 Jan. 2026",
                 "evidence changed after the decision: 2 ratings withdrawn", "Dependency class A2",
                 "external dependency", "2026-03-04", "95% bootstrap interval, as the card gives it",
                 'class="num composite group-start sorted"'):
        assert text in html, text
    address = reverse("leaderboard:card", args=[ROW["id"]])
    assert f'<a href="{address}">' in html and "00000000-0000" not in html, "each row links to its own card"


def test_a_row_in_french():
    with translation.override("fr-ca"):
        html = " ".join(str(ranking_rows([ROW], LeaderboardQuery.from_params({"standard": "standard/1"}))).split())
    assert "T=0,7" in html and "Intervalle bootstrap à 95 %, tel que le donne la fiche" in html
    assert 'class="num cluster">—' in html and 'class="num chrf sorted"' in html
    assert "déclaré 0,900, recalculé 0,612" in html and "Dépendances" in html


@pytest.mark.django_db
def test_each_ranking_is_counted_and_a_page_past_the_end_shows_the_last(client, version, speaker):  # noqa: F811
    for index in range(3):
        submit(version, speaker, composite=0.5 + index / 10, model_slug=f"p{index}")
    answer = client.get("/api/v1/leaderboard/", {**LEGACY, "ranking": "open"}).json()
    counts = {(item["ranking"], item["standard"]): item["count"] for item in answer["rankings"]}
    assert counts == {("official", "standard/1"): 0, ("official", "legacy-composite"): 0,
                      ("open", "standard/1"): 0, ("open", "legacy-composite"): 3}
    assert [item["ranking"] for item in answer["rankings"]] == ["official", "official", "open", "open"]
    page = client.get("/leaderboard/", {**LEGACY, "ranking": "open", "page": 9}).content.decode()
    assert "p2-2026" in page and "Page 1 of 1" in page
    second = client.get("/api/v1/leaderboard/", {**LEGACY, "ranking": "open"}).json()
    assert second == answer, "the same answer from the cache"
