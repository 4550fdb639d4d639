"""Build run cards the way the harness writes them, for tests and the benchmark."""

import copy
import functools
import hashlib
import json
import uuid

from sacrebleu.metrics import BLEU, CHRF

CHRF_PLUS_PLUS = CHRF(word_order=2)
SENTENCE_BLEU = BLEU(effective_order=True)


# sacrebleu's scores of the texts a card holds, each computed once per process: tests build the same cards (the
# same predictions of the same entries) over and over, and the scores were much of what building one cost. The
# caches are bounded, so a benchmark's large card does not keep its texts.

@functools.lru_cache(maxsize=8192)
def sentence_chrf(predicted: str, reference: str) -> float:
    """sacrebleu's sentence chrF++ of `predicted` against `reference`."""
    return CHRF_PLUS_PLUS.sentence_score(predicted, [reference]).score


@functools.lru_cache(maxsize=8192)
def sentence_bleu(predicted: str, reference: str) -> float:
    """sacrebleu's sentence BLEU (effective order) of `predicted` against `reference`."""
    return SENTENCE_BLEU.sentence_score(predicted, [reference]).score


@functools.lru_cache(maxsize=256)
def corpus_chrf(predicted: tuple[str, ...], references: tuple[str, ...]) -> float:
    """sacrebleu's corpus chrF++ of the predictions against their references (one each)."""
    return CHRF_PLUS_PLUS.corpus_score(list(predicted), [list(references)]).score


def seal(card: dict) -> dict:
    """Set run_card_hash with the harness recipe, computed here independently of the app."""
    unsealed = copy.deepcopy(card)
    unsealed["run_card_hash"] = ""
    text = json.dumps(unsealed, sort_keys=True, ensure_ascii=False)
    card["run_card_hash"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return card


def make_card(version, entries, *, predict=None, composite=0.75, model_slug="demo-model", condition="baseline",
              method_card=None, manifest=None, sealed=True, scoring_standard=None, cost_per_entry=0.002) -> dict:
    """A complete, self-consistent card scoring `entries` of `version`."""
    predict = predict or (lambda entry: entry.reference)
    results = []
    for entry in entries:
        predicted = predict(entry)
        results.append({
            "entry_id": str(entry.entry_id), "source": entry.source, "expected": entry.reference,
            "raw_predicted": predicted, "predicted": predicted, "segment": entry.segment,
            "difficulty": entry.difficulty, "domain": entry.domain or None,
            "exact_match": predicted == entry.reference,
            "chrf_score": round(sentence_chrf(predicted, entry.reference), 4),
            "bleu_score": None, "latency_s": 1.0, "cost_usd": cost_per_entry, "tool_call_count": 0, "error": None,
            "plugin_metrics": {}, "fst_valid": None, "equivalent_match": None, "semantic_verdict": "UNKNOWN",
            "code_switching_detected": False, "hallucination_detected": False,
        })
    exact = sum(r["exact_match"] for r in results)
    chrf = corpus_chrf(tuple(r["predicted"] for r in results), tuple(r["expected"] for r in results))
    scores = {
        "total": len(results), "exact_matches": exact, "exact_match_rate": exact / len(results),
        "chrf_plus_plus": chrf, "errors": 0, "composite": composite,
        "avg_latency_seconds": 1.0, "median_latency_seconds": 1.0, "p95_latency_seconds": 1.0,
        "code_switching_rate": 0.0, "hallucination_rate": 0.0,
    }
    if scoring_standard:
        scores["scoring_standard"] = scoring_standard
        scores["primary_metric"] = "chrf_plus_plus"
        scores["composite"] = None
    card = {
        "run_id": str(uuid.uuid4()), "harness_version": "0.1.9", "timestamp": "2026-11-30T12:00:00Z",
        "elapsed_seconds": float(len(results)), "model_slug": model_slug, "model_id": f"{model_slug}-2026",
        "condition": condition, "temperature": 0.0, "system_prompt_sha256": "ab" * 32, "system_prompt_used": True,
        "batch_size": 1, "tools_enabled": [], "max_retries": 2,
        "dataset": {"id": version.dataset.identifier, "version": version.version,
                    "language_pair": version.language_pair, "sha256": version.public_sha256,
                    "entry_count": len(results)},
        "scores": scores,
        "totals": {"prompt_tokens": 100, "completion_tokens": 50, "reasoning_tokens": 0, "cached_tokens": 0,
                   "total_cost_usd": cost_per_entry * len(results), "cost_per_entry_usd": cost_per_entry,
                   "cost_per_source_char": 0.0001},
        "method_config": {"model": model_slug, "temperature": 0.0, "batchSize": 1, "register": "conversational",
                          "coachingFile": None, "coachingPrompt": "nêhiyawêwin ✓", "promptContext": "",
                          "qualityTier": "Deployable"},
        "results": results,
    }
    if method_card is not None:
        card["method_card"] = method_card
    if manifest is not None:
        card["method"] = manifest
    return seal(card) if sealed else card


def body(card: dict) -> bytes:
    return json.dumps(card, ensure_ascii=False, indent=2).encode("utf-8")
