"""Run cards, rows and entry rows shaped as the upstream harness (mt-eval publish) writes them, written by hand
from its documented shapes: a card without per-entry rows, a `run_YYYYMMDD_HHMMSS_…` run_id, a v2 fingerprint
object, "" for no system prompt, extra top-level fields; entry rows with string difficulties, empty segment and
domain, and a perfect sentence's BLEU as 100.00000000000004."""

import hashlib
import json
import uuid

from .cards import corpus_chrf, seal, sentence_bleu, sentence_chrf

HARNESS_NAMESPACE = uuid.UUID("6f1d3c52-8a0e-4c1b-9d57-0b5a2f4e7c11")
DIFFICULTY_WORDS = {1: "Easy", 2: "2", 3: "Hard (Tier 3)", 4: 4, 5: "Tier 5"}


def components_hash(components: dict) -> str:
    return hashlib.sha256(json.dumps(components, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def harness_card(version, entries, *, sha256=None, standard=True, model_slug="acme/mt-small", predict=None,
                 claimed_chrf=None, run_suffix="a1b2c3"):
    """(card without results, entry rows without run_card_id) for `entries` of `version`."""
    predict = predict or (lambda e: e.reference)
    rows = []
    for e in entries:
        predicted = predict(e)
        rows.append({
            "entry_id": str(e.entry_id), "source": e.source, "expected": e.reference,
            "raw_predicted": predicted, "predicted": predicted, "segment": "",
            "difficulty": DIFFICULTY_WORDS.get(e.difficulty) if e.difficulty else None, "domain": "",
            "exact_match": predicted == e.reference,
            "chrf_score": sentence_chrf(predicted, e.reference),
            # The harness's BLEU of a perfect sentence: a hair over its bound.
            "bleu_score": 100.00000000000004 if predicted == e.reference else
            sentence_bleu(predicted, e.reference),
            "latency_s": 0.5, "cost_usd": 0.0, "tool_call_count": 0, "error": None,
            "plugin_metrics": {"lyss": {"verdict": "VALID", "notes": {"checked": True}}},
            "lyss_verdict": "VALID",
        })
    chrf = corpus_chrf(tuple(r["predicted"] for r in rows), tuple(r["expected"] for r in rows))
    exact = sum(r["exact_match"] for r in rows)
    pin = sha256 or version.public_sha256
    card = {
        "run_id": f"run_20261203_101500_{run_suffix}", "harness_version": "0.4.0",
        "timestamp": "2026-12-03T10:15:00+00:00", "model_slug": model_slug, "model_id": model_slug,
        "condition": "method-plugin", "temperature": 0, "system_prompt_sha256": "", "system_prompt_used": False,
        "batch_size": 1, "tools_enabled": False, "max_retries": 2, "elapsed_seconds": 12.5,
        "api_provider": "local", "max_tokens": 512, "concurrency": 4, "cache_hits": 0,
        "fst_provenance": None, "lyss_provenance": {"version": "1.2"}, "by_segment": {"": {"count": len(rows)}},
        "provenance": {"git": None}, "corpus_license": "CC-BY-4.0", "corpus_attribution": "Test community",
        "contamination": {"checked": False}, "relative_only": False, "score_lane": "open",
        "method_plugin": {"id": "acme-rules", "version": "1.0.0"},
        "dataset": {"id": version.dataset.identifier, "version": version.version, "language_pair": "eng>crk",
                    "sha256": pin, "entry_count": len(rows)},
        "scores": {
            "total": len(rows), "evaluated": len(rows), "errors": 0, "exact_matches": exact,
            "exact_match_rate": exact / len(rows), "chrf_plus_plus": claimed_chrf if claimed_chrf is not None else chrf,
            "composite": None if standard else 0.71, "quality_tier": None if standard else "Deployable",
            "avg_latency_seconds": 0.5, "median_latency_seconds": 0.5, "p95_latency_seconds": 0.5,
            "confidence_intervals": {"corpus_chrf": {"ci_lower": round(chrf - 3, 2), "ci_upper": round(chrf + 3, 2)}},
        },
        "totals": {"prompt_tokens": 0, "completion_tokens": 0, "total_cost_usd": 0.0, "cost_per_entry_usd": 0.0},
        "method_config": {"method": "acme-rules", "rules": ["nêhiyawêwin", 1.0, 0.10], "max_tokens": 512},
    }
    if standard:
        card["scores"]["scoring_standard"] = "standard/1"
    components = {"dataset_sha256": pin, "model_slug": model_slug, "condition": "method-plugin",
                  "system_prompt_sha256": "", "temperature": 0, "batch_size": 1, "tools_enabled": False,
                  "harness_version": "0.4.0"}
    if standard:
        components.update({"api_provider": "local", "endpoint_host_sha256": None, "max_tokens": 512,
                           "method_version": "1.0.0", "method_sha256": "cd" * 32, "method_model": None,
                           "method_dependencies_sha256": None})
        card["fingerprint"] = {"hash": components_hash(components), "components": components, "version": 2}
    else:
        card["fingerprint"] = components_hash(components)
    seal(card)
    return card, rows


def card_row(card: dict, submitter="harness user") -> dict:
    """The run_cards row the harness posts: flattened columns beside the card."""
    scores = card["scores"]
    return {
        "id": str(uuid.uuid5(HARNESS_NAMESPACE, card["run_id"])), "submitter": submitter,
        "affirmation": f"Results generated by mt-eval harness v{card['harness_version']}.", "trust": "unverified",
        "model_slug": card["model_slug"], "condition": card["condition"], "dataset_id": card["dataset"]["id"],
        "language_pair": card["dataset"]["language_pair"], "harness_version": card["harness_version"],
        "chrf_plus_plus": scores["chrf_plus_plus"], "chrf_ci_lower": None, "chrf_ci_upper": None,
        "corpus_bleu": None, "exact_match_rate": scores["exact_match_rate"], "composite_score": scores["composite"],
        "quality_tier": scores["quality_tier"],
        "fingerprint_hash": card["fingerprint"]["hash"] if isinstance(card["fingerprint"], dict)
        else card["fingerprint"],
        "method_class": "custom-plugin", "total_cost_usd": 0.0, "avg_latency_seconds": 0.5,
        "corpus_size": scores["total"], "run_card": card,
    }


def entry_batches(row_id: str, rows: list[dict], size=50) -> list[list[dict]]:
    with_id = [{"run_card_id": row_id, **row} for row in rows]
    return [with_id[i:i + size] for i in range(0, len(with_id), size)]
