"""Run-card hash, fingerprint, recomputed aggregates, tolerances and the legacy composite (leaderboard.verification)."""

import copy
import hashlib
import json

import pytest
from sacrebleu.metrics import CHRF

from leaderboard.verification import (
    Discrepancy,
    card_hash,
    check_fingerprint,
    compare_scores,
    compute_fingerprint,
    cost_adjusted,
    fingerprint_components,
    legacy_composite,
    quality_tier,
    recompute_scores,
    subset_scores,
    verify_hash,
)

PROMPT = "Translate the English text into Plains Cree (SRO). Reply with the translation only."


def result(entry_id, source, expected, predicted, **fields):
    row = {
        "entry_id": entry_id, "source": source, "expected": expected, "raw_predicted": predicted,
        "predicted": predicted, "segment": "development", "difficulty": 1, "domain": "everyday",
        "exact_match": predicted == expected, "chrf_score": None, "bleu_score": None, "latency_s": 1.0,
        "cost_usd": 0.0004, "tool_call_count": 0, "error": None, "plugin_metrics": {}, "fst_valid": None,
        "equivalent_match": None, "semantic_verdict": None, "code_switching_detected": None,
        "hallucination_detected": None,
    }
    row.update(fields)
    return row


def make_card(**overrides):
    """A card shaped like the harness's, with the example entries of the benchmark specification (§2)."""
    card = {
        "run_id": "0b5c8f3e-8d2a-4f6e-9b1c-2a7d4e6f8a90",
        "harness_version": "0.2.1",
        "timestamp": "2026-03-02T14:05:11Z",
        "elapsed_seconds": 41.7,
        "model_slug": "google/gemini-2.5-flash",
        "model_id": "google/gemini-2.5-flash-001",
        "condition": "baseline",
        "temperature": 0.0,
        "system_prompt_sha256": hashlib.sha256(PROMPT.encode("utf-8")).hexdigest(),
        "system_prompt_used": PROMPT,
        "tools_enabled": False,
        "batch_size": 25,
        "dataset": {
            "id": "edtekla-dev-v1", "version": "1.0", "language_pair": "EN→CRK",
            "sha256": hashlib.sha256(b"corpus file bytes").hexdigest(), "entry_count": 3,
        },
        "scores": {
            "total": 3, "exact_matches": 2, "exact_match_rate": 0.6667, "chrf_plus_plus": 71.42,
            "fst_acceptance_rate": None, "composite": 0.5123, "errors": 0,
        },
        "totals": {
            "prompt_tokens": 1200, "completion_tokens": 90, "total_cost_usd": 0.0012, "cost_per_entry_usd": 0.0004,
        },
        "results": [
            result("1", "hello", "tânisi", "tânisi"),
            result("2", "dog", "atim", "atim"),
            result("3", "I see the dog", "niwâpamâw atim", "niwâpamâw atimwa", difficulty=2),
        ],
        "run_card_hash": "",
    }
    card.update(overrides)
    return card


def seal(card):
    card["run_card_hash"] = card_hash(card)
    return card


# --- hash ------------------------------------------------------------------------------------------------

def test_hash_follows_the_harness_recipe():
    card = make_card()
    expected = hashlib.sha256(
        json.dumps({**card, "run_card_hash": ""}, sort_keys=True, ensure_ascii=False).encode("utf-8")
    ).hexdigest()
    assert card_hash(card) == expected
    card["run_card_hash"] = expected
    assert card_hash(card) == expected  # the field itself is blanked while hashing
    assert verify_hash(card) == "verified"
    assert card["run_card_hash"] == expected  # hashing does not touch the card


def test_hash_is_independent_of_key_order_and_whitespace_of_the_file():
    card = seal(make_card())
    reparsed = json.loads(json.dumps(dict(reversed(list(card.items()))), indent=2, ensure_ascii=True))
    assert verify_hash(reparsed) == "verified"


def test_one_changed_score_breaks_the_seal():
    card = seal(make_card())
    card["scores"]["chrf_plus_plus"] = 71.43
    assert verify_hash(card) == "mismatch"


def test_zero_and_zero_point_zero_hash_differently():
    text = json.dumps(make_card(), ensure_ascii=False)
    as_float = json.loads(text)
    as_int = json.loads(text.replace('"temperature": 0.0', '"temperature": 0'))
    assert as_float["temperature"] == as_int["temperature"] == 0
    assert card_hash(as_float) != card_hash(as_int)
    as_float["run_card_hash"] = card_hash(as_float)
    as_int["run_card_hash"] = as_float["run_card_hash"]
    assert verify_hash(as_int) == "mismatch"


def test_non_ascii_text_is_hashed_as_utf8_not_escapes():
    card = make_card()
    text = json.dumps({**card, "run_card_hash": ""}, sort_keys=True, ensure_ascii=False)
    assert "niwâpamâw atim" in text
    assert card_hash(card) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    escaped = json.dumps({**card, "run_card_hash": ""}, sort_keys=True, ensure_ascii=True)
    assert card_hash(card) != hashlib.sha256(escaped.encode("utf-8")).hexdigest()


def test_unsealed_and_foreign_hashes():
    card = make_card()
    assert verify_hash(card) == "unsealed"
    del card["run_card_hash"]
    assert verify_hash(card) == "unsealed"
    card["run_card_hash"] = card_hash(card).upper()
    assert verify_hash(card) == "verified"
    card["run_card_hash"] = 12
    assert verify_hash(card) == "mismatch"


# --- fingerprint -----------------------------------------------------------------------------------------

def v1_components(card):
    return {
        "dataset_sha256": card["dataset"]["sha256"], "model_slug": card["model_slug"],
        "condition": card["condition"], "system_prompt_sha256": card["system_prompt_sha256"],
        "temperature": card["temperature"], "batch_size": card["batch_size"],
        "tools_enabled": card["tools_enabled"], "harness_version": card["harness_version"],
    }


def sha(components):
    return hashlib.sha256(json.dumps(components, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def test_string_fingerprint_is_the_v1_components_hash():
    card = make_card()
    assert fingerprint_components(card) == v1_components(card)
    assert compute_fingerprint(card) == sha(v1_components(card))
    card["fingerprint"] = compute_fingerprint(card)
    assert check_fingerprint(card) == ("verified", [])


def test_string_fingerprint_mismatch_is_a_discrepancy():
    card = make_card()
    card["fingerprint"] = compute_fingerprint(card)
    card["batch_size"] = 1
    status, found = check_fingerprint(card)
    assert status == "mismatch"
    assert [d.path for d in found] == ["fingerprint"]
    assert found[0].recomputed == compute_fingerprint(card)


def test_object_fingerprint_v1_verifies():
    card = make_card()
    card["fingerprint"] = {"hash": sha(v1_components(card)), "components": v1_components(card), "version": 1}
    assert check_fingerprint(card) == ("verified", [])


def test_object_fingerprint_v2_extras_are_hashed_as_given():
    card = make_card()
    components = v1_components(card) | {
        "api_provider": "openrouter", "endpoint_host_sha256": hashlib.sha256(b"openrouter.ai").hexdigest(),
        "max_tokens": 4096, "method_version": None, "method_sha256": None,
    }
    card["fingerprint"] = {"hash": sha(components), "components": components, "version": 2}
    assert check_fingerprint(card) == ("verified", [])

    card["fingerprint"]["hash"] = sha(v1_components(card))  # a hash that ignores the v2 extras
    status, found = check_fingerprint(card)
    assert status == "mismatch"
    assert [d.path for d in found] == ["fingerprint.hash"]
    assert found[0].recomputed == sha(components)


def test_object_fingerprint_component_that_contradicts_the_card():
    card = make_card()
    components = v1_components(card) | {"model_slug": "openai/gpt-4o", "temperature": 0}
    card["fingerprint"] = {"hash": sha(components), "components": components, "version": 1}
    status, found = check_fingerprint(card)
    assert status == "mismatch"
    by_path = {d.path: d for d in found}
    assert set(by_path) == {"fingerprint.components.model_slug", "fingerprint.components.temperature"}
    assert by_path["fingerprint.components.model_slug"].submitted == "openai/gpt-4o"
    assert by_path["fingerprint.components.model_slug"].recomputed == "google/gemini-2.5-flash"
    assert "0.0" in by_path["fingerprint.components.temperature"].message  # 0 vs 0.0 changes the hash


def test_object_fingerprint_missing_component_and_malformed_forms():
    card = make_card()
    components = v1_components(card)
    del components["tools_enabled"]
    card["fingerprint"] = {"hash": sha(components), "components": components, "version": 1}
    status, found = check_fingerprint(card)
    assert status == "mismatch" and [d.path for d in found] == ["fingerprint.components.tools_enabled"]

    card["fingerprint"] = {"hash": "abc"}
    assert check_fingerprint(card)[0] == "mismatch"
    card["fingerprint"] = None
    assert check_fingerprint(card) == ("absent", [])


# --- recomputation ---------------------------------------------------------------------------------------

def small_results():
    return [
        result("1", "hello", "tânisi", "tânisi", latency_s=0.5, fst_valid=True, domain="greetings"),
        result("2", "dog", "atim", "atim", latency_s=1.5, fst_valid=True),
        result("3", "I see the dog", "niwâpamâw atim", "niwâpamâw atimwa", difficulty=2, latency_s=2.5,
               fst_valid=False, code_switching_detected=False),
        result("4", "I see the dogs", "niwâpamâwak atimwak", None, difficulty=2, latency_s=None,
               error="HTTP 429 Too Many Requests", exact_match=False),
    ]


def test_recompute_on_a_hand_checked_set():
    results = small_results()
    scores = recompute_scores(results)
    assert scores["total"] == 4
    assert scores["evaluated"] == 3
    assert scores["errors"] == 1
    assert scores["exact_matches"] == 2
    assert scores["exact_match_rate"] == pytest.approx(2 / 3)
    assert scores["fst_accepted"] == 2
    assert scores["fst_acceptance_rate"] == pytest.approx(2 / 3)
    assert scores["code_switching_rate"] == 0.0
    assert scores["equivalent_matches"] is None and scores["hallucination_rate"] is None
    # avg(len(predicted) / len(reference)) over the non-errored entries: 6/6, 4/4, 16/14
    assert scores["length_ratio"] == pytest.approx((1 + 1 + 16 / 14) / 3)
    assert scores["avg_latency_seconds"] == pytest.approx(1.5)
    assert scores["median_latency_seconds"] == 1.5
    assert scores["p95_latency_seconds"] == 2.5
    # corpus chrF++ is sacrebleu's own number over every entry, the errored one an empty hypothesis: upstream's one
    # segment rule (significance.scored_pairs), which the harness's own corpus_chrf applies
    expected = CHRF(word_order=2).corpus_score([r["predicted"] or "" for r in results],
                                               [[r["expected"] for r in results]])
    assert scores["chrf_plus_plus"] == expected.score
    from mt_eval_harness.significance import corpus_chrf

    assert scores["chrf_plus_plus"] == pytest.approx(corpus_chrf(results), abs=1e-9)
    assert "by_provenance" not in scores


def test_breakdowns_follow_the_harness_shape():
    results = small_results()
    scores = recompute_scores(results)
    assert set(scores["by_difficulty"]) == {"1", "2"}
    hard = scores["by_difficulty"]["2"]
    assert hard["count"] == 2 and hard["error_count"] == 1
    assert hard["exact_match_count"] == 0 and hard["miss_count"] == 1
    both = CHRF(word_order=2).corpus_score(["niwâpamâw atimwa", ""],
                                           [["niwâpamâw atim", "niwâpamâwak atimwak"]]).score
    assert hard["chrf_plus_plus"] == both  # the errored entry an empty hypothesis, as for the whole card
    sentence = CHRF(word_order=2).sentence_score("niwâpamâw atimwa", ["niwâpamâw atim"]).score
    assert hard["avg_chrf"] == pytest.approx(sentence)
    easy = scores["by_difficulty"]["1"]
    assert easy["avg_chrf"] == pytest.approx(100.0) and easy["exact_match_rate"] == 1.0
    assert scores["by_domain"]["greetings"]["count"] == 1
    assert scores["by_domain"]["everyday"]["avg_latency_s"] == pytest.approx(2.0)


def test_by_provenance_only_when_results_carry_a_tag():
    results = small_results()
    results[0]["provenance"] = "elicited"
    assert recompute_scores(results)["by_provenance"]["elicited"]["count"] == 1


def test_median_and_p95_are_the_harness_order_statistics():
    results = [result(str(i), "s", "r", "r", latency_s=float(i)) for i in range(1, 11)]
    scores = recompute_scores(results)
    assert scores["median_latency_seconds"] == 6.0  # sorted[10 // 2]
    assert scores["p95_latency_seconds"] == 10.0  # sorted[min(int(9.5), 9)]
    results = [result(str(i), "s", "r", "r", latency_s=i / 100) for i in range(1, 101)]
    assert recompute_scores(results)["p95_latency_seconds"] == 0.96  # sorted[95]


def test_recompute_of_nothing_raises_nothing():
    scores = recompute_scores([])
    assert scores["total"] == 0 and scores["chrf_plus_plus"] is None and scores["p95_latency_seconds"] is None
    all_failed = recompute_scores([result("1", "dog", "atim", None, error="timeout")])
    assert all_failed["errors"] == 1 and all_failed["exact_match_rate"] is None and all_failed["chrf_plus_plus"] is None


# --- comparison ------------------------------------------------------------------------------------------

def test_values_within_tolerance_are_not_discrepancies():
    results = small_results()
    recomputed = recompute_scores(results)
    submitted = {
        "total": 4, "evaluated": 3, "errors": 1, "exact_matches": 2, "exact_match_rate": 0.6667,
        "chrf_plus_plus": round(recomputed["chrf_plus_plus"], 2) + 0.04, "length_ratio": 1.0476,
        "avg_latency_seconds": 1.51, "median_latency_seconds": 1.5, "p95_latency_seconds": 2.52,
        "fst_acceptance_rate": 0.42,  # word-level in the harness: recomputed, never compared
        "by_difficulty": {"1": {"name": "difficulty_1", "count": 2, "exact_match_count": 2, "avg_chrf": 100.0}},
    }
    assert compare_scores(submitted, recomputed) == []


def test_values_beyond_tolerance_name_their_path():
    recomputed = recompute_scores(small_results())
    submitted = {
        "exact_matches": 3, "exact_match_rate": 0.6687, "chrf_plus_plus": recomputed["chrf_plus_plus"] + 0.06,
        "p95_latency_seconds": 2.6, "total": "4",
        "by_domain": {"everyday": {"exact_match_count": 2}, "greetings": {"count": 1}},
    }
    found = {d.path: d for d in compare_scores(submitted, recomputed)}
    assert set(found) == {
        "scores.exact_matches", "scores.exact_match_rate", "scores.chrf_plus_plus", "scores.p95_latency_seconds",
        "scores.total", "scores.by_domain.everyday.exact_match_count",
    }
    assert found["scores.exact_matches"].tolerance == 0
    assert found["scores.chrf_plus_plus"].tolerance == 0.05
    assert found["scores.p95_latency_seconds"].tolerance == pytest.approx(0.025)
    assert "expected a number" in found["scores.total"].message
    assert isinstance(found["scores.exact_matches"], Discrepancy)
    assert found["scores.exact_matches"].as_dict() == {
        "path": "scores.exact_matches", "submitted": 3, "recomputed": 2, "tolerance": 0.0,
        "message": found["scores.exact_matches"].message,
    }


def test_missing_values_and_unrecognised_breakdowns_are_not_discrepancies():
    results = small_results()
    results[0]["domain"] = ""
    recomputed = recompute_scores(results)
    submitted = {
        "total": None, "by_difficulty": [1, 2], "by_provenance": "n/a",
        "by_domain": {"everyday": 3, "legal": {"count": 9}, "": {"count": 1, "avg_chrf": {"mean": 1}}},
    }
    found = compare_scores(submitted, recomputed)
    assert [d.path for d in found] == ['scores.by_domain[""].avg_chrf']
    assert compare_scores(None, recomputed) == []
    # results[] that determine nothing (no entries) leave chrF++ uncompared, but the count still counts
    found = compare_scores({"total": 4, "chrf_plus_plus": 50.0}, recompute_scores([]))
    assert [d.path for d in found] == ["scores.total"]


# --- composite, tiers, cost ------------------------------------------------------------------------------

def test_composite_profile_a_renormalizes_over_present_metrics():
    scores = {"fst_acceptance_rate": 0.8, "chrf_plus_plus": 50.0, "code_switching_rate": 0.1,
              "hallucination_rate": 0.0, "semantic_score": None, "exact_match_rate": True}
    # (0.25·0.8 + 0.15·0.5 + 0.05·0.9 + 0.05·1.0) / (0.25 + 0.15 + 0.05 + 0.05)
    assert legacy_composite(scores, fst_available=True) == 0.74
    below_floor = scores | {"morphological_accuracy": 0.1, "morph_in_composite": False}
    assert legacy_composite(below_floor, fst_available=True) == 0.74
    assert legacy_composite(below_floor | {"morph_in_composite": True}, fst_available=True) == round(
        (0.37 + 0.15 * 0.1) / 0.65, 4)


def test_composite_profile_b_ignores_fst_and_renormalizes():
    scores = {"chrf_plus_plus": 60.0, "exact_match_rate": 0.2, "fst_acceptance_rate": 1.0}
    assert legacy_composite(scores, fst_available=False) == round((0.25 * 0.6 + 0.10 * 0.2) / 0.35, 4)
    full = {"semantic_score": 0.5, "chrf_plus_plus": 40.0, "equivalent_match_rate": 0.3, "exact_match_rate": 0.1,
            "code_switching_rate": 0.2, "terminology_adherence": 0.9, "hallucination_rate": 0.05}
    weighted = 0.25 * 0.5 + 0.25 * 0.4 + 0.15 * 0.3 + 0.10 * 0.1 + 0.10 * 0.8 + 0.05 * 0.9 + 0.05 * 0.95
    assert legacy_composite(full, fst_available=False) == round(weighted / 0.95, 4)  # profile B's weights sum to 0.95
    assert legacy_composite({}, fst_available=False) is None


@pytest.mark.parametrize("composite, tier", [
    (0.0, "Baseline"), (0.2999, "Baseline"), (0.30, "Emerging"), (0.4999, "Emerging"), (0.50, "Functional"),
    (0.6999, "Functional"), (0.70, "Deployable"), (0.8499, "Deployable"), (0.85, "Fluent"), (1.0, "Fluent"),
    (None, None),
])
def test_quality_tier_lower_bounds_are_inclusive(composite, tier):
    assert quality_tier(composite) == tier


def test_cost_adjusted_formula():
    assert cost_adjusted(0.6, 0.003) == 0.3  # log2(1 + 3) = 2
    assert cost_adjusted(0.6, 0.001) == 0.6  # log2(2) = 1
    assert cost_adjusted(0.6, 0.0001) == 0.6  # below $0.001 the divisor is floored at 1: never a reward
    assert cost_adjusted(0.6, 0.0) == 0.6
    assert cost_adjusted(0.6, None) == 0.6
    assert cost_adjusted(None, 0.003) is None
    assert cost_adjusted(0.7, 0.01) == round(0.7 / 3.4594316186372973, 4)  # log2(11)


# --- subsets ---------------------------------------------------------------------------------------------

def test_subset_scores_of_a_domain_differ_from_the_whole():
    results = small_results() + [
        result("5", "the bear", "maskwa", "maskwa", domain="animals", fst_valid=True, semantic_verdict="EXACT_MATCH"),
        result("6", "the rabbit", "wâpos", "wâposa", domain="animals", fst_valid=False, semantic_verdict="PARTIAL",
               hallucination_detected=False),
        result("7", "the duck", "sîsîp", "mistatim", domain="animals", fst_valid=True, semantic_verdict="UNKNOWN",
               hallucination_detected=True),
    ]
    animals = [r for r in results if r["domain"] == "animals"]
    whole, subset = subset_scores(results), subset_scores(animals)
    assert subset["total"] == 3
    assert subset["chrf_plus_plus"] == CHRF(word_order=2).corpus_score(
        [r["predicted"] for r in animals], [[r["expected"] for r in animals]]).score
    assert subset["chrf_plus_plus"] != whole["chrf_plus_plus"]
    assert subset["exact_match_rate"] == pytest.approx(1 / 3)
    assert subset["fst_acceptance_rate"] == pytest.approx(2 / 3)
    assert subset["hallucination_rate"] == 0.5
    assert subset["semantic_score"] == pytest.approx((1.0 + 0.4) / 2), "UNKNOWN judges nothing"
    assert subset["equivalent_match_rate"] is None
    assert subset["composite"] == legacy_composite(subset, fst_available=True)
    assert subset["composite"] != whole["composite"]
    assert subset_scores(copy.deepcopy(animals)) == subset


def test_subset_semantic_score_ignores_verdicts_that_judge_nothing():
    rows = [result(str(i), "s", "atim", "atim") for i in range(3)]
    for row in rows:
        row["semantic_verdict"] = "UNKNOWN"
    assert subset_scores(rows)["semantic_score"] is None
    rows[0]["semantic_verdict"] = "VALID"
    assert subset_scores(rows)["semantic_score"] == 1.0
