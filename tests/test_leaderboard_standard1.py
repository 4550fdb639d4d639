"""standard/1 on the leaderboard: the default ranking by corpus chrF++ with its 95 % bootstrap interval, sacreBLEU
signature and rank clusters; rows grouped by the card's own (verified) fingerprint; claimed scores that the
results do not reproduce shown and ranked as recomputed; the language-pair filter in any spelling."""

import hashlib
import json

import numpy as np
import pytest

from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard import ranking, verification
from leaderboard.models import RunCard
from leaderboard.services import submit_run_card

from .cards import body, make_card, seal
from .conftest import corpus_bytes, entries_of, entry, grant_all_consents, published_version

pytestmark = pytest.mark.django_db

STANDARD = "standard/1"


@pytest.fixture
def version(steward):
    entries = [entry(n, "development", difficulty=1 + n % 3, domain="medical" if n <= 15 else "legal")
               for n in range(1, 31)]
    return published_version(steward, entries)


def card_for(version, **options) -> dict:
    options.setdefault("scoring_standard", STANDARD)
    return make_card(version, entries_of(version), **options)


def submit(card: dict, user) -> RunCard:
    return submit_run_card(body=body(card), actor=user)


def rows(client, **params) -> list[dict]:
    response = client.get("/api/v1/leaderboard/", params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def v2_fingerprint(card: dict, **extras) -> dict:
    """A harness v2 fingerprint: the v1 components as the card gives them, plus v2 extras, hashed as given."""
    components = verification.fingerprint_components(card) | {
        "api_provider": "openrouter", "endpoint_host_sha256": "cd" * 32, "max_tokens": 512,
        "method_version": "1.0.0", "method_sha256": "ef" * 32} | extras
    text = json.dumps(components, sort_keys=True, ensure_ascii=False)
    return {"hash": hashlib.sha256(text.encode("utf-8")).hexdigest(), "components": components, "version": 2}


def worse(entry_row) -> str:
    return entry_row.reference.replace("reference", "referense")


# ---------------------------------------------------------------------------------------------------------
# Identity: the card's own fingerprint
# ---------------------------------------------------------------------------------------------------------

def test_rows_group_by_the_cards_own_v2_fingerprint(client, version, speaker):
    """Same v1 setup, two method versions: two setups. The same v2 fingerprint twice: one row of two runs."""
    first = card_for(version, predict=worse)
    first["fingerprint"] = v2_fingerprint(first)
    again = card_for(version)
    again["fingerprint"] = v2_fingerprint(again)
    other = card_for(version)
    other["fingerprint"] = v2_fingerprint(other, method_version="2.0.0")
    stored = [submit(seal(card), speaker) for card in (first, again, other)]
    assert [card.setup_fingerprint for card in stored] == [first["fingerprint"]["hash"]] * 2 + [
        other["fingerprint"]["hash"]]
    assert len({card.fingerprint for card in stored}) == 1, "the public v1 fingerprint is one and the same"
    listed = rows(client)
    assert len(listed) == 2 and sorted(row["cards_in_group"] for row in listed) == [1, 2]
    best = next(row for row in listed if row["cards_in_group"] == 2)
    assert best["id"] == str(stored[1].public_id), "the better run of the setup"
    page = client.get(f"/leaderboard/cards/{stored[1].public_id}/").content.decode()
    assert str(stored[0].public_id) in page and str(stored[2].public_id) not in page


def test_a_fingerprint_that_does_not_verify_groups_by_the_recomputed_one(version, speaker):
    card = card_for(version)
    card["fingerprint"] = v2_fingerprint(card)
    card["fingerprint"]["hash"] = "00" * 32
    stored = submit(seal(card), speaker)
    assert stored.setup_fingerprint == stored.fingerprint == verification.compute_fingerprint(card)
    plain = card_for(version, model_slug="plain")
    plain["fingerprint"] = verification.compute_fingerprint(plain).upper()
    assert submit(seal(plain), speaker).setup_fingerprint == verification.compute_fingerprint(plain)


def test_a_card_pinning_a_hidden_hash_keeps_the_public_fingerprint(steward, governance_user):
    entries = [entry(n, "development") for n in range(1, 4)] + [entry(n, "gold_standard") for n in range(4, 9)]
    stored = import_corpus(data=corpus_bytes(entries, id="gold-set"), organization=steward, actor=None).version
    grant_all_consents(stored.dataset)
    assert stored.public_sha256 != stored.sha256
    card = make_card(stored, list(Entry.objects.filter(version=stored, segment="gold_standard")),
                     scoring_standard=STANDARD)
    card["dataset"]["sha256"] = stored.sha256  # the real hash, which the steward's readers are shown
    card["fingerprint"] = v2_fingerprint(card)
    saved = submit(seal(card), governance_user)
    assert saved.setup_fingerprint == saved.fingerprint == verification.public_fingerprint(card, stored.public_sha256)
    assert card["fingerprint"]["hash"] not in json.dumps(rows_of(saved))


def rows_of(card: RunCard) -> list:
    from django.test import Client

    return Client().get("/api/v1/leaderboard/", {"dataset": card.dataset_version.dataset.identifier}).json()["results"]


# ---------------------------------------------------------------------------------------------------------
# Truth: recomputed when the claim disagrees
# ---------------------------------------------------------------------------------------------------------

def test_a_claimed_chrf_the_results_do_not_give_is_shown_and_ranked_as_recomputed(client, version, speaker):
    honest = submit(card_for(version, model_slug="honest", predict=lambda e: e.reference[:-1]), speaker)
    inflated = card_for(version, model_slug="inflated", predict=worse)
    true_score = inflated["scores"]["chrf_plus_plus"]
    inflated["scores"]["chrf_plus_plus"] = 99.5
    stored = submit(seal(inflated), speaker)
    assert stored.primary_recomputed and stored.leaderboard_chrf_plus_plus == pytest.approx(true_score)
    listed = rows(client)
    assert [row["model"] for row in listed] == ["honest-2026", "inflated-2026"]
    assert listed[1]["chrf_plus_plus"] == pytest.approx(true_score)
    assert listed[1]["recomputed_score"] == {"metric": "chrf_plus_plus", "claimed": 99.5,
                                             "recomputed": pytest.approx(true_score)}
    assert listed[0]["recomputed_score"] is None and honest.chrf_ci_source == "recomputed"
    assert listed[1]["chrf_ci"]["source"] == "recomputed", "the card's own interval is of the claim"
    page = " ".join(client.get("/leaderboard/").content.decode().split())
    assert f"claimed 99.50, recomputed {true_score:.2f}" in page
    within = card_for(version, model_slug="rounded", predict=worse)
    within["scores"]["chrf_plus_plus"] += 0.04
    assert not submit(seal(within), speaker).primary_recomputed, "within ±0.05 the claim stands"


def test_a_legacy_composite_is_recomputed_when_its_inputs_disagree(client, version, speaker):
    card = make_card(version, entries_of(version), predict=worse, composite=0.95, model_slug="legacy")
    card["scores"]["chrf_plus_plus"] = 100.0
    stored = submit(seal(card), speaker)
    recomputed = verification.recompute_scores(card["results"])
    corrected = verification.legacy_composite({**card["scores"], "chrf_plus_plus": recomputed["chrf_plus_plus"]},
                                              fst_available=False)
    expected = round(0.95 + corrected - verification.legacy_composite(card["scores"], fst_available=False), 4)
    assert stored.primary_recomputed and stored.leaderboard_composite == expected < 0.95
    row = rows(client, standard="legacy-composite")[0]
    assert row["composite"] == expected and row["recomputed_score"]["metric"] == "composite"
    assert row["cost_adjusted"] == verification.cost_adjusted(expected, 0.002)
    honest = submit(make_card(version, entries_of(version), composite=0.7, model_slug="other"), speaker)
    assert not honest.primary_recomputed and honest.leaderboard_composite == 0.7, "agreeing inputs: the claim stands"


# ---------------------------------------------------------------------------------------------------------
# standard/1 first: interval, signature, default
# ---------------------------------------------------------------------------------------------------------

def test_the_default_leaderboard_is_standard_1_by_chrf_and_each_standard_ranks_apart(client, version, speaker):
    submit(card_for(version, model_slug="modern", predict=worse), speaker)
    submit(make_card(version, entries_of(version), composite=0.9, model_slug="legacy"), speaker)
    listed = rows(client)
    assert [(row["model"], row["scoring_standard"]) for row in listed] == [("modern-2026", STANDARD)]
    page = " ".join(client.get("/leaderboard/").content.decode().split())
    standard_1, legacy = page.split('<span class="muted standard">legacy-composite</span>')
    assert "ranked by <strong>chrF++</strong>" in standard_1 and "modern-2026" in standard_1
    assert "legacy-2026" not in standard_1 and "legacy-2026" in legacy and "modern-2026" not in legacy
    assert "nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no" in standard_1
    assert [row["model"] for row in rows(client, standard="legacy-composite")] == ["legacy-2026"]


def test_without_standard_1_rows_the_api_answers_the_legacy_ranking_the_page_shows(client, version, speaker):
    """A version whose cards are all legacy-composite: the page shows their ranking, and the API without a `standard`
    answers it too instead of an empty standard/1 ranking; asked for standard/1, it answers that, empty."""
    submit(make_card(version, entries_of(version), composite=0.9, model_slug="legacy"), speaker)
    answer = client.get("/api/v1/leaderboard/").json()
    assert answer["ranking"]["standard"] == "legacy-composite"
    assert client.get("/api/v1/leaderboard/?standard=").json()["ranking"]["standard"] == "legacy-composite"
    assert [row["model"] for row in answer["results"]] == ["legacy-2026"]
    assert "legacy-2026" in client.get("/leaderboard/").content.decode()
    assert client.get("/api/v1/leaderboard/?standard=standard/1").json()["results"] == []


def test_the_cards_own_interval_and_signature_are_shown(client, version, speaker):
    card = card_for(version, predict=worse)
    score = card["scores"]["chrf_plus_plus"]
    card["scores"]["confidence_intervals"] = {"corpus_chrf": {"metric_name": "corpus_chrf", "score": score,
                                                              "ci_lower": score - 3.5, "ci_upper": score + 2.25}}
    card["scores"]["sacrebleu_signatures"] = {"chrf": "nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.5.1"}
    submit(seal(card), speaker)
    row = rows(client)[0]
    assert row["chrf_ci"] == {"lower": pytest.approx(score - 3.5), "upper": pytest.approx(score + 2.25),
                              "source": "card"}
    assert row["sacrebleu_signature"].endswith("version:2.5.1")


def test_an_interval_that_does_not_hold_the_score_is_recomputed(version, speaker):
    card = card_for(version, predict=worse)
    card["scores"]["confidence_intervals"] = {"corpus_chrf": {"ci_lower": 1.0, "ci_upper": 2.0}}
    assert submit(seal(card), speaker).chrf_ci_source == "recomputed"


def straightforward_interval(statistics: list[list[int]], replicates=1000, seed=12345) -> tuple[float, float]:
    """The harness's resamples (random.Random(seed).randint, n draws a replicate), scored one replicate at a time in
    plain Python (chrF++ as sacrebleu defines it, without sacrebleu), and the harness's percentile indices."""
    import random

    rng = random.Random(seed)
    draws = [[rng.randint(0, len(statistics) - 1) for _ in statistics] for _ in range(replicates)]
    scores = []
    for draw in draws:
        totals = [0] * 24
        for index in draw:
            totals = [a + b for a, b in zip(totals, statistics[index], strict=True)]
        precisions, recalls = [], []
        for order in range(8):
            hyp, ref, match = totals[3 * order:3 * order + 3]
            if hyp > 0 and ref > 0:
                precisions.append(match / hyp)
                recalls.append(match / ref)
        p = sum(precisions) / len(precisions) if precisions else 0.0
        r = sum(recalls) / len(recalls) if recalls else 0.0
        scores.append(100 * 5 * p * r / (4 * p + r) if p + r else 0.0)
    scores.sort()
    return scores[int(replicates * 0.025)], scores[int(replicates * 0.975) - 1]


def test_the_recomputed_interval_is_a_seeded_bootstrap_of_the_entries(version, speaker):
    card = card_for(version, predict=lambda e: worse(e) if int(e.entry_id) % 3 else "x")
    first = submit(seal(card), speaker)
    statistics = verification.entry_statistics(card["results"])
    low, high = straightforward_interval(statistics)
    assert first.chrf_ci_source == "recomputed"
    assert (first.chrf_ci_lower, first.chrf_ci_upper) == (round(low, 4), round(high, 4))
    assert first.chrf_ci_lower < first.leaderboard_chrf_plus_plus < first.chrf_ci_upper
    card["run_id"] += "-again"
    again = submit(seal(card), speaker)
    assert (again.chrf_ci_lower, again.chrf_ci_upper) == (first.chrf_ci_lower, first.chrf_ci_upper), "deterministic"
    assert first.chrf_signature == ranking.our_signature()


def test_vectorised_chrf_is_sacrebleus(version):
    from sacrebleu.metrics import CHRF

    card = card_for(version, predict=lambda e: worse(e)[: 5 + int(e.entry_id)])
    statistics = np.array(verification.entry_statistics(card["results"]))
    metric = CHRF(word_order=2)
    for row in [*statistics, statistics.sum(axis=0), np.zeros(24, dtype=int)]:
        assert ranking.chrf_from_totals(row) == pytest.approx(metric._compute_f_score(list(row)), abs=1e-9)


# ---------------------------------------------------------------------------------------------------------
# Rank clusters
# ---------------------------------------------------------------------------------------------------------

def near(entry_row) -> str:
    """`worse`, except on one entry."""
    return worse(entry_row) if int(entry_row.entry_id) != 1 else entry_row.reference.replace("reference", "referenze")


def test_near_identical_systems_share_a_cluster_and_a_clearly_better_one_is_alone(client, version, speaker):
    submit(card_for(version, model_slug="twin-a", predict=worse), speaker)
    submit(card_for(version, model_slug="twin-b", predict=near), speaker)
    submit(card_for(version, model_slug="best"), speaker)
    listed = rows(client)
    assert [row["model"] for row in listed][0] == "best-2026"
    assert [row["rank_cluster"] for row in listed] == [1, 2, 2]
    page = client.get("/leaderboard/").content.decode()
    assert "Rank cluster" in page
    assert [row["rank_cluster"] for row in rows(client, domain="medical")] == [1, 2, 2]
    assert all(row["rank_cluster"] is None for row in rows(client, standard="legacy-composite"))


def test_rank_clusters_pair_only_the_entries_both_cards_scored(version):
    """A card that left out the entry on which the twins differ ties with both; one sharing nothing starts anew."""
    entries = entries_of(version)
    statistics = {name: verification.entry_statistics(make_card(version, entries, predict=predict)["results"])
                  for name, predict in (("twin", worse), ("near", near))}
    ids = np.array([e.pk for e in entries])

    def packed(name, keep=slice(None)):
        return ranking.unpack_statistics(ranking.pack_statistics(ids[keep], np.array(statistics[name])[keep]))

    assert ranking.rank_clusters([packed("twin"), packed("near", slice(1, None))]) == [1, 1]
    assert ranking.rank_clusters([packed("twin", slice(0, 10)), packed("near", slice(10, None))]) == [1, 2]
    assert ranking.rank_clusters([packed("twin"), None, packed("near")]) == [1, None, 2]


@pytest.mark.parametrize("cards", [3, 40])
def test_query_count_does_not_grow_with_standard_1_cards(client, version, speaker, django_assert_max_num_queries,
                                                         cards):
    entries = entries_of(version)
    for index in range(cards):
        submit(make_card(version, entries, scoring_standard=STANDARD, model_slug=f"m{index}",
                         predict=lambda e, i=index: worse(e) if int(e.entry_id) > i % 30 else e.reference), speaker)
    for url, params in (("/api/v1/leaderboard/", {}), ("/api/v1/leaderboard/", {"domain": "legal"}),
                        ("/leaderboard/", {}), ("/leaderboard/", {"language_pair": "eng>crk"})):
        with django_assert_max_num_queries(12):
            assert client.get(url, params).status_code == 200
    assert all(row["rank_cluster"] for row in rows(client))


def test_per_entry_statistics_never_leave_the_server(client, version, speaker):
    stored = submit(card_for(version, predict=worse), speaker)
    assert stored.chrf_statistics
    row = rows(client)[0]
    assert "chrf_statistics" not in row and set(row["chrf_ci"]) == {"lower", "upper", "source"}
    detail = client.get(f"/api/v1/run-cards/{stored.public_id}/").json()
    assert "chrf_statistics" not in json.dumps(detail)


# ---------------------------------------------------------------------------------------------------------
# Language pair in any spelling
# ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("pair", ["eng>crk", "EN→CRK", "en->crk", "en-CA → crk"])
def test_the_language_pair_filter_reads_any_spelling(client, version, speaker, pair):
    assert version.language_pair == "EN→CRK"
    submit(card_for(version), speaker)
    assert len(rows(client, language_pair=pair)) == 1
    assert b"demo-model-2026" in client.get("/leaderboard/", {"language_pair": pair}).content


def test_another_pair_lists_nothing_and_a_non_pair_is_refused(client, version, speaker):
    submit(card_for(version), speaker)
    assert rows(client, language_pair="fra>crk") == []
    response = client.get("/api/v1/leaderboard/", {"language_pair": "Cree"})
    assert response.status_code == 400 and "eng>crk" in json.dumps(response.json(), ensure_ascii=False)
    assert "language_pair" in response.json()
    page = client.get("/leaderboard/", {"language_pair": "Cree"})
    assert page.status_code == 400 and "language_pair" in page.content.decode()
