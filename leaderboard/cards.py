"""Structure and type checks of a run card (SPEC §4), every problem with its JSON path, written in the language of
the request being served: each message a whole sentence with named placeholders, a value from the card in it shown
by corpus.validation.describe (JSON-quoted, cut to 40 characters)."""

import json
import math
import re
from datetime import datetime
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from common.problems import FieldProblem, ProblemList
from common.text import refusal_of_hidden_or_directional
from corpus.validation import describe

SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
REQUIRED_TOP = {"run_id": str, "harness_version": str, "timestamp": str}
REQUIRED_CONFIG = {
    "model_slug": str,
    "condition": str,
    "temperature": (int, float),
    "system_prompt_sha256": str,
    "system_prompt_used": (str, bool),
}
DATASET_FIELDS = {"id": str, "version": str, "language_pair": (str, dict), "sha256": str, "entry_count": int}
RATE_SCORES = (
    "exact_match_rate", "equivalent_match_rate", "fst_acceptance_rate", "morphological_accuracy", "semantic_score",
    "code_switching_rate", "hallucination_rate", "terminology_adherence", "composite",
)
NON_NEGATIVE_SCORES = (
    "total", "exact_matches", "equivalent_matches", "fst_accepted", "errors", "ter", "length_ratio",
    "tokens_per_second", "entries_per_minute", "avg_latency_seconds", "median_latency_seconds", "p95_latency_seconds",
)
NON_NEGATIVE_TOTALS = (
    "prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "total_cost_usd", "cost_per_entry_usd",
    "cost_per_source_char",
)
RESULT_TEXT_FIELDS = ("source", "expected", "raw_predicted", "predicted")
RESULT_BOOL_FIELDS = (
    "exact_match", "fst_valid", "equivalent_match", "code_switching_detected", "hallucination_detected"
)


# Beyond 2**53 a JSON number loses precision in most readers; no score, count or size comes near it.
MAX_MAGNITUDE = 2**53
TEXT_LIMITS = {"run_id": 200, "harness_version": 50, "model_slug": 200, "model_id": 200, "condition": 200,
               "fst_version": 200}


def is_number(value: Any) -> bool:
    """A finite JSON number of a sane magnitude (booleans are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        return abs(value) < MAX_MAGNITUDE
    return math.isfinite(value) and abs(value) < MAX_MAGNITUDE


# The refusal of a value of the wrong type, one whole sentence for each type a card's fields are checked against
# (the specs above and check_fields' optional fields), translated when it is written.
WRONG_TYPE = {
    str: gettext_noop("expected a string, found %(found)s"),
    int: gettext_noop("expected an integer, found %(found)s"),
    (int, float): gettext_noop("expected a number, found %(found)s"),
    (str, bool): gettext_noop("expected a string or a boolean, found %(found)s"),
    (str, dict): gettext_noop("expected a string or an object, found %(found)s"),
    dict: gettext_noop("expected an object, found %(found)s"),
}


def wrong_type(expected, value: Any) -> str:
    """Why `value` is refused where a value of the type `expected` (a key of WRONG_TYPE) belongs."""
    return _(WRONG_TYPE[expected]) % {"found": describe(value)}


def not_a_list(value: Any) -> str:
    """Why a list of rows (results[], entries) is refused: missing, or something else."""
    return _("required list is missing") if value is None else _("expected a list, found %(found)s") % {
        "found": describe(value)}


def not_an_object(value: Any) -> str:
    """Why a required object of the card (dataset, scores) is refused: missing, or something else."""
    return _("required object is missing") if value is None else wrong_type(dict, value)


def matches(value: Any, expected) -> bool:
    if isinstance(value, bool):
        return expected is bool or (isinstance(expected, tuple) and bool in expected)
    if expected == (int, float):
        return is_number(value)
    if expected is int:
        return isinstance(value, int) and is_number(value)
    return isinstance(value, expected)


def check_fields(block: dict, spec: dict, prefix: str, problems: list[FieldProblem], required: bool = True) -> None:
    for name, expected in spec.items():
        path = f"{prefix}{name}"
        if name not in block or block[name] is None:
            if required:
                problems.append(FieldProblem(path, _("required field is missing")))
        elif not matches(block[name], expected):
            problems.append(FieldProblem(path, wrong_type(expected, block[name])))


# A bound overshot by floating-point rounding is the bound: the harness writes a perfect sentence's BLEU as
# 100.00000000000004. Anything further out is a real error.
BOUND_SLACK = 1e-9


def clamped(value: Any, low: float, high: float | None) -> Any:
    """A number within BOUND_SLACK of its range, put on the bound it overshot (what is stored and shown; the card's
    own text, which the hash covers, is never changed); anything else unchanged."""
    if not is_number(value):
        return value
    if value < low:
        return low
    if high is not None and value > high:
        return high
    return value


def out_of_range(low: float, high: float | None, found: str, *, null: bool = False) -> str:
    """The refusal of a number outside [low, high] (no upper bound when `high` is None); `null`: null is allowed
    too. `found` is the value as the card writes it."""
    values = {"low": f"{low:g}", "high": f"{high:g}" if high is not None else "", "found": found}
    if high is None:
        message = (_("expected a number ≥ %(low)s or null, found %(found)s") if null
                   else _("expected a number ≥ %(low)s, found %(found)s"))
    else:
        message = (_("expected a number from %(low)s to %(high)s or null, found %(found)s") if null
                   else _("expected a number from %(low)s to %(high)s, found %(found)s"))
    return message % values


def check_range(block: dict, names, prefix: str, low: float, high: float | None, problems: list[FieldProblem]) -> None:
    for name in names:
        value = block.get(name)
        if value is None:
            continue
        if not is_number(value):
            problems.append(FieldProblem(f"{prefix}{name}", out_of_range(low, high, describe(value), null=True)))
        elif value < low - BOUND_SLACK or (high is not None and value > high + BOUND_SLACK):
            problems.append(FieldProblem(f"{prefix}{name}", out_of_range(low, high, repr(value))))


def validate_card(card: Any, entries: list | None = None, rows_apart: bool = False) -> list[FieldProblem]:
    """Every structural problem of a parsed run card, at once (the first MAX_LISTED_PROBLEMS kept, the others
    counted: common.problems.ProblemList). `entries` are its per-entry rows when they come
    beside the card rather than as its `results[]` (the harness publishes them apart): checked the same way,
    named `entries[i]`. `rows_apart`: the rows are still to come, so only the card itself is checked."""
    if not isinstance(card, dict):
        return [FieldProblem("", _("expected a JSON object (a run card), found %(found)s") % {"found": describe(card)})]
    problems: list[FieldProblem] = ProblemList()
    check_fields(card, REQUIRED_TOP, "", problems)
    check_fields(card, REQUIRED_CONFIG, "", problems)
    check_fields(card, {"model_id": str, "fst_version": str, "coaching_data_sha256": str, "batch_size": int,
                        "max_retries": int, "elapsed_seconds": (int, float), "run_card_hash": str,
                        "method_config": dict, "method_card": dict, "method": dict},
                 "", problems, required=False)
    if isinstance(card.get("run_id"), str) and not card["run_id"].strip():
        problems.append(FieldProblem("run_id", _("expected a non-empty name of the run, found an empty string")))
    if isinstance(card.get("timestamp"), str):
        moment = parse_timestamp(card["timestamp"])
        if moment is None:
            problems.append(FieldProblem("timestamp", _("expected an ISO 8601 date-time with its UTC offset (e.g. "
                                                        "2026-11-30T12:00:00Z) between 1970 and 9999, found "
                                                        "%(found)s") % {"found": describe(card["timestamp"])}))
    for name, limit in TEXT_LIMITS.items():
        if isinstance(card.get(name), str) and len(card[name]) > limit:
            problems.append(FieldProblem(name, _("expected at most %(limit)s characters, found %(count)s")
                                         % {"limit": limit, "count": len(card[name])}))
        elif isinstance(card.get(name), str) and (refusal := refusal_of_hidden_or_directional(card[name])):
            # These labels name the run on the leaderboard and the card's page, inside the site's own sentences.
            problems.append(FieldProblem(name, refusal))
    if isinstance(card.get("batch_size"), int) and not is_number(card["batch_size"]):
        problems.append(FieldProblem("batch_size", _("expected an integer below 2**53")))
    # "" is what the harness writes for a run without a system prompt (every method-plugin run).
    if isinstance(card.get("system_prompt_sha256"), str) and card["system_prompt_sha256"] \
            and not SHA256_HEX.match(card["system_prompt_sha256"]):
        problems.append(FieldProblem("system_prompt_sha256",
                                     _('expected 64 lowercase hexadecimal characters, or "" for no system prompt')))
    if is_number(card.get("temperature")) and not 0 <= card["temperature"] <= 5:
        problems.append(FieldProblem("temperature", out_of_range(0, 5, repr(card["temperature"]))))
    check_range(card, ["elapsed_seconds"], "", 0, None, problems)

    dataset = card.get("dataset")
    if not isinstance(dataset, dict):
        problems.append(FieldProblem("dataset", not_an_object(dataset)))
    else:
        check_fields(dataset, DATASET_FIELDS, "dataset.", problems)
        if isinstance(dataset.get("sha256"), str) and not SHA256_HEX.match(dataset["sha256"]):
            problems.append(FieldProblem("dataset.sha256", _("expected 64 lowercase hexadecimal characters")))

    scores = card.get("scores")
    if not isinstance(scores, dict):
        problems.append(FieldProblem("scores", not_an_object(scores)))
    else:
        check_range(scores, RATE_SCORES, "scores.", 0, 1, problems)
        check_range(scores, ["chrf_plus_plus"], "scores.", 0, 100, problems)
        check_range(scores, NON_NEGATIVE_SCORES, "scores.", 0, None, problems)
        standard = scores.get("scoring_standard")
        if standard is not None and (not isinstance(standard, str) or not 0 < len(standard) <= 40):
            problems.append(FieldProblem("scores.scoring_standard",
                                         _('expected a name such as "standard/1", found %(found)s')
                                         % {"found": describe(standard)}))
        if standard is None and scores.get("composite") is None:
            problems.append(FieldProblem("scores.composite",
                                         _("required for a legacy-composite card (no scoring_standard)")))
    totals = card.get("totals")
    if totals is not None:
        if not isinstance(totals, dict):
            problems.append(FieldProblem("totals", wrong_type(dict, totals)))
        else:
            check_range(totals, NON_NEGATIVE_TOTALS, "totals.", 0, None, problems)

    if rows_apart and entries is None:
        return problems
    name = "results"
    results = card.get("results")
    if entries is not None:
        name, results = "entries", entries
        if card.get("results") is not None:
            problems.append(FieldProblem("results", _("the card holds results[] and entries come beside it: send "
                                                      "one or the other")))
    if not isinstance(results, list):
        problems.append(FieldProblem(name, not_a_list(results)))
    else:
        if not results:
            problems.append(FieldProblem(name, _("expected at least one result")))
        seen: dict[str, int] = {}
        for index, result in enumerate(results):
            validate_result(index, result, seen, problems, name)
        if isinstance(dataset, dict) and isinstance(dataset.get("entry_count"), int) \
                and not isinstance(dataset["entry_count"], bool) and dataset["entry_count"] != len(results):
            problems.append(FieldProblem("dataset.entry_count", entry_count_problem(dataset["entry_count"], name,
                                                                                    len(results))))
    return problems


def entry_count_problem(declared: int, name: str, rows: int) -> str:
    """The refusal of a dataset.entry_count other than the number of rows the card's `name` (results or entries)
    holds: one sentence for each, naming the list as the card does."""
    values = {"declared": declared, "rows": rows}
    if name == "results":
        return ngettext("is %(declared)s but results holds %(rows)s entry",
                        "is %(declared)s but results holds %(rows)s entries", rows) % values
    return ngettext("is %(declared)s but entries holds %(rows)s entry",
                    "is %(declared)s but entries holds %(rows)s entries", rows) % values


def parse_timestamp(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None or not 1970 <= moment.year <= 9999:
        return None
    return moment


def validate_result(index: int, result: Any, seen: dict[str, int], problems: list[FieldProblem],
                    name: str = "results") -> None:
    prefix = f"{name}[{index}]."
    if not isinstance(result, dict):
        problems.append(FieldProblem(f"{name}[{index}]", wrong_type(dict, result)))
        return
    entry_id = result.get("entry_id")
    if entry_id is None:
        problems.append(FieldProblem(prefix + "entry_id", _("required field is missing")))
    elif isinstance(entry_id, bool) or not isinstance(entry_id, (str, int)):
        problems.append(FieldProblem(prefix + "entry_id", _("expected a string or an integer, found %(found)s")
                                     % {"found": describe(entry_id)}))
    else:
        key = str(entry_id)
        if key in seen:
            problems.append(FieldProblem(prefix + "entry_id", _("duplicate: %(row)s scores the same entry")
                                         % {"row": f"{name}[{seen[key]}]"}))
        else:
            seen[key] = index
    for field in RESULT_TEXT_FIELDS:
        value = result.get(field)
        if value is not None and not isinstance(value, str):
            problems.append(FieldProblem(prefix + field, _("expected a string or null, found %(found)s")
                                         % {"found": describe(value)}))
    for field in RESULT_BOOL_FIELDS:
        value = result.get(field)
        if value is not None and not isinstance(value, bool):
            problems.append(FieldProblem(prefix + field, _("expected true, false or null, found %(found)s")
                                         % {"found": describe(value)}))
    check_range(result, ["chrf_score", "bleu_score"], prefix, 0, 100, problems)
    check_range(result, ["latency_s", "cost_usd", "tool_call_count"], prefix, 0, None, problems)
    if difficulty_level(result.get("difficulty")) is INVALID:
        problems.append(FieldProblem(prefix + "difficulty", _(
            'expected a difficulty from 1 to 5 (an integer, a numeric string such as "3", or a tier name such as '
            '"Hard" or "Tier 3"), 0 or null for none, found %(found)s') % {"found": describe(result["difficulty"])}))


INVALID = object()
# The harness's names of the difficulty tiers (its report prints "Hard (Tier 3)"); 0 is "Unrated".
TIER_NAMES = {"unrated": 0, "easy": 1, "medium": 2, "hard": 3, "very hard": 4, "expert": 5}
TIER_NAME = re.compile(r"^(?:(?P<name>[a-z ]+?)\s*(?:\(\s*tier\s*(?P<inner>\d)\s*\))?|tier\s*(?P<tier>\d))$")


def difficulty_level(value: Any) -> Any:
    """A result's difficulty as an integer 1–5, None for none (null, 0, "", "Unrated"), INVALID otherwise. The
    harness types it `string | null` (benchmark specification §3.7) and writes integers; both are read."""
    if value is None or value == "" or (isinstance(value, int) and not isinstance(value, bool) and value == 0):
        return None
    if isinstance(value, bool):
        return INVALID
    if isinstance(value, str):
        text = " ".join(value.strip().lower().split())
        if text.isdigit():
            value = int(text)
        else:
            match = TIER_NAME.match(text)
            if match is None:
                return INVALID
            levels = {int(n) for n in (match["inner"], match["tier"]) if n} | (
                {TIER_NAMES[match["name"]]} if match["name"] in TIER_NAMES else set())
            if len(levels) != 1 or (match["name"] and match["name"] not in TIER_NAMES):
                return INVALID
            value = levels.pop()
    if not isinstance(value, int):
        return INVALID
    if value == 0:
        return None
    return value if 1 <= value <= 5 else INVALID


def top_level_value_text(text: str, key: str) -> str | None:
    """The exact source text of a top-level key's value in a JSON object, so it can be served verbatim.

    Steps over the (already parsed) JSON text member by member; like json.loads, the last of
    duplicate keys wins. Returns None when the key is absent.
    """
    decoder = json.JSONDecoder()
    index = text.index("{") + 1
    length = len(text)
    value = None
    while index < length:
        while index < length and text[index] in " \t\r\n,":
            index += 1
        if index >= length or text[index] == "}":
            break
        name, index = decoder.raw_decode(text, index)
        while text[index] in " \t\r\n:":
            index += 1
        start = index
        _, index = decoder.raw_decode(text, index)
        if name == key:
            value = text[start:index]
    return value
