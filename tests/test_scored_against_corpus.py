"""Every score of a run card is computed against the entries the site holds, never against the card's own `expected`
or `exact_match`; a card whose texts contradict the stored corpus is named entry by entry and never shown as
verified; setups are grouped by the card's own fingerprint, also for cards pinning the public download."""

import copy
import hashlib
import json
import unicodedata

import pytest
from django.core.management import call_command
from sacrebleu.metrics import BLEU, CHRF, TER

from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard import verification
from leaderboard.models import RunCard, RunCardResult
from leaderboard.services import submit_run_card

from .cards import body, make_card, seal
from .conftest import corpus_bytes, entries_of, entry, grant_all_consents, publish, published_version

pytestmark = pytest.mark.django_db

STANDARD = "standard/1"


@pytest.fixture
def version(steward):
    entries = [entry(n, "development", difficulty=1 + n % 3, domain="medical" if n <= 10 else "legal",
                     **({"variant_class": "ta-direct"} if n % 2 else {}))
               for n in range(1, 21)]
    return published_version(steward, entries)


def wrong(entry_row) -> str:
    return f"guess {entry_row.entry_id}"


def lying_card(version, **options) -> dict:
    """Every prediction wrong, but each copied into `expected` with `exact_match: true` and perfect scores claimed:
    what a card computed against its own texts would call chrF++ 100."""
    card = make_card(version, entries_of(version), predict=wrong, scoring_standard=STANDARD, **options)
    for result in card["results"]:
        result["expected"] = result["predicted"]
        result["exact_match"] = True
        result["chrf_score"] = 100.0
    card["scores"].update(exact_matches=len(card["results"]), exact_match_rate=1.0, chrf_plus_plus=100.0)
    return seal(card)


def true_chrf(version, predict) -> float:
    entries = entries_of(version)
    return CHRF(word_order=2).corpus_score([predict(e) for e in entries], [[e.reference for e in entries]]).score


def api_rows(client, **params) -> list[dict]:
    response = client.get("/api/v1/leaderboard/", params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_a_card_whose_expected_texts_are_its_predictions_is_listed_at_its_true_score(client, version, speaker):
    stored = submit_run_card(body=body(lying_card(version)), actor=speaker)

    assert stored.status == "ready" and stored.corpus_mismatches == 20 and not stored.matches_corpus
    assert stored.recomputed_exact_match_rate == 0.0
    assert stored.leaderboard_chrf_plus_plus == pytest.approx(true_chrf(version, wrong))
    assert stored.leaderboard_chrf_plus_plus < 40 and stored.primary_recomputed
    paths = {d["path"]: d for d in stored.discrepancies}
    first = paths["results[0].expected"]
    assert first["message"] == "differs from the stored reference of entry 1" and first["entry"] == "1"
    assert "results[0].source" not in paths  # its source is the stored one
    assert paths["scores.exact_match_rate"]["recomputed"] == 0.0
    [row] = api_rows(client, dataset=version.dataset.identifier)
    assert row["chrf_plus_plus"] == pytest.approx(stored.leaderboard_chrf_plus_plus)
    assert row["exact_match_rate"] == 0.0
    assert row["corpus_mismatches"] == 20 and row["verified_against_corpus"] is False
    assert row["verification_tier"] == "Self-benchmarked"
    assert row["recomputed_score"] == {"metric": "chrf_plus_plus", "claimed": 100.0,
                                       "recomputed": pytest.approx(stored.leaderboard_chrf_plus_plus)}

    page = client.get(f"/leaderboard/cards/{stored.public_id}/").content.decode()
    assert "Not verified: 20 of its results carry a source or expected text that differs from the stored corpus" in page
    assert "differs from the stored reference of entry 1" in page
    assert "Verified against the stored corpus" not in page
    board = client.get("/leaderboard/", {"dataset": version.dataset.identifier}).content.decode()
    assert "not verified: 20 results differ from the stored corpus" in board


def test_each_rows_scores_are_recomputed_against_its_stored_reference(client, version, speaker):
    entries = entries_of(version)
    stored = submit_run_card(body=body(lying_card(version)), actor=speaker)
    rows = {row.entry_id: row for row in RunCardResult.objects.filter(run_card=stored)}
    for corpus_entry in entries:
        row = rows[corpus_entry.pk]
        assert row.exact_match is False and row.data["exact_match"] is True  # the claim is kept as sent
        assert row.chrf_score == pytest.approx(
            CHRF(word_order=2).sentence_score(wrong(corpus_entry), [corpus_entry.reference]).score)
    results = client.get(f"/api/v1/run-cards/{stored.public_id}/results/").json()["results"]
    assert results[0]["recomputed"]["exact_match"] is False and results[0]["exact_match"] is True


def test_an_honest_card_is_verified_against_the_corpus(client, version, speaker):
    stored = submit_run_card(body=body(make_card(version, entries_of(version), scoring_standard=STANDARD)),
                             actor=speaker)
    assert stored.matches_corpus and stored.corpus_mismatches == 0 and stored.discrepancies == []
    assert stored.recomputed_exact_match_rate == 1.0
    page = client.get(f"/leaderboard/cards/{stored.public_id}/").content.decode()
    assert "Verified against the stored corpus" in page


def test_exact_match_is_identity_after_nfc_only():
    decomposed = unicodedata.normalize("NFD", "niwâpamâw atim")
    assert verification.exact_match(decomposed, "niwâpamâw atim")
    assert not verification.exact_match("Niwâpamâw atim", "niwâpamâw atim")
    assert not verification.exact_match("niwâpamâw atim ", "niwâpamâw atim")
    assert not verification.exact_match("", "")
    assert not verification.exact_match(None, "atim")


def test_texts_that_differ_only_by_normalization_are_no_discrepancy(version, speaker):
    card = make_card(version, entries_of(version), scoring_standard=STANDARD)
    for result in card["results"]:
        result["expected"] = unicodedata.normalize("NFD", result["expected"] + " â")
        result["source"] = unicodedata.normalize("NFD", result["source"])
    stored = submit_run_card(body=body(seal(card)), actor=speaker)
    assert stored.corpus_mismatches == 20  # " â" was added: the references differ
    card = make_card(version, entries_of(version), scoring_standard=STANDARD, model_slug="nfd")
    for result in card["results"]:
        result["source"] = unicodedata.normalize("NFD", result["source"])
    assert submit_run_card(body=body(seal(card)), actor=speaker).corpus_mismatches == 0


def test_secret_entries_are_scored_against_their_references_and_named_without_their_text(steward, governance_user,
                                                                                          client):
    entries = [entry(n, "development") for n in range(1, 4)] + [entry(n, "gold_standard") for n in range(4, 12)]
    stored_version = import_corpus(data=corpus_bytes(entries, id="gold-set"), organization=steward, actor=None).version
    grant_all_consents(stored_version.dataset)
    publish(stored_version.dataset)
    gold = list(Entry.objects.filter(version=stored_version, segment="gold_standard").order_by("position"))
    card = make_card(stored_version, gold, predict=wrong, scoring_standard=STANDARD)
    for result in card["results"]:
        result["expected"], result["exact_match"] = result["predicted"], True
    card["scores"].update(exact_match_rate=1.0, chrf_plus_plus=100.0)
    stored = submit_run_card(body=body(seal(card)), actor=governance_user)
    assert stored.corpus_mismatches == 8 and stored.recomputed_exact_match_rate == 0.0
    assert stored.leaderboard_chrf_plus_plus == pytest.approx(CHRF(word_order=2).corpus_score(
        [wrong(e) for e in gold], [[e.reference for e in gold]]).score)
    text = json.dumps(stored.discrepancies) + client.get(f"/leaderboard/cards/{stored.public_id}/").content.decode()
    assert "SECRETTEXT" not in text
    assert "differs from the stored reference of entry 4" in text


def test_breakdowns_group_by_the_stored_entry_not_the_cards_claim(version, speaker):
    card = make_card(version, entries_of(version), scoring_standard=STANDARD)
    for result in card["results"]:
        result["domain"], result["difficulty"] = "news", 5  # the corpus says medical/legal and 1–3
    stored = submit_run_card(body=body(seal(card)), actor=speaker)
    assert set(stored.domain_scores.values_list("domain", flat=True)) == {"medical", "legal"}


def test_a_per_segment_breakdown_that_disagrees_is_named(version, speaker):
    card = make_card(version, entries_of(version), scoring_standard=STANDARD)
    card["by_segment"] = {"development": {"count": 20, "exact_match_count": 7, "avg_chrf": 100.0}}
    stored = submit_run_card(body=body(seal(card)), actor=speaker)
    paths = {d["path"] for d in stored.discrepancies}
    assert paths == {"by_segment.development.exact_match_count"}


def close(entry_row) -> str:
    return entry_row.reference.replace("reference", "referense")


def test_bleu_and_ter_the_card_reports_are_recomputed_against_the_stored_references(
        version, speaker, eager_tasks, django_capture_on_commit_callbacks):
    entries = entries_of(version)
    card = make_card(version, entries, predict=close, scoring_standard=STANDARD)
    for result in card["results"]:
        result["expected"] = result["predicted"]
    card["corpus_bleu"] = 100.0
    card["scores"]["ter"] = 0.0
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        stored = submit_run_card(body=body(seal(card)), actor=speaker)
    assert len(callbacks) == 1  # the BLEU and TER task
    stored.refresh_from_db()
    hypotheses, references = [close(e) for e in entries], [[e.reference for e in entries]]
    assert stored.recomputed_ter > 0
    assert stored.recomputed_bleu == pytest.approx(BLEU().corpus_score(hypotheses, references).score)
    assert stored.recomputed_ter == pytest.approx(TER().corpus_score(hypotheses, references).score)
    paths = {d["path"] for d in stored.discrepancies}
    assert {"corpus_bleu", "scores.ter"} <= paths


def test_a_card_without_bleu_or_ter_gets_none_computed(version, speaker, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks() as callbacks:
        stored = submit_run_card(body=body(make_card(version, entries_of(version), scoring_standard=STANDARD)),
                                 actor=speaker)
    assert callbacks == []
    assert stored.recomputed_bleu is None and stored.recomputed_ter is None


def test_a_contradicting_card_cannot_be_gds_verified(version, speaker, maintainer):
    from leaderboard.services import RunCardRejected, record_reproduction

    original = submit_run_card(body=body(lying_card(version)), actor=speaker)
    reproduction = submit_run_card(body=body(lying_card(version)), actor=maintainer)
    with pytest.raises(RunCardRejected, match="stored corpus"):
        record_reproduction(actor=maintainer, original=original, reproduction=reproduction)


def test_reverify_rescores_cards_stored_before_against_the_corpus(version, speaker):
    stored = submit_run_card(body=body(lying_card(version)), actor=speaker)
    # As verification left a card before scores were computed against the stored entries.
    RunCard.objects.filter(pk=stored.pk).update(
        corpus_mismatches=0, recomputed_exact_match_rate=None, leaderboard_chrf_plus_plus=100.0, discrepancies=[],
        primary_recomputed=False)
    call_command("reverify_run_cards")
    stored.refresh_from_db()
    assert stored.corpus_mismatches == 20 and stored.recomputed_exact_match_rate == 0.0
    assert stored.leaderboard_chrf_plus_plus == pytest.approx(true_chrf(version, wrong))


# ---------------------------------------------------------------------------------------------------------
# The variant-class lint
# ---------------------------------------------------------------------------------------------------------

def test_improbably_many_exact_matches_on_variant_entries_are_flagged(client, version, speaker, governance_user):
    # Exact on every entry with a variant class (odd ids), wrong on the others.
    card = make_card(version, entries_of(version), scoring_standard=STANDARD,
                     predict=lambda e: e.reference if e.variant_class else wrong(e))
    stored = submit_run_card(body=body(card), actor=speaker)
    assert stored.variant_lint["flagged"] is True
    assert stored.variant_lint["variant_exact"] == 10 and stored.variant_lint["other_exact"] == 0
    assert stored.variant_lint["p_value"] < 0.01
    page = client.get(f"/leaderboard/cards/{stored.public_id}/").content.decode()
    assert "Suspiciously many exact matches on entries with acceptable variants" in page


def test_matching_both_kinds_alike_is_not_flagged(version, speaker):
    card = make_card(version, entries_of(version), scoring_standard=STANDARD)
    assert submit_run_card(body=body(card), actor=speaker).variant_lint["flagged"] is False


def test_the_lint_needs_entries_on_both_sides():
    entry_of = verification.StoredEntry
    stored = [entry_of(str(n), "s", "r", "development", "", 1, "v") for n in range(10)]
    scored = [{"exact_match": True} for _ in stored]
    assert verification.variant_class_lint(scored, stored) is None


def test_the_fisher_tail_is_exact_on_a_small_table():
    # 4 of 4 variant entries exact, 0 of 4 others: P = 1 / C(8, 4)
    assert verification._hypergeometric_upper_tail(8, 4, 4, 4) == pytest.approx(1 / 70)
    assert verification._hypergeometric_upper_tail(8, 4, 4, 0) == pytest.approx(1.0)


# ---------------------------------------------------------------------------------------------------------
# Setups are never merged
# ---------------------------------------------------------------------------------------------------------

def v2_fingerprint(card: dict, **extras) -> dict:
    components = verification.fingerprint_components(card) | {
        "api_provider": "local", "endpoint_host_sha256": "cd" * 32, "max_tokens": 512,
        "method_version": "1.0.0", "method_sha256": "ef" * 32} | extras
    text = json.dumps(components, sort_keys=True, ensure_ascii=False)
    return {"hash": hashlib.sha256(text.encode("utf-8")).hexdigest(), "components": components, "version": 2}


def test_two_setups_pinning_the_public_download_are_two_rows(client, steward, speaker):
    from corpus.selectors import public_download_hash

    entries = [entry(n, "development") for n in range(1, 11)] + [entry(n, "gold_standard") for n in range(11, 16)]
    stored_version = import_corpus(data=corpus_bytes(entries, id="haw-set", language_pair="EN→HAW",
                                                     target_language="haw"),
                                   organization=steward, actor=None).version
    grant_all_consents(stored_version.dataset)
    publish(stored_version.dataset)
    public = list(Entry.objects.filter(version=stored_version, segment="development").order_by("position"))
    for dictionary in ("aa" * 32, "bb" * 32):
        card = make_card(stored_version, public, model_slug="lexicon", scoring_standard=STANDARD)
        card["dataset"]["sha256"] = public_download_hash(stored_version)
        card["fingerprint"] = v2_fingerprint(card, method_dependencies_sha256=dictionary)
        stored = submit_run_card(body=body(seal(copy.deepcopy(card))), actor=speaker)
        assert stored.setup_fingerprint == card["fingerprint"]["hash"]
    rows = api_rows(client, language_pair="eng>haw")
    assert len(rows) == 2 and all(row["cards_in_group"] == 1 for row in rows)
