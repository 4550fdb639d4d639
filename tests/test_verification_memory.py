"""Run-card ingest without the card held several times: the seal hashed as its text is written, chrF++
statistics extracted a chunk of sentences at a time, `raw` stored from the request's bytes, method_config cut
out without parsing results[] twice, and inline verification on the card as parsed. Every figure must stay
exactly what the whole-card computations give (sacrebleu's corpus_score to the last bit, the harness's seal)."""

import hashlib
import json
import tracemalloc

import pytest
from django.db import connection
from sacrebleu.metrics import CHRF

from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard.cards import top_level_value_text
from leaderboard.models import RunCard
from leaderboard.services import member_text, submit_run_card, verify_run_card
from leaderboard.verification import (
    STATISTICS_CHUNK,
    card_hash,
    entry_statistics,
    recompute_scores,
    subset_scores,
)

from .cards import body, make_card, seal
from .conftest import corpus_bytes, entry, publish
from .test_verification import make_card as harness_card
from .test_verification import result

WORDS = ("tânisi", "atim", "niwâpamâw", "ᓂᐚᐸᒫᐤ", "the", "dog", "😀", "", "maskwa", "sîsîp")


def sentence(n: int, salt: int) -> str:
    return " ".join(WORDS[(n * 7 + salt * 3 + k) % len(WORDS)] for k in range(n % 13))


def rows(count: int) -> list[dict]:
    """Results of every kind sacrebleu is given: errored ones (empty hypotheses), ones without a reference (left
    out), empty and non-string texts included."""
    made = []
    for n in range(count):
        predicted = sentence(n, 1) if n % 11 else n  # a number is scored as its text
        made.append(result(str(n), "source", sentence(n, 0) if n % 17 else None, predicted,
                           domain=("conv", "legal", "medical")[n % 3], error="timeout" if n % 29 == 0 else None))
    return made


def texts(results: list[dict]) -> tuple[list[str], list[str]]:
    """Upstream's segment rule (significance.scored_pairs): every entry with a reference, an errored one's hypothesis
    empty."""
    scored = [r for r in results if r["expected"]]
    return (["" if r["error"] else str(r["predicted"]) for r in scored], [r["expected"] for r in scored])


def test_chunked_statistics_give_sacrebleus_numbers_exactly():
    results = rows(3 * STATISTICS_CHUNK + 17)
    hypotheses, references = texts(results)
    scores = recompute_scores(results)
    assert scores["chrf_plus_plus"] == CHRF(word_order=2).corpus_score(hypotheses, [references]).score
    for domain in ("conv", "legal", "medical"):
        members = [r for r in results if r["domain"] == domain]
        group_hypotheses, group_references = texts(members)
        expected = CHRF(word_order=2).corpus_score(group_hypotheses, [group_references]).score
        assert scores["by_domain"][domain]["chrf_plus_plus"] == expected
        assert subset_scores(members)["chrf_plus_plus"] == expected
    statistics = entry_statistics(results)
    assert [not any(stats) for stats in statistics] == [not r["expected"] for r in results]
    whole = CHRF(word_order=2)._extract_corpus_statistics(hypotheses, [references])
    assert [stats for stats, r in zip(statistics, results, strict=True) if r["expected"]] == whole


def test_sacrebleu_is_given_one_chunk_of_sentences_at_a_time(monkeypatch):
    calls = []
    extract = CHRF._extract_corpus_statistics

    def counted(metric, hypotheses, references):
        calls.append(len(hypotheses))
        return extract(metric, hypotheses, references)

    monkeypatch.setattr(CHRF, "_extract_corpus_statistics", counted)
    results = rows(2 * STATISTICS_CHUNK + 1)
    entry_statistics(results)
    assert max(calls) <= STATISTICS_CHUNK
    assert sum(calls) == sum(1 for r in results if r["expected"])


def harness_seal(card: dict) -> str:
    """The harness's recipe, on the whole text at once."""
    text = json.dumps({**card, "run_card_hash": ""}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


SHAPES = [
    harness_card(),
    {},
    {"results": []},
    {"results": [[], {}, [[1]], "x", None], "a": [1, 2], "run_card_hash": "stale"},
    {"Z": 1, "a": 2, "é": 3, "ž": [4.5], "\n": '"quoted"', "": {"b": 1, "a": [True, False, None]}},
    json.loads('{"results": [{"x": 1E400, "y": -0.0, "z": 1e-7, "w": 12345678901234567890, "v": 0.1}],'
               '"t": "\\ud800 lone, \\ud83d\\ude00 paired, \\u0000 NUL, ᓂᐚᐸᒫᐤ", "n": 1.0}'),
]


@pytest.mark.parametrize("card", SHAPES)
def test_the_seal_is_the_harness_recipe_for_every_shape(card):
    assert card_hash(card) == harness_seal(card)


def test_the_seal_is_hashed_without_holding_the_cards_text():
    card = harness_card(results=rows(3000))
    size = len(json.dumps(card, sort_keys=True, ensure_ascii=False))
    tracemalloc.start()
    try:
        sealed = card_hash(card)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sealed == harness_seal(card)
    # json.dumps of the whole card held its text and then its bytes: more than twice `size`.
    assert peak < size / 20, (peak, size)


BODIES = {
    "as the harness writes it": '{"method_config": {"a": [1, {"b": "é"}]}, "results": [{"x": 1}]}',
    "after results": '{"results": [{"x": 1}, {"y": [2]}], "method_config": {"k": "v"} }',
    "compact, escaped": '{"results":[],"method_config":{"\\u00e9":"\\ud83d\\ude00"}}',
    "spaced": '{ "method_config" :\n\t{ "a" : 1 } ,\r\n "results" : [ ] }',
    "repeated member": '{"method_config": {"a": 1}, "results": [], "method_config": {"b": 2}}',
    "repeated key inside results": '{"results": [{"x": 1, "x": 2}], "method_config": {"a": 1}}',
    "repeated results": '{"results": [1], "method_config": {"a": 1}, "results": [2]}',
    "absent": '{"results": [{"method_config": {}}]}',
    "nested results array": '{"results": [[[{"a": [1, [2]]}]], 3.5e-2], "method_config": {}}',
}


@pytest.mark.parametrize("name", list(BODIES))
def test_method_config_is_cut_out_as_top_level_value_text_does(name):
    text = BODIES[name]
    assert member_text(text.encode("utf-8"), text, "method_config") == top_level_value_text(text, "method_config")


# ---------------------------------------------------------------------------------------------------------
# The ingest
# ---------------------------------------------------------------------------------------------------------

def dataset(steward, count: int):
    entries = [entry(n, "development", domain=("conv", "legal", "medical")[n % 3], reference=sentence(n, 0) or "x",
                     difficulty=1 + n % 5) for n in range(1, count + 1)]
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    return version, list(Entry.objects.filter(version=version).order_by("position"))


def predict(row) -> str:
    n = int(row.entry_id)
    return row.reference if n % 3 else sentence(n, 2)


def domain_scores(run_card: RunCard) -> list[tuple]:
    return list(run_card.domain_scores.order_by("domain").values_list(
        "domain", "result_count", "chrf_plus_plus", "exact_match_rate", "semantic_score", "composite"))


@pytest.mark.django_db
def test_inline_verification_gives_what_verification_from_the_stored_text_gives(steward, speaker):
    version, entries = dataset(steward, 60)
    card = make_card(version, entries, predict=predict, sealed=False)
    card["scores"]["chrf_plus_plus"] -= 1  # discrepancies to compare, besides the domain scores
    card["results"][4]["latency_s"] = 30.0
    run_card = submit_run_card(body=body(card), actor=speaker)
    assert run_card.status == RunCard.Status.READY
    found, scores = run_card.discrepancies, domain_scores(run_card)
    assert {d["path"] for d in found} >= {"scores.chrf_plus_plus", "scores.avg_latency_seconds"}
    assert len(scores) == 3
    verify_run_card(run_card.pk)  # what the worker does: parse the stored text
    run_card.refresh_from_db()
    assert run_card.discrepancies == found and domain_scores(run_card) == scores


@pytest.mark.django_db
def test_the_stored_text_is_the_request_body_and_is_read_when_used(steward, speaker):
    version, entries = dataset(steward, 12)
    card = make_card(version, entries, predict=predict)
    card["method_config"]["coachingPrompt"] = "ᓀᐦᐃᔭᐍᐏᐣ 😀 \"quoted\" \\ back"
    raw = ("\r\n" + json.dumps(seal(card), ensure_ascii=True, indent="\t") + "\n").encode("utf-8")
    run_card = submit_run_card(body=raw, actor=speaker)
    assert "raw" in run_card.get_deferred_fields()
    assert run_card.raw == raw.decode("utf-8")
    stored = RunCard.objects.get()
    assert stored.raw.encode("utf-8") == raw
    assert stored.method_config == top_level_value_text(raw.decode("utf-8"), "method_config")
    assert "\\ud83d\\ude00" in stored.method_config and "😀" not in stored.method_config  # escapes kept verbatim


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="only PostgreSQL is sent rows and text as a stream")
def test_the_ingest_does_not_hold_the_card_several_times(steward, speaker, settings):
    version, entries = dataset(steward, 3000)
    raw = body(make_card(version, entries, predict=predict))
    settings.RUN_CARD_INLINE_MAX_RESULTS = len(entries)
    tracemalloc.start()
    try:
        run_card = submit_run_card(body=raw, actor=speaker)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert run_card.status == RunCard.Status.READY and run_card.discrepancies == []
    # The peak is parse_card's: the decoded text (four bytes a character, for an emoji holds one) and the parsed
    # card, about seven times the body. sacrebleu's cache of every reference at once took twenty times it.
    assert peak < 10 * len(raw), (peak, len(raw))
