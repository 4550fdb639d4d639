"""Verification of a stored card: recompute its aggregates from the corpus, its per-domain scores, its secondary
scores, and reproductions of another card."""

import json

from django.db import connections, router, transaction

from accounts.models import User
from common.errors import ErrorKind
from common.problems import FieldProblem
from organizations.audit import record_event
from organizations.models import AuditAction

from .. import verification
from ..models import (
    DomainScore,
    RunCard,
    RunCardResult,
)
from .errors import RunCardRejected
from .pinning import pins_hash_kept_from_public

# A secret card's per-domain scores are public: below this many entries they would describe single entries.
MIN_SECRET_DOMAIN_RESULTS = 5
DOMAIN_METRICS = ("composite", "chrf_plus_plus", "exact_match_rate", "fst_acceptance_rate", "semantic_score")


def domain_score(run_card: RunCard, domain: str, subset: list[dict], statistics: list | None = None) -> DomainScore:
    """Scores over one domain's results; a composite (and cost-adjusted score) only for legacy cards."""
    scores = {name: value for name, value in verification.subset_scores(subset, statistics).items()
              if name in DOMAIN_METRICS}
    if run_card.scoring_standard != "legacy-composite":
        scores["composite"] = None
    return DomainScore(run_card=run_card, domain=domain, result_count=len(subset),
                       cost_adjusted=verification.cost_adjusted(scores.get("composite"), run_card.cost_per_entry_usd),
                       **scores)


def card_to_verify(run_card_pk: int) -> tuple[dict, str]:
    """(the stored card with its rows, the name its rows were sent under): parsed from the stored text; rows that
    came beside the card (the harness publishes them apart) are read back as they were stored."""
    card = json.loads(RunCard.objects.values_list("raw", flat=True).get(pk=run_card_pk))
    if "results" in card:
        return card, "results"
    card["results"] = stored_results(run_card_pk)
    return card, "entries"


def corpus_entries(run_card: RunCard) -> tuple[list[int], list[verification.StoredEntry]]:
    """(entry pks, stored entries) of the card's rows in results[] order: what every score is computed against."""
    rows = run_card.results.order_by("position").values_list(
        "entry_id", "entry__entry_id", "entry__source", "entry__reference", "entry__segment", "entry__domain",
        "entry__difficulty", "entry__variant_class")
    pks: list[int] = []
    entries: list[verification.StoredEntry] = []
    for pk, entry_id, source, reference, segment, domain, difficulty, variant_class in rows.iterator(chunk_size=2000):
        pks.append(pk)
        entries.append(verification.StoredEntry(entry_id, source, reference, segment, domain, difficulty,
                                                variant_class))
    return pks, entries


def record_entry_scores(run_card: RunCard, scored: list[dict], statistics: list) -> None:
    """Each row's exact match and sentence chrF++ against its stored reference (what its page shows; the row as
    sent keeps the card's own claims). One statement on PostgreSQL; elsewhere (SQLite) one UPDATE by primary key
    prepared once and run for every row (executemany), where bulk_update's CASE per row took longer than the
    rest of the verification."""
    positions = list(range(len(scored)))
    chrf = [None if result.get("error") else verification.sentence_chrf(stats)
            for result, stats in zip(scored, statistics, strict=True)]
    exact = [result.get("exact_match") for result in scored]
    connection = connections[router.db_for_write(RunCardResult)]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "UPDATE leaderboard_runcardresult AS result SET chrf_score = given.chrf, exact_match = given.exact "
                "FROM unnest(%s::integer[], %s::double precision[], %s::boolean[]) AS given(position, chrf, exact) "
                "WHERE result.run_card_id = %s AND result.position = given.position",
                [positions, chrf, exact, run_card.pk])
        return
    rows = run_card.results.values_list("pk", "position")
    with connection.cursor() as cursor:
        cursor.executemany("UPDATE leaderboard_runcardresult SET chrf_score = %s, exact_match = %s WHERE id = %s",
                           [(chrf[position], exact[position], pk) for pk, position in rows])


@transaction.atomic
def verify_run_card(run_card_pk: int, card: dict | None = None, rows: str = "results") -> RunCard:
    """Score the card against the stored corpus, record disagreements, and score each domain's subset; store what the
    leaderboard groups, shows and ranks by (leaderboard/ranking.py): the setup's fingerprint, the score shown
    (recomputed when the claim disagrees), chrF++'s interval and signature, and the per-entry statistics rank
    clusters pair.

    Every score comes from the predictions and the entries the site holds (verification.against_corpus), never from
    the card's own `expected` or `exact_match`; a result whose source or expected text differs from the stored entry
    is named, and the card is never shown as verified (RunCard.matches_corpus). `card` is the card as parse_card read
    it when verification runs inline (`rows`: the name its rows came under), so that it is not read back and parsed
    again; otherwise the stored text is parsed, and not kept once it has been. Corpus BLEU and TER, when the card
    reports them, are left to a task of their own (verify_secondary_scores)."""
    from .. import ranking

    run_card = RunCard.objects.select_for_update().defer("raw").get(pk=run_card_pk)
    if card is None:
        card, rows = card_to_verify(run_card_pk)
    _, fingerprint_discrepancies = verification.check_fingerprint(card)
    pins_hidden_hash = pins_hash_kept_from_public(card, run_card.dataset_version)
    if pins_hidden_hash:
        # The card pins a real hash kept from the public, and discrepancies are shown with the card.
        fingerprint_discrepancies = verification.without_dataset_hash(fingerprint_discrepancies)
    entry_pks, stored = corpus_entries(run_card)
    scored, corpus_discrepancies, mismatches = verification.against_corpus(card["results"], stored, rows)
    statistics = verification.entry_statistics(scored)
    recomputed = verification.recompute_scores(scored, statistics)
    discrepancies = (corpus_discrepancies + fingerprint_discrepancies
                     + verification.compare_scores(card["scores"], recomputed)
                     + verification.compare_top_level(card, recomputed))
    matrix, positions = ranking.statistics_matrix(statistics)
    shown = ranking.headline(card["scores"], recomputed, matrix, standard=run_card.scoring_standard)
    run_card.setup_fingerprint = ranking.setup_fingerprint(card, run_card.fingerprint,
                                                           pins_hidden_hash=pins_hidden_hash)
    run_card.recomputed_chrf_plus_plus = shown.recomputed_chrf_plus_plus
    run_card.leaderboard_chrf_plus_plus = shown.leaderboard_chrf_plus_plus
    run_card.leaderboard_composite = shown.leaderboard_composite
    run_card.primary_recomputed = shown.primary_recomputed
    run_card.chrf_ci_lower, run_card.chrf_ci_upper = shown.chrf_ci_lower, shown.chrf_ci_upper
    run_card.chrf_ci_source, run_card.chrf_signature = shown.chrf_ci_source, shown.chrf_signature
    # The ranking's cost-adjusted score follows the composite it shows.
    run_card.cost_adjusted = verification.cost_adjusted(shown.leaderboard_composite, run_card.cost_per_entry_usd)
    run_card.chrf_statistics = ranking.pack_statistics([entry_pks[int(position)] for position in positions], matrix)
    run_card.recomputed_exact_match_rate = recomputed["exact_match_rate"]
    run_card.corpus_mismatches = mismatches
    run_card.variant_lint = verification.variant_class_lint(scored, stored)
    record_entry_scores(run_card, scored, statistics)
    by_domain: dict[str, tuple[list[dict], list]] = {}
    for result, stats in zip(scored, statistics, strict=True):
        if result["domain"]:
            subset, subset_stats = by_domain.setdefault(result["domain"], ([], []))
            subset.append(result)
            subset_stats.append(stats)
    run_card.domain_scores.all().delete()
    DomainScore.objects.bulk_create([
        domain_score(run_card, domain, subset, subset_stats)
        for domain, (subset, subset_stats) in sorted(by_domain.items())
        if not run_card.is_secret or len(subset) >= MIN_SECRET_DOMAIN_RESULTS
    ])
    run_card.discrepancies = [d.as_dict() for d in discrepancies]
    run_card.status = RunCard.Status.READY
    run_card.save(update_fields=[
        "discrepancies", "status", "setup_fingerprint", "recomputed_chrf_plus_plus", "leaderboard_chrf_plus_plus",
        "leaderboard_composite", "primary_recomputed", "chrf_ci_lower", "chrf_ci_upper", "chrf_ci_source",
        "chrf_signature", "cost_adjusted", "chrf_statistics", "recomputed_exact_match_rate", "corpus_mismatches",
        "variant_lint"])
    if verification.claimed_secondary_scores(card):
        from ..tasks import verify_secondary_scores_task

        transaction.on_commit(lambda: verify_secondary_scores_task.delay(run_card.pk))
    return run_card


@transaction.atomic
def verify_secondary_scores(run_card_pk: int) -> RunCard:
    """Corpus BLEU and TER against the stored references, for a card that reports them; a claim beyond ±0.05 points
    of what its predictions give is added to the card's discrepancies."""
    run_card = RunCard.objects.select_for_update().defer("raw").get(pk=run_card_pk)
    card, rows = card_to_verify(run_card_pk)
    claimed = verification.claimed_secondary_scores(card)
    scored, _, _ = verification.against_corpus(card["results"], corpus_entries(run_card)[1], rows)
    recomputed = verification.secondary_scores(scored, claimed)
    run_card.recomputed_bleu, run_card.recomputed_ter = recomputed.get("bleu"), recomputed.get("ter")
    paths = {path for path, _ in claimed.values()}
    run_card.discrepancies = [found for found in run_card.discrepancies if found["path"] not in paths] + [
        found.as_dict() for found in verification.compare_secondary(claimed, recomputed)]
    run_card.save(update_fields=["recomputed_bleu", "recomputed_ter", "discrepancies"])
    return run_card


def stored_results(run_card_pk: int) -> list[dict]:
    """The card's rows as sent, in order."""
    return list(RunCardResult.objects.filter(run_card_id=run_card_pk).order_by("position")
                .values_list("data", flat=True))


@transaction.atomic
def mark_verification_failed(run_card_pk: int, reason: str) -> None:
    RunCard.objects.filter(pk=run_card_pk).update(status=RunCard.Status.FAILED, verification_error=reason[:2000])


GDS_TOLERANCE = 0.02


@transaction.atomic
def record_reproduction(*, actor: User, original: RunCard, reproduction: RunCard) -> RunCard:
    """Mark `original` GDS Verified by a maintainer's own sealed card of the same setup whose composite
    (or chrF++ for standard/1 cards) is within ±2 % of the original's (§1.3)."""
    if not actor.is_staff:
        raise PermissionError("Only maintainers (site staff) verify reproductions.")
    problems = []
    if reproduction.submitted_by_id != actor.pk:
        problems.append(FieldProblem("reproduction", "must be a card the maintainer submitted"))
    if original.submitted_by_id == actor.pk:
        problems.append(FieldProblem("", "a maintainer cannot verify their own card"))
    if RunCard.Status.READY not in (original.status,) or reproduction.status != RunCard.Status.READY:
        problems.append(FieldProblem("reproduction", "both cards must have finished verification"))
    if reproduction.pk == original.pk:
        problems.append(FieldProblem("reproduction", "a card cannot reproduce itself"))
    if (RunCard.HashStatus.VERIFIED not in (original.hash_status,)
            or reproduction.hash_status != RunCard.HashStatus.VERIFIED):
        problems.append(FieldProblem("reproduction", "both cards must carry a verified run_card_hash"))
    if original.corpus_mismatches or reproduction.corpus_mismatches:
        problems.append(FieldProblem("reproduction", "both cards' texts must be the stored corpus's: a card whose "
                                                     "source or expected texts differ from it is never verified"))
    if reproduction.fingerprint != original.fingerprint:
        problems.append(FieldProblem("reproduction", "has another fingerprint: it is not the same setup"))
    metric = "composite" if original.scoring_standard == "legacy-composite" else "chrf_plus_plus"
    mine, theirs = getattr(original, metric), getattr(reproduction, metric)
    if mine is None or theirs is None or abs(mine - theirs) > GDS_TOLERANCE * abs(mine):
        problems.append(FieldProblem(f"reproduction.{metric}",
                                     f"{theirs} is not within ±2% of the original's {mine}"))
    if problems:
        raise RunCardRejected(ErrorKind.INVALID, problems)
    original.verified_by_card = reproduction
    original.save(update_fields=["verified_by_card"])
    record_event(AuditAction.VERIFICATION_TIER_CHANGED, actor=actor,
                 organization=original.dataset_version.dataset.organization, obj=original,
                 details={"tier": "GDS Verified", "run_id": str(original.run_id),
                          "reproduction": str(reproduction.run_id)})
    return original
