"""Verification of a parsed run card: its tamper seal (§3.9), its fingerprint (§3.8), the aggregates that
results[] determines (§3.4, §3.6), and the legacy composite, quality tier and cost-adjusted score
(§4.2, §4.3, §5; SPEC §9).

Everything here works on the card exactly as `json.loads` returned it — never on a copy re-serialized
from the database, whose numbers and key order may differ. The rules, and why each was chosen, are in
docs/run-cards.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, replace
from typing import Any, NamedTuple

from sacrebleu.metrics import CHRF

FINGERPRINT_V1_COMPONENTS = (
    "dataset_sha256", "model_slug", "condition", "system_prompt_sha256", "temperature", "batch_size",
    "tools_enabled", "harness_version",
)
# Where each v1 component lives on the card itself.
COMPONENT_SOURCES = {name: name for name in FINGERPRINT_V1_COMPONENTS} | {"dataset_sha256": "dataset.sha256"}

# Tolerances of compare_scores (docs/run-cards.md, "Recomputed aggregates and tolerances").
RATE_TOLERANCE = 0.001
CHRF_TOLERANCE = 0.05
LATENCY_TOLERANCE_SECONDS = 0.01
LATENCY_TOLERANCE_RELATIVE = 0.01

# What compare_scores checks, and with which tolerance. The verdict-based rates (equivalent match, FST,
# code-switching, hallucination) are recomputed but not compared: the harness takes them from plugin
# aggregates (word-level FST acceptance, mean per-entry token rates), not from the per-entry booleans.
COMPARED_SCORES = {
    "total": "count", "evaluated": "count", "errors": "count", "exact_matches": "count",
    "exact_match_rate": "rate", "length_ratio": "rate", "chrf_plus_plus": "chrf",
    "avg_latency_seconds": "latency", "median_latency_seconds": "latency", "p95_latency_seconds": "latency",
}
COMPARED_GROUP_FIELDS = {
    "count": "count", "error_count": "count", "exact_match_count": "count", "miss_count": "count",
    "exact_match_rate": "rate", "avg_chrf": "chrf", "chrf_plus_plus": "chrf", "avg_latency_s": "latency",
}
BREAKDOWNS = ("by_difficulty", "by_domain", "by_provenance")
# The harness writes its per-segment breakdown beside `scores`, at the card's top level.
TOP_LEVEL_BREAKDOWNS = ("by_segment",)
# Per-entry disagreements with the stored corpus listed one by one; the rest are counted in one more line.
LISTED_CORPUS_MISMATCHES = 100

# Legacy composite weights (SPEC §9): profile A with an FST analyzer, profile B without.
PROFILE_A_WEIGHTS = {
    "fst_acceptance_rate": 0.25, "morphological_accuracy": 0.15, "chrf_plus_plus": 0.15, "semantic_score": 0.15,
    "equivalent_match_rate": 0.10, "code_switching_rate": 0.05, "terminology_adherence": 0.05,
    "hallucination_rate": 0.05, "exact_match_rate": 0.05,
}
PROFILE_B_WEIGHTS = {
    "semantic_score": 0.25, "chrf_plus_plus": 0.25, "equivalent_match_rate": 0.15, "exact_match_rate": 0.10,
    "code_switching_rate": 0.10, "terminology_adherence": 0.05, "hallucination_rate": 0.05,
}
INVERTED_METRICS = ("code_switching_rate", "hallucination_rate")

# The quality tiers' lower bounds on the composite (benchmark specification §5), the default of every language pair's
# bands (TierBands); a composite on a boundary belongs to the tier above it.
# Where Deployable starts (SPEC §5): the composite of the Deployable tier (a steward may move its pairs' bands) and
# the usable share the Deployable validation gate asks of the community's ratings. The one home of the number:
# defaults, help texts and messages read it.
DEPLOYABLE_THRESHOLD = 0.70
DEFAULT_TIER_BANDS = {"emerging": 0.30, "functional": 0.50, "deployable": DEPLOYABLE_THRESHOLD, "fluent": 0.85}
TIER_NAMES = {"fluent": "Fluent", "deployable": "Deployable", "functional": "Functional", "emerging": "Emerging"}
LOWEST_TIER = "Baseline"

# The harness's verdict weights for its semantic score (mt_eval_harness publish.derive_scores); every
# other verdict (MISMATCH, UNKNOWN, WRONG, NO_OUTPUT, ERROR, anything unknown) weighs 0.
NO_VERDICT = ("UNKNOWN", "ERROR")
SEMANTIC_VERDICT_WEIGHTS = {"EXACT_MATCH": 1.0, "VALID": 1.0, "GRAMMAR_ISSUES": 0.7, "PARTIAL": 0.4, "INCOMPLETE": 0.3}

# Turns statistics into scores, which keeps no state; extracting statistics takes a fresh CHRF each time,
# since extraction records the reference count on the instance.
_METRIC = CHRF(word_order=2)
# Sentences per sacrebleu statistics call. A call caches the character and word n-grams of all its references,
# about 35 KB a benchmark sentence: a 10,000-result card at once took 330 MiB, 128 sentences at a time take
# 4.5 MiB in the same time. A sentence's statistics depend on its own hypothesis and reference only, so the
# chunks give the same integers.
STATISTICS_CHUNK = 128
# chrF++'s statistics of one sentence: (hypothesis, reference, match) counts of 6 character and 2 word n-gram orders.
STATISTICS_WIDTH = 24
# Writes the seal's text piece by piece, with json.dumps(sort_keys=True, ensure_ascii=False)'s settings.
_SEAL_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False)


@dataclass(frozen=True)
class Discrepancy:
    """A submitted value that the card's own data does not reproduce. Shown on the run card; not an error."""

    path: str
    submitted: Any
    recomputed: Any
    tolerance: float | None
    message: str
    # The corpus entry a per-entry disagreement with the stored corpus names (against_corpus).
    entry: str | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"

    def as_dict(self) -> dict[str, Any]:
        found = asdict(self)
        if found["entry"] is None:
            del found["entry"]
        return found


# ---------------------------------------------------------------------------------------------------------
# Hash (§3.9)
# ---------------------------------------------------------------------------------------------------------

def card_hash(card: dict) -> str:
    """The harness's seal: SHA-256 (lowercase hex) of `json.dumps(card, sort_keys=True, ensure_ascii=False)`
    with `run_card_hash` set to "", encoded as UTF-8. The text is hashed as it is written (_sealed_text), so
    a 10 MB card is never held as one string and its bytes (40 MiB for a 9 MiB card)."""
    sealed = dict(card)  # only a top-level key changes, so a shallow copy keeps `card` untouched
    sealed["run_card_hash"] = ""
    digest = hashlib.sha256()
    for piece in _sealed_text(sealed):
        digest.update(piece.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _sealed_text(card: dict) -> Iterator[str]:
    """`json.dumps(card, sort_keys=True, ensure_ascii=False)` in pieces that join to exactly that text: the
    members in key order, a list member (results[]) one element at a time."""
    encode = _SEAL_ENCODER.encode
    yield "{"
    for position, name in enumerate(sorted(card)):
        yield f"{', ' if position else ''}{encode(name)}: "
        value = card[name]
        if isinstance(value, list):
            yield "["
            for index, item in enumerate(value):
                yield f"{', ' if index else ''}{encode(item)}"
            yield "]"
        else:
            yield encode(value)
    yield "}"


def verify_hash(card: dict) -> str:
    """Return "verified", "unsealed" (no `run_card_hash`, or an empty one) or "mismatch"."""
    claimed = card.get("run_card_hash")
    if claimed is None or claimed == "":
        return "unsealed"
    if isinstance(claimed, str) and claimed.lower() == card_hash(card):
        return "verified"
    return "mismatch"


# ---------------------------------------------------------------------------------------------------------
# Fingerprint (§3.8)
# ---------------------------------------------------------------------------------------------------------

def fingerprint_components(card: dict) -> dict[str, Any]:
    """The eight v1 components as the card gives them (a missing field is null)."""
    dataset = card.get("dataset")
    components = {name: card.get(name) for name in FINGERPRINT_V1_COMPONENTS}
    components["dataset_sha256"] = dataset.get("sha256") if isinstance(dataset, dict) else None
    return components


def components_hash(components: dict) -> str:
    """SHA-256 of `json.dumps(components, sort_keys=True, ensure_ascii=False)` in UTF-8, as the harness hashes."""
    text = json.dumps(components, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def compute_fingerprint(card: dict) -> str:
    """The v1 fingerprint recomputed from the card's own fields."""
    return components_hash(fingerprint_components(card))


def public_fingerprint(card: dict, dataset_sha256: str) -> str:
    """The v1 fingerprint with `dataset_sha256` — the hash the public is shown — in place of the card's own.
    The same as compute_fingerprint unless the card pins a real hash kept from the public, whose fingerprint
    would confirm guesses of that hash; and the same setup gets the same fingerprint whichever hash it pinned."""
    components = fingerprint_components(card)
    components["dataset_sha256"] = dataset_sha256
    return components_hash(components)


# Discrepancies whose values are the card's dataset hash, or SHA-256 hashes over it.
DATASET_HASH_PATHS = ("fingerprint", "fingerprint.hash", "fingerprint.components.dataset_sha256")
WITHHELD = "values withheld: they are, or hash, a dataset hash that is kept from the public"


def without_dataset_hash(discrepancies: list[Discrepancy]) -> list[Discrepancy]:
    """The discrepancies of a card pinning a hash kept from the public, as they may be shown with the card:
    at DATASET_HASH_PATHS without submitted and recomputed values, and without messages that quote them."""
    shown = []
    for found in discrepancies:
        if found.path in DATASET_HASH_PATHS:
            message = ("is missing or not the card's dataset.sha256" if found.path.endswith("dataset_sha256")
                       else found.message)
            found = replace(found, submitted=None, recomputed=None, message=f"{message} ({WITHHELD})")
        shown.append(found)
    return shown


def check_fingerprint(card: dict) -> tuple[str, list[Discrepancy]]:
    """("absent" | "verified" | "mismatch", discrepancies) for either form a card may carry.

    A string is compared with the v1 fingerprint of the card's fields. An object `{hash, components,
    version}` must hash its own components (v2 extras included), and each v1 component in it must equal
    the card's own field.
    """
    given = card.get("fingerprint")
    if given is None or given == "":
        return "absent", []
    if isinstance(given, str):
        recomputed = compute_fingerprint(card)
        if given.lower() == recomputed:
            return "verified", []
        return "mismatch", [Discrepancy(
            "fingerprint", given, recomputed, None,
            "does not match the SHA-256 of the card's v1 components (dataset.sha256, model_slug, condition, "
            "system_prompt_sha256, temperature, batch_size, tools_enabled, harness_version)")]
    if not isinstance(given, dict) or not isinstance(given.get("components"), dict):
        return "mismatch", [Discrepancy(
            "fingerprint", given, None, None, "expected a hex string or an object {hash, components, version}")]

    components = given["components"]
    discrepancies = []
    recomputed = components_hash(components)
    claimed = given.get("hash")
    if not (isinstance(claimed, str) and claimed.lower() == recomputed):
        discrepancies.append(Discrepancy(
            "fingerprint.hash", claimed, recomputed, None, "is not the SHA-256 of fingerprint.components"))
    for name, own in fingerprint_components(card).items():
        path, source = f"fingerprint.components.{name}", COMPONENT_SOURCES[name]
        if name not in components:
            discrepancies.append(Discrepancy(
                path, None, own, None, f"v1 component missing (the card's {source} is {_show(own)})"))
        elif not _same_json(components[name], own):
            discrepancies.append(Discrepancy(
                path, components[name], own, None,
                f"is {_show(components[name])} but the card's {source} is {_show(own)}"))
    return ("mismatch" if discrepancies else "verified"), discrepancies


def _same_json(a: Any, b: Any) -> bool:
    """Equal as JSON text, so 0 and 0.0, or 1 and true, differ — exactly when they would change the hash."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------------------------------------
# The stored corpus is the reference (§1.3, §4.1)
# ---------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StoredEntry:
    """What the site holds of the corpus entry a result scores: the texts every score is computed against, and the
    fields the breakdowns group by."""

    entry_id: str
    source: str
    reference: str
    segment: str
    domain: str
    difficulty: int | None
    variant_class: str = ""


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def exact_match(predicted: Any, reference: str) -> bool:
    """Benchmark specification §4.1: the prediction is identical to the reference after Unicode normalization
    (NFC). Case and spacing count; an empty prediction never matches."""
    return isinstance(predicted, str) and bool(predicted) and nfc(predicted) == nfc(reference)


def against_corpus(results: list[dict], stored: list[StoredEntry], rows: str = "results"
                   ) -> tuple[list[dict], list[Discrepancy], int]:
    """(the results as they are scored, their disagreements with the stored corpus, how many results disagree).

    Every score is computed against the entries the site holds, never against the card's own `expected` or
    `exact_match`: each scored result carries the stored source and reference, the exact match of its prediction
    to that reference, and the stored segment, domain and difficulty its breakdowns group by. A result whose
    `source` or `expected` (when given) differs from the stored text after NFC is named, by path and entry id and
    never with either text (the entry may be secret). `rows`: the name the card's rows were sent under."""
    scored: list[dict] = []
    listed: list[Discrepancy] = []
    mismatched = 0
    for index, (result, entry) in enumerate(zip(_entries(results), stored, strict=True)):
        differing = [
            (name, label) for name, label, held in (("source", "source", entry.source),
                                                    ("expected", "reference", entry.reference))
            if isinstance(result.get(name), str) and nfc(result[name]) != nfc(held)]
        if differing:
            mismatched += 1
            listed.extend(
                Discrepancy(f"{rows}[{index}].{name}", None, None, None,
                            f"differs from the stored {label} of entry {entry.entry_id}", entry.entry_id)
                for name, label in differing if len(listed) < LISTED_CORPUS_MISMATCHES)
        scored.append({**result, "source": entry.source, "expected": entry.reference,
                       "exact_match": None if result.get("error") else exact_match(result.get("predicted"),
                                                                                    entry.reference),
                       "segment": entry.segment, "domain": entry.domain, "difficulty": entry.difficulty})
    if mismatched > len({found.path.rsplit(".", 1)[0] for found in listed}):
        listed.append(Discrepancy(rows, None, mismatched, None, (
            f"{mismatched} results in all differ from the stored corpus in their source or expected text; the "
            f"first {LISTED_CORPUS_MISMATCHES} differences are listed")))
    return scored, listed, mismatched


# The variant-class lint (docs/run-cards.md, "Variant-class lint"): each side needs this many evaluated entries,
# the exact-match rate on entries with a variant class must exceed the rate on the others by this much, and the
# one-sided Fisher exact test must put the difference below this probability under chance.
VARIANT_LINT_MIN_ENTRIES = 5
VARIANT_LINT_MIN_GAP = 0.25
VARIANT_LINT_MAX_P = 0.01


def variant_class_lint(scored: list[dict], stored: list[StoredEntry]) -> dict[str, Any] | None:
    """Whether the card's exact matches on entries with a known `variant_class` are improbably high relative to its
    other entries. Such an entry has several acceptable translations and its reference is one of them: a method that
    learned the language and not the test set matches that one variant no more often than it matches entries that
    admit a single form, so matching it far more often suggests the references were seen (trained on the data).
    A flag for governance to look at, never a disqualification. None when either side has too few entries."""
    counts = {True: [0, 0], False: [0, 0]}  # has a variant class → [evaluated, exact]
    for result, entry in zip(scored, stored, strict=True):
        if result.get("error"):
            continue
        side = counts[bool(entry.variant_class)]
        side[0] += 1
        side[1] += result.get("exact_match") is True
    (variant_total, variant_exact), (other_total, other_exact) = counts[True], counts[False]
    if min(variant_total, other_total) < VARIANT_LINT_MIN_ENTRIES:
        return None
    p_value = _hypergeometric_upper_tail(variant_total + other_total, variant_exact + other_exact, variant_total,
                                         variant_exact)
    gap = variant_exact / variant_total - other_exact / other_total
    return {"variant_entries": variant_total, "variant_exact": variant_exact, "other_entries": other_total,
            "other_exact": other_exact, "p_value": round(p_value, 6),
            "flagged": gap >= VARIANT_LINT_MIN_GAP and p_value < VARIANT_LINT_MAX_P}


def _hypergeometric_upper_tail(population: int, successes: int, draws: int, observed: int) -> float:
    """P(X ≥ observed) for X hypergeometric: `draws` taken without replacement from `population` holding `successes`
    (one-sided Fisher exact test), summed in log space so that large corpora do not overflow."""
    def log_comb(n: int, k: int) -> float:
        return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)

    total = log_comb(population, draws)
    top = min(draws, successes)
    terms = [log_comb(successes, x) + log_comb(population - successes, draws - x) - total
             for x in range(max(observed, draws - (population - successes)), top + 1)]
    return min(1.0, sum(math.exp(term) for term in terms))


# ---------------------------------------------------------------------------------------------------------
# Recomputed aggregates (§3.4, §3.6)
# ---------------------------------------------------------------------------------------------------------

class _Row(NamedTuple):
    entry: dict
    stats: list[int]  # sacrebleu chrF++ statistics; an errored entry's are those of an empty hypothesis
    sentence_chrf: float | None  # None for an errored entry
    errored: bool


def recompute_scores(results: list[dict], statistics: list | None = None) -> dict[str, Any]:
    """Every `scores` field that results[] determines, unrounded, with the harness's definitions.

    Errored entries count in `total` and `errors`, and in corpus chrF++ as an empty hypothesis — upstream's one
    segment rule (mt_eval_harness significance.scored_pairs: a failed translation is a miss, never dropped) — and
    nowhere else. chrF++ is read with one sacrebleu pass: the
    per-entry n-gram statistics are extracted once and summed per group, so the whole-run score, every
    breakdown and every sentence score cost about one `corpus_score` call. Measured on 10,000 entries
    (sacrebleu 2.6.0, Python 3.11, shared 2-CPU machine): `CHRF(word_order=2).corpus_score` alone
    2.55–2.87 s, `recompute_scores` 2.15–3.01 s (ratio 0.80–1.15); one `corpus_score` per group would
    take about 3× (docs/run-cards.md). `statistics` (from `entry_statistics`) saves that pass when the
    caller also scores subsets.
    """
    rows = _rows(results, statistics)
    evaluated = [row for row in rows if not row.errored]
    entries = [row.entry for row in evaluated]
    exact = sum(1 for entry in entries if entry.get("exact_match") is True)
    equivalent, equivalent_rate = _verdict_share(entries, "equivalent_match")
    fst_accepted, fst_rate = _verdict_share(entries, "fst_valid")
    ratios = [len(_text(e.get("predicted"))) / len(_text(e.get("expected")))
              for e in entries if _text(e.get("expected"))]
    avg_latency, median_latency, p95_latency = _latencies(entries)
    scores = {
        "total": len(rows),
        "evaluated": len(evaluated),
        "errors": len(rows) - len(evaluated),
        "exact_matches": exact,
        "exact_match_rate": exact / len(evaluated) if evaluated else None,
        "equivalent_matches": equivalent,
        "equivalent_match_rate": equivalent_rate,
        "fst_accepted": fst_accepted,
        "fst_acceptance_rate": fst_rate,
        "code_switching_rate": _verdict_share(entries, "code_switching_detected")[1],
        "hallucination_rate": _verdict_share(entries, "hallucination_detected")[1],
        "chrf_plus_plus": _corpus_chrf([row.stats for row in rows]) if evaluated else None,
        "length_ratio": sum(ratios) / len(ratios) if ratios else None,
        "avg_latency_seconds": avg_latency,
        "median_latency_seconds": median_latency,
        "p95_latency_seconds": p95_latency,
        "by_difficulty": _breakdown(rows, "difficulty"),
        "by_domain": _breakdown(rows, "domain"),
        "by_segment": _breakdown(rows, "segment"),
    }
    if any(isinstance(row.entry.get("provenance"), str) for row in rows):
        scores["by_provenance"] = _breakdown(rows, "provenance")
    return scores


def entry_statistics(results: list[dict]) -> list[list[int]]:
    """sacrebleu's chrF++ statistics per result, from one pass (an errored result's are those of an empty
    hypothesis: `hypothesis`): give them to `recompute_scores` and `subset_scores` so that scoring a card and its
    subsets extracts them once."""
    return _statistics(_entries(results))


def hypothesis(entry: dict) -> str:
    """What an entry is scored as, upstream's rule (significance.scored_pairs): its prediction, or the empty string
    for an errored entry or a prediction of nothing but spaces. (An entry without a reference is not scored.)"""
    predicted = "" if entry.get("error") else _text(entry.get("predicted"))
    return predicted if predicted.strip() else ""


def _rows(results: list[dict], statistics: list | None = None) -> list[_Row]:
    """Each entry with its chrF++ statistics and sentence chrF++."""
    entries = _entries(results)
    if statistics is None:
        statistics = entry_statistics(results)
    return [_Row(entry, entry_stats, None, True) if entry.get("error")
            else _Row(entry, entry_stats, sentence_chrf(entry_stats), False)
            for entry, entry_stats in zip(entries, statistics, strict=True)]


def _statistics(entries: list[dict]) -> list[list[int]]:
    """sacrebleu's per-segment chrF++ statistics, STATISTICS_CHUNK sentences at a time; an entry without a reference
    cannot be scored and counts nothing (zeros: upstream leaves it out). Private API of the pinned sacrebleu 2.6.0;
    the tests check the summed statistics give exactly `corpus_score`'s number."""
    statistics: list[list[int]] = []
    for start in range(0, len(entries), STATISTICS_CHUNK):
        chunk = entries[start:start + STATISTICS_CHUNK]
        scored = [entry for entry in chunk if _text(entry.get("expected")).strip()]
        found = iter(CHRF(word_order=2)._extract_corpus_statistics(
            [hypothesis(entry) for entry in scored], [[_text(entry.get("expected")) for entry in scored]])
            if scored else [])
        statistics += [next(found) if _text(entry.get("expected")).strip() else [0] * STATISTICS_WIDTH
                       for entry in chunk]
    return statistics


def sentence_chrf(stats: list[int]) -> float:
    """One entry's chrF++ from its statistics (what sacrebleu's sentence_score gives)."""
    return _METRIC._compute_f_score(stats)


def _corpus_chrf(stats: list[list[int]]) -> float | None:
    return _METRIC._aggregate_and_compute(stats).score if stats else None


def _breakdown(rows: list[_Row], field: str) -> dict[str, dict[str, Any]]:
    """Per-group figures keyed like the harness's breakdowns (count, error_count, exact_match_count,
    miss_count, avg_chrf, avg_latency_s), plus the group's rate and corpus-level chrF++."""
    groups: dict[str, list[_Row]] = defaultdict(list)
    for row in rows:
        value = row.entry.get(field)
        groups["" if value is None else str(value)].append(row)
    summary = {}
    for key, members in sorted(groups.items()):
        evaluated = [row for row in members if not row.errored]
        exact = sum(1 for row in evaluated if row.entry.get("exact_match") is True)
        latencies = _numbers(row.entry.get("latency_s") for row in evaluated)
        summary[key] = {
            "count": len(members),
            "error_count": len(members) - len(evaluated),
            "exact_match_count": exact,
            "miss_count": len(evaluated) - exact,
            "exact_match_rate": exact / len(evaluated) if evaluated else None,
            "avg_chrf": sum(row.sentence_chrf or 0.0 for row in evaluated) / len(evaluated) if evaluated else None,
            "chrf_plus_plus": _corpus_chrf([row.stats for row in members]) if evaluated else None,
            "avg_latency_s": sum(latencies) / len(latencies) if latencies else None,
        }
    return summary


def _entries(results: list[dict]) -> list[dict]:
    """The entries, a malformed (non-object) one read as empty so that it still counts in `total`."""
    return [entry if isinstance(entry, dict) else {} for entry in results]


def _text(value: Any) -> str:
    return "" if value is None else value if isinstance(value, str) else str(value)


def _number(value: Any) -> float | None:
    """A finite JSON number, else None (booleans are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return value


def _numbers(values) -> list[float]:
    return [number for number in map(_number, values) if number is not None]


def _verdict_share(entries: list[dict], field: str) -> tuple[int | None, float | None]:
    """(count of true, share of true) among the entries that carry a boolean verdict; (None, None) if none does."""
    verdicts = [entry[field] for entry in entries if isinstance(entry.get(field), bool)]
    if not verdicts:
        return None, None
    accepted = sum(verdicts)
    return accepted, accepted / len(verdicts)


def _latencies(entries: list[dict]) -> tuple[float | None, float | None, float | None]:
    """Mean, median and p95 the way the harness writes them: the median is the order statistic at index
    n // 2 and the p95 the one at index min(int(0.95 n), n − 1) of the sorted latencies (0-based)."""
    ordered = sorted(_numbers(entry.get("latency_s") for entry in entries))
    n = len(ordered)
    if not n:
        return None, None, None
    return sum(ordered) / n, ordered[n // 2], ordered[min(int(n * 0.95), n - 1)]


# ---------------------------------------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------------------------------------

def compare_scores(submitted: dict, recomputed: dict) -> list[Discrepancy]:
    """Discrepancies between a card's `scores` and `recompute_scores(results)`, beyond the tolerances.

    A value missing on either side is not compared; a breakdown is compared only for groups and fields
    present in both; nothing of any shape raises.
    """
    if not isinstance(submitted, dict) or not isinstance(recomputed, dict):
        return []
    discrepancies = [
        found for name, kind in COMPARED_SCORES.items()
        if (found := _compare(f"scores.{name}", kind, submitted.get(name), recomputed.get(name)))
    ]
    for name in BREAKDOWNS:
        discrepancies += _compare_breakdown(f"scores.{name}", submitted.get(name), recomputed.get(name))
    return discrepancies


def compare_top_level(card: dict, recomputed: dict) -> list[Discrepancy]:
    """Discrepancies of the breakdowns the harness writes at the card's top level (`by_segment`)."""
    return [found for name in TOP_LEVEL_BREAKDOWNS
            for found in _compare_breakdown(name, card.get(name), recomputed.get(name))]


def _compare_breakdown(path: str, given: Any, derived: Any) -> list[Discrepancy]:
    if not isinstance(given, dict) or not isinstance(derived, dict):
        return []
    discrepancies = []
    for group, figures in derived.items():
        given_group = given.get(group)
        if not isinstance(given_group, dict):
            continue
        prefix = _key_path(path, group)
        discrepancies.extend(
            found for field, kind in COMPARED_GROUP_FIELDS.items()
            if (found := _compare(f"{prefix}.{field}", kind, given_group.get(field), figures.get(field)))
        )
    return discrepancies


def claimed_secondary_scores(card: dict) -> dict[str, tuple[str, float]]:
    """metric → (path, value) of the corpus BLEU and TER the card reports (the harness writes BLEU at the top level
    as `corpus_bleu`, TER as `scores.ter`); a metric the card does not report is not recomputed."""
    scores = card.get("scores") if isinstance(card.get("scores"), dict) else {}
    candidates = {"bleu": (("corpus_bleu", card.get("corpus_bleu")), ("scores.corpus_bleu", scores.get("corpus_bleu"))),
                  "ter": (("scores.ter", scores.get("ter")),)}
    claimed = {}
    for metric, places in candidates.items():
        for path, value in places:
            if _number(value) is not None:
                claimed[metric] = (path, float(value))
                break
    return claimed


def secondary_scores(results: list[dict], metrics: Iterable[str]) -> dict[str, float | None]:
    """Corpus BLEU and TER (sacrebleu's defaults, as the harness computes them) of the results against the references
    they carry, an errored result scored as an empty hypothesis, one without a reference left out (upstream's segment
    rule, as for chrF++). TER aligns
    every sentence with shifts: 10,000 sentences take tens of seconds, which is why verification leaves these to a
    task of their own."""
    from sacrebleu.metrics import BLEU, TER

    entries = [entry for entry in _entries(results) if _text(entry.get("expected")).strip()]
    hypotheses = [hypothesis(entry) for entry in entries]
    references = [_text(entry.get("expected")) for entry in entries]
    computed: dict[str, float | None] = {}
    for metric in metrics:
        scorer = {"bleu": BLEU, "ter": TER}[metric]()
        computed[metric] = scorer.corpus_score(hypotheses, [references]).score if entries else None
    return computed


def compare_secondary(claimed: dict[str, tuple[str, float]], recomputed: dict[str, float | None]) -> list[Discrepancy]:
    """Claimed BLEU and TER against those recomputed, with chrF++'s tolerance (±0.05 points)."""
    return [found for metric, (path, value) in claimed.items()
            if (found := _compare(path, "chrf", value, recomputed.get(metric)))]


def _tolerance(kind: str, recomputed: float) -> float:
    """Counts exact; rates ±0.001; chrF++ ±0.05 points; latencies the larger of 0.01 s and 1 %."""
    return {
        "count": 0.0,
        "rate": RATE_TOLERANCE,
        "chrf": CHRF_TOLERANCE,
        "latency": max(LATENCY_TOLERANCE_SECONDS, LATENCY_TOLERANCE_RELATIVE * abs(recomputed)),
    }[kind]


def _compare(path: str, kind: str, submitted: Any, recomputed: Any) -> Discrepancy | None:
    if submitted is None or recomputed is None:
        return None
    allowed = _tolerance(kind, recomputed)
    value = _number(submitted)
    if value is None:
        return Discrepancy(path, submitted, recomputed, allowed, f"expected a number, found {_show(submitted)}")
    # The 1e-9 absorbs binary floating point at the exact edge of the tolerance (45.65 vs 45.6).
    if abs(value - recomputed) <= allowed + 1e-9:
        return None
    shown = f"{recomputed:g}" if kind == "count" else f"{recomputed:.6g}"
    bound = "exactly" if kind == "count" else f"within ±{allowed:g}"
    return Discrepancy(path, submitted, recomputed, allowed,
                       f"submitted {submitted!r}, but results[] give {shown} (must agree {bound})")


def _key_path(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if key.isidentifier() or key.isdigit() else f"{prefix}[{_show(key)}]"


# ---------------------------------------------------------------------------------------------------------
# Composite, tiers and cost-adjusted score (§4.2, §4.3, §5; SPEC §9)
# ---------------------------------------------------------------------------------------------------------

def legacy_composite(scores: dict, fst_available: bool) -> float | None:
    """Σ wᵢ·mᵢ / Σ wᵢ over the metrics present, with profile A (FST) or B weights, rounded to 4 places.

    chrF++ is divided by 100, code-switching and hallucination enter as 1 − value, and each normalized
    value is clamped to 0–1 as the harness does; a card saying `morph_in_composite: false` had its
    morphological accuracy left out (below the harness's coverage floor). None when no weighted metric
    is present.
    """
    weights = PROFILE_A_WEIGHTS if fst_available else PROFILE_B_WEIGHTS
    weighted = []
    for name, weight in weights.items():
        value = _number(scores.get(name))
        if value is None or (name == "morphological_accuracy" and scores.get("morph_in_composite") is False):
            continue
        if name == "chrf_plus_plus":
            value /= 100
        elif name in INVERTED_METRICS:
            value = 1 - value
        weighted.append((weight, min(1.0, max(0.0, value))))
    if not weighted:
        return None
    return round(sum(weight * value for weight, value in weighted) / sum(weight for weight, _ in weighted), 4)


def quality_tier(composite: float | None, bands: dict[str, float] | None = None) -> str | None:
    """The tier of a composite under a language pair's bands (by default Baseline < 0.30 ≤ Emerging < 0.50 ≤
    Functional < 0.70 ≤ Deployable < 0.85 ≤ Fluent); None without a composite."""
    value = _number(composite)
    if value is None:
        return None
    bands = bands or DEFAULT_TIER_BANDS
    return next((TIER_NAMES[name] for name in TIER_NAMES if value >= bands[name]), LOWEST_TIER)


def cost_adjusted(composite: float | None, cost_per_entry_usd: float | None) -> float | None:
    """composite / max(1, log2(1 + cost × 1000)), rounded to 4 places: cost only ever lowers the score.
    The composite itself when the cost is missing or ≤ 0."""
    value = _number(composite)
    if value is None:
        return None
    cost = _number(cost_per_entry_usd)
    if cost is None or cost <= 0:
        return round(value, 4)
    return round(value / max(1.0, math.log2(1 + cost * 1000)), 4)


def subset_scores(results: list[dict], statistics: list | None = None) -> dict[str, Any]:
    """Scores of a subset of results[] (one domain's entries, say), for domain-filtered rankings.

    chrF++ is corpus-level over the subset (an errored entry an empty hypothesis, as for the whole card); the rates
    are shares of the per-entry verdicts; the semantic score uses the harness's verdict weights; the composite is
    the legacy one over what is available, with profile A when the subset has FST verdicts. `statistics`: as for
    `recompute_scores`.
    """
    entries = _entries(results)
    evaluated = [entry for entry in entries if not entry.get("error")]
    if statistics is None:
        statistics = entry_statistics(results)
    exact = sum(1 for entry in evaluated if entry.get("exact_match") is True)
    # UNKNOWN and ERROR verdicts say the validator could not judge: they are no evidence either way.
    verdicts = [entry["semantic_verdict"] for entry in evaluated
                if isinstance(entry.get("semantic_verdict"), str) and entry["semantic_verdict"] not in NO_VERDICT]
    scores = {
        "total": len(entries),
        "chrf_plus_plus": _corpus_chrf(list(statistics)) if evaluated else None,
        "exact_match_rate": exact / len(evaluated) if evaluated else None,
        "equivalent_match_rate": _verdict_share(evaluated, "equivalent_match")[1],
        "fst_acceptance_rate": _verdict_share(evaluated, "fst_valid")[1],
        "code_switching_rate": _verdict_share(evaluated, "code_switching_detected")[1],
        "hallucination_rate": _verdict_share(evaluated, "hallucination_detected")[1],
        "semantic_score": (sum(SEMANTIC_VERDICT_WEIGHTS.get(v, 0.0) for v in verdicts) / len(verdicts)
                           if verdicts else None),
    }
    scores["composite"] = legacy_composite(scores, fst_available=scores["fst_acceptance_rate"] is not None)
    return scores
