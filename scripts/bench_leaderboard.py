"""Leaderboard benchmark: ingest of a 10,000-result run card against sacrebleu alone, and the server time
of the leaderboard page and API over 10,000 run cards.

Builds a throwaway dataset of obviously artificial placeholder entries (never language data: every text
says "bench" and a number, followed by words of the NATO spelling alphabet), a bench organization and
user, then:

* ingests one card of N results through `leaderboard.services.submit_run_card`, verified inline, and
  times it next to `sacrebleu.metrics.CHRF(word_order=2).corpus_score` on the same hypotheses and
  references, and next to the parts of the ingest (`verification.recompute_scores`, ...);
* stores M small READY run cards (5 results each, one setup per card, so about M leaderboard rows) with
  the ORM, and times GET /leaderboard/ and /api/v1/leaderboard/ (with and without ?domain=) through
  `django.test.Client`: the median of 5 requests after one warm-up, and the SQL queries of one request.

Everything it stores (run cards, results, domain scores, methods, entries, version, dataset, user,
organization) is deleted afterwards, and at the start after an interrupted run. The figures are printed
as tables and merged, under the key "leaderboard", into the JSON file (other keys are kept, so
`make bench` runs scripts/bench_import.py first and this second).

    .venv/bin/python scripts/bench_leaderboard.py [--results N] [--cards M] [--output bench-results.json]

DATABASE_URL names the database, as for scripts/bench_import.py. See docs/benchmarks.md.
"""

import argparse
import copy
import json
import statistics
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any, Self

import bench_import as base

ROOT = base.ROOT
BENCH_ORG_SLUG = "bench-leaderboard"
DATASET_ID = "bench-leaderboard"
USER_EMAIL = "bench-leaderboard@example.invalid"
METHOD_PREFIX = "bench-leaderboard-method-"
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo",
         "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango")
DOMAINS = ("conv", "edu", "legal", "medical")
FILTER_DOMAIN = "medical"
SEGMENTS = ("development", "diagnostic")  # public segments: a speaker may submit, anonymous visitors see the rows
CARD_RESULTS = 5
METHODS = 20
DEPENDENCY_CLASSES = ("S", "O", "A1", "A2")
REPEATS = 3  # ingest-side timings: median of 3 interleaved rounds
REQUESTS = 5  # request timings: median of 5, after one warm-up request
VERDICTS = ("EXACT_MATCH", "PARTIAL", "GRAMMAR_ISSUES", "MISMATCH")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=10_000, help="results of the ingested card (= entries)")
    parser.add_argument("--cards", type=int, default=10_000, help="run cards behind the leaderboard")
    parser.add_argument("--output", default=str(ROOT / "bench-results.json"), help="JSON file to merge into")
    return parser.parse_args()


# ---------------------------------------------------------------------------------------------------------
# Placeholder data
# ---------------------------------------------------------------------------------------------------------

def words(index: int, salt: int) -> list[str]:
    """3–14 placeholder words, a deterministic function of the entry number."""
    return [WORDS[(index * 7 + salt + k * 3) % len(WORDS)] for k in range(3 + index % 12)]


def placeholder_entry(index: int) -> dict[str, Any]:
    entry = base.placeholder_entry(index)
    entry.update(
        source=f"bench source {index} {' '.join(words(index, 1))} {base.PLACEHOLDER_TAIL}",
        reference=f"bench reference {index} {' '.join(words(index, 0))} {base.PLACEHOLDER_TAIL}",
        segment=SEGMENTS[(index // 500) % len(SEGMENTS)],
        domain=DOMAINS[(index // 3) % len(DOMAINS)],
    )
    return entry


def predict(entry) -> str:
    """A placeholder "system output": the reference, or one of three artificial distortions of it."""
    index = int(entry.entry_id)
    kind = index % 4
    if kind == 0:
        return entry.reference
    tokens = entry.reference.split()
    if kind == 1:
        return " ".join(tokens[:-2] + tokens[-1:])  # one word dropped
    if kind == 2:
        return " ".join(tokens[:3] + tokens[3:][::-1])  # word order reversed
    return f"bench output {index} {' '.join(words(index, 5))}"  # other words


def corpus_bytes(count: int) -> bytes:
    from corpus.services import corpus_file_chunks

    envelope = base.envelope(DATASET_ID)
    documents = (json.dumps(placeholder_entry(i), ensure_ascii=False) for i in range(1, count + 1))
    return b"".join(corpus_file_chunks(json.dumps(envelope, ensure_ascii=False), documents))


def create_fixture(entries: int):
    """The bench organization, a speaker in it, and a public dataset version of `entries` entries."""
    from corpus.services import import_corpus, set_dataset_public
    from governance.models import Organization
    from governance.services import add_member

    organization = Organization.objects.create(slug=BENCH_ORG_SLUG, name="Leaderboard benchmark (throwaway)")
    user, _, _ = add_member(USER_EMAIL, organization, "speaker")
    outcome = import_corpus(corpus_bytes(entries), organization)
    if not outcome.created or outcome.entry_count != entries:
        raise SystemExit(f"bench corpus import went wrong: {outcome.message}")
    set_dataset_public(outcome.version.dataset, True)
    return user, outcome.version


def delete_bench_data() -> None:
    """Remove every row this bench stored, children first; the frozen version is unfrozen to delete its entries."""
    from django.db import connection

    from accounts.models import User
    from corpus.models import Dataset, DatasetVersion, Entry
    from governance.models import Organization
    from leaderboard.models import DomainScore, Method, RunCard, RunCardResult

    cards = RunCard.objects.filter(dataset_version__dataset__identifier=DATASET_ID)
    RunCardResult.objects.filter(run_card__in=cards).delete()
    DomainScore.objects.filter(run_card__in=cards).delete()
    cards.delete()
    Method.objects.filter(method_id__startswith=METHOD_PREFIX).delete()
    versions = DatasetVersion.objects.filter(dataset__identifier=DATASET_ID, dataset__organization__slug=BENCH_ORG_SLUG)
    versions.update(frozen_at=None)
    Entry.objects.filter(version__in=versions).delete()
    versions.delete()
    Dataset.objects.filter(identifier=DATASET_ID, organization__slug=BENCH_ORG_SLUG).delete()
    User.objects.filter(email=USER_EMAIL).delete()
    Organization.objects.filter(slug=BENCH_ORG_SLUG).delete()
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for model in (RunCardResult, DomainScore, RunCard, Entry):
                cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


# ---------------------------------------------------------------------------------------------------------
# Ingest of one large card
# ---------------------------------------------------------------------------------------------------------

def timed(operation: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    result = operation()
    return result, time.perf_counter() - started


def large_card(version) -> dict:
    """A sealed card scoring every entry of `version` with the placeholder predictions (tests/cards.py)."""
    from corpus.models import Entry
    from tests.cards import make_card, seal

    entries = list(Entry.objects.filter(version=version).order_by("position"))
    card = make_card(version, entries, predict=predict, composite=0.5, model_slug="bench-model-ingest",
                     condition="bench")
    for result, entry in zip(card["results"], entries):
        result["semantic_verdict"] = VERDICTS[int(entry.entry_id) % 4]
    return seal(card)


def resealed(card: dict) -> dict:
    """The same card under a new run_id (a run_id is stored once), sealed again."""
    from tests.cards import seal

    fresh = copy.deepcopy(card)
    fresh["run_id"] = str(uuid.uuid4())
    return seal(fresh)


class Stopwatch:
    """Wraps a module function so that each call's wall time is recorded (the ingest's own parts)."""

    def __init__(self, module, name: str):
        self.module, self.name, self.original, self.calls = module, name, getattr(module, name), []

    def __enter__(self) -> Self:
        def wrapper(*args, **kwargs):
            result, elapsed = timed(lambda: self.original(*args, **kwargs))
            self.calls.append(elapsed)
            return result

        setattr(self.module, self.name, wrapper)
        return self

    def __exit__(self, *exc) -> None:
        setattr(self.module, self.name, self.original)


def bench_ingest(user, version) -> tuple[dict[str, Any], dict]:
    """Time the ingest, its parts, and sacrebleu alone, in REPEATS interleaved rounds so that every ratio
    compares runs made under the same machine load; return the figures and the card (whose results the
    small cards reuse)."""
    from django.test.utils import override_settings
    from sacrebleu.metrics import CHRF

    from leaderboard import services, verification
    from leaderboard.models import RunCard
    from tests.cards import body

    card = large_card(version)
    results = card["results"]
    count = len(results)
    hypotheses = [r["predicted"] for r in results]
    references = [[r["expected"] for r in results]]
    by_domain: dict[str, list[dict]] = {}
    for result in results:
        by_domain.setdefault(result["domain"], []).append(result)

    names = {
        "sacrebleu": ("sacrebleu CHRF(word_order=2).corpus_score", "the same hypotheses and references, nothing else"),
        "recompute": ("verification.recompute_scores", ("every aggregate results[] determines; one sacrebleu "
                                                        "statistics pass; the like-for-like comparison")),
        "subsets": (f"verification.subset_scores × {len(by_domain)} domains",
                    "the per-domain scores verify_run_card also computes: a second statistics pass"),
        "parse": ("services.parse_card", "UTF-8 decode, json.loads, validate_card"),
        "hash": ("verification.verify_hash", "json.dumps(sort_keys=True) of the whole card, sha256"),
        "ingest": ("services.submit_run_card (whole ingest)",
                   f"parse, validate, store the card and its {count:,} result rows, verify inline, commit"),
        "store": ("  of which store_results", f"{count:,} RunCardResult rows, bulk_create"),
        "verify": ("  of which verify_run_card", ("json.loads of the stored card, recompute_scores, compare, "
                                                  "subset_scores per domain, DomainScore rows")),
        "rest": ("  of which the rest", "parse, hash, validation, entry lookup, freeze, card row, commit"),
    }
    seconds: dict[str, list[float]] = {key: [] for key in names}
    stored = []
    with override_settings(RUN_CARD_INLINE_MAX_RESULTS=max(count, 2000)):
        for _ in range(REPEATS):
            data = body(resealed(card))
            for key, operation in (
                ("sacrebleu", lambda: CHRF(word_order=2).corpus_score(hypotheses, references)),
                ("recompute", lambda: verification.recompute_scores(results)),
                ("subsets", lambda: [verification.subset_scores(subset) for subset in by_domain.values()]),
                ("parse", lambda data=data: services.parse_card(data)),
                ("hash", lambda: verification.verify_hash(card)),
            ):
                base.settle_memory()
                seconds[key].append(timed(operation)[1])
            base.settle_memory()
            with Stopwatch(services, "store_results") as store, Stopwatch(services, "verify_run_card") as verify:
                run_card, elapsed = timed(lambda data=data: services.submit_run_card(data, user))
            stored.append(run_card)
            seconds["ingest"].append(elapsed)
            seconds["store"].append(sum(store.calls))
            seconds["verify"].append(sum(verify.calls))
            seconds["rest"].append(elapsed - sum(store.calls) - sum(verify.calls))
    for run_card in stored:
        if run_card.status != RunCard.Status.READY or run_card.discrepancies or run_card.result_count != count:
            raise SystemExit(f"ingest went wrong: status {run_card.status}, "
                             f"{len(run_card.discrepancies)} discrepancies, {run_card.result_count} results")
    domain_rows = stored[0].domain_scores.count()
    RunCard.objects.filter(pk__in=[c.pk for c in stored]).delete()

    measurements = []
    for key, (name, note) in names.items():
        ratios = [mine / baseline for mine, baseline in zip(seconds[key], seconds["sacrebleu"])]
        measurements.append({
            "operation": name.strip(), "part_of_ingest": name.startswith(" "), "results": count,
            "seconds": round(statistics.median(seconds[key]), 4),
            "runs_seconds": [round(s, 4) for s in seconds[key]],
            "ratio_to_sacrebleu": round(statistics.median(ratios), 3),
            "runs_ratio_to_sacrebleu": [round(r, 3) for r in ratios], "note": note,
        })
    return {"results": count, "card_bytes": len(data), "domains": len(by_domain),
            "domain_score_rows": domain_rows, "rounds": REPEATS, "measurements": measurements}, card


def ingest_table(report: dict[str, Any]) -> str:
    header = ("operation", "results", "seconds", "× sacrebleu", "runs (s)", "runs (×)")
    rows = [(("  " if m["part_of_ingest"] else "") + m["operation"], f"{m['results']:,}", f"{m['seconds']:.2f}",
             f"{m['ratio_to_sacrebleu']:.2f}×", " ".join(f"{s:.2f}" for s in m["runs_seconds"]),
             " ".join(f"{r:.2f}" for r in m["runs_ratio_to_sacrebleu"])) for m in report["measurements"]]
    return aligned(header, rows)


# ---------------------------------------------------------------------------------------------------------
# 10,000 run cards behind the leaderboard
# ---------------------------------------------------------------------------------------------------------

def create_methods(user) -> list:
    """Method cards as the harness wizard writes them, with a declared dependency class; one is class X."""
    from leaderboard.models import Method

    methods = []
    for number in range(METHODS):
        dependency_class = "X" if number == METHODS - 1 else DEPENDENCY_CLASSES[number % len(DEPENDENCY_CLASSES)]
        card = {"name": f"Bench method {number}", "method_id": f"{METHOD_PREFIX}{number}",
                "class": ("raw-llm", "coached-llm", "pipeline", "custom-plugin")[number % 4], "paradigm": "llm",
                "author": "bench", "dependency_class": dependency_class}
        methods.append(Method(method_id=card["method_id"], name=card["name"], method_class=card["class"],
                              dependency_class=dependency_class, card=card, submitted_by=user))
    return Method.objects.bulk_create(methods)


def small_card_scores(results: tuple[dict, ...]) -> dict[str, Any]:
    """The card-level `scores` a harness would write for these results (legacy composite standard)."""
    from leaderboard import verification

    subset = verification.subset_scores(list(results))
    exact = sum(1 for r in results if r["exact_match"])
    return {
        "total": len(results), "exact_matches": exact, "exact_match_rate": exact / len(results),
        "chrf_plus_plus": subset["chrf_plus_plus"], "errors": 0, "composite": subset["composite"],
        "semantic_score": subset["semantic_score"], "avg_latency_seconds": 1.0, "median_latency_seconds": 1.0,
        "p95_latency_seconds": 1.0, "code_switching_rate": 0.0, "hallucination_rate": 0.0,
    }


def bench_cards(template: dict, version, user, count: int, entry_results: list[dict]) -> list:
    """Store `count` READY run cards of CARD_RESULTS results each, with their results and domain scores,
    as submit_run_card + verify_run_card would have stored them. Each card has its own model_slug, so
    its own fingerprint and leaderboard row; every fourth card names one of the bench methods."""
    from corpus.models import Entry
    from leaderboard import services, verification
    from leaderboard.cards import top_level_value_text
    from leaderboard.models import DomainScore, RunCard, RunCardResult
    from tests.cards import seal

    methods = create_methods(user)
    make_domain_score = getattr(services, "domain_score", None)
    entry_rows = {str(entry_id): (pk, segment, domain) for entry_id, pk, segment, domain in
                  Entry.objects.filter(version=version).values_list("entry_id", "pk", "segment", "domain")}

    @cache
    def scores_of(positions: tuple[int, ...]) -> dict[str, Any]:
        return small_card_scores(tuple(entry_results[p] for p in positions))

    @cache
    def subset_of(positions: tuple[int, ...]) -> dict[str, Any]:
        return verification.subset_scores([entry_results[p] for p in positions])

    now = datetime.now().astimezone()
    cards, children = [], []
    for index in range(count):
        positions = tuple((index * CARD_RESULTS + k) % len(entry_results) for k in range(CARD_RESULTS))
        results = [entry_results[p] for p in positions]
        card = {key: value for key, value in template.items() if key != "results"}
        model_slug = f"bench-model-{index:05d}"
        cost = 0.0005 * (1 + index % 12)
        card.update(
            run_id=str(uuid.uuid4()), model_slug=model_slug, model_id=f"{model_slug}-2026",
            timestamp=(now - timedelta(seconds=count - index)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            temperature=(0.0, 0.3, 0.7)[index % 3], elapsed_seconds=float(CARD_RESULTS), results=results,
            dataset={**template["dataset"], "entry_count": CARD_RESULTS}, scores=scores_of(positions),
            totals={**template["totals"], "total_cost_usd": cost * CARD_RESULTS, "cost_per_entry_usd": cost},
            method_config={**template["method_config"], "model": model_slug},
        )
        method = methods[(index // 4) % METHODS] if index % 4 == 0 else None
        if method is not None:
            card["method_card"] = method.card
        seal(card)
        text = json.dumps(card, ensure_ascii=False, indent=2)
        scores, segments = card["scores"], sorted({entry_rows[r["entry_id"]][1] for r in results})
        cards.append(RunCard(
            run_id=uuid.UUID(card["run_id"]), raw=text, dataset_version=version, method=method, submitted_by=user,
            submitted_at=now - timedelta(seconds=count - index), status=RunCard.Status.READY,
            hash_status=RunCard.HashStatus.VERIFIED, is_secret=False,
            segment=segments[0] if len(segments) == 1 else "mixed", harness_version=card["harness_version"],
            timestamp=datetime.fromisoformat(card["timestamp"]), model_slug=model_slug,
            model_id=card["model_id"], condition=card["condition"], temperature=card["temperature"],
            system_prompt_sha256=card["system_prompt_sha256"], tools_enabled=card["tools_enabled"],
            batch_size=card["batch_size"], fingerprint=verification.compute_fingerprint(card),
            method_config=top_level_value_text(text, "method_config") or "", scoring_standard="legacy-composite",
            composite=scores["composite"], chrf_plus_plus=scores["chrf_plus_plus"],
            exact_match_rate=scores["exact_match_rate"], fst_acceptance_rate=None,
            semantic_score=scores["semantic_score"], cost_per_entry_usd=cost, avg_latency_seconds=1.0,
            cost_adjusted=verification.cost_adjusted(scores["composite"], cost), result_count=CARD_RESULTS,
            discrepancies=[],
        ))
        by_domain: dict[str, list[int]] = {}
        for position in positions:
            by_domain.setdefault(entry_results[position]["domain"], []).append(position)
        children.append((positions, by_domain))

    stored = RunCard.objects.bulk_create(cards, batch_size=1000)
    result_rows, domain_rows = [], []
    for run_card, (positions, by_domain) in zip(stored, children):
        for order, position in enumerate(positions):
            result = entry_results[position]
            result_rows.append(RunCardResult(
                run_card=run_card, entry_id=entry_rows[result["entry_id"]][0], position=order,
                predicted=result["predicted"], exact_match=result["exact_match"], chrf_score=result["chrf_score"],
                latency_s=result["latency_s"], error="", data=result))
        for domain, members in sorted(by_domain.items()):
            if make_domain_score is not None:  # the row verify_run_card would store
                domain_rows.append(make_domain_score(run_card, domain, [entry_results[p] for p in members]))
                continue
            subset = subset_of(tuple(members))
            domain_rows.append(DomainScore(run_card=run_card, domain=domain, result_count=len(members), **{
                name: subset[name] for name in
                ("composite", "chrf_plus_plus", "exact_match_rate", "fst_acceptance_rate", "semantic_score")}))
    RunCardResult.objects.bulk_create(result_rows, batch_size=5000)
    DomainScore.objects.bulk_create(domain_rows, batch_size=5000)
    return stored


def analyze() -> None:
    """Refresh the planner's statistics, as autovacuum would soon after a real load of this size."""
    from django.db import connection

    from leaderboard.models import DomainScore, Method, RunCard, RunCardResult

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for model in (RunCard, RunCardResult, DomainScore, Method):
                cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


def bench_requests() -> list[dict[str, Any]]:
    from django.contrib.auth.models import AnonymousUser
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from leaderboard import selectors

    client = Client()
    last_page = None
    requests = [
        ("/leaderboard/", {}),
        ("/leaderboard/", {"domain": FILTER_DOMAIN}),
        ("/api/v1/leaderboard/", {}),
        ("/api/v1/leaderboard/", {"domain": FILTER_DOMAIN}),
        ("/api/v1/leaderboard/", {"page": "last"}),
    ]
    measurements = []
    for url, params in requests:
        if params.get("page") == "last":
            params = {"page": str(last_page)}
        response = client.get(url, params)  # warm-up: templates, URL resolver, connection
        if response.status_code != 200:
            raise SystemExit(f"GET {url} {params} answered {response.status_code}")
        seconds = []
        for _ in range(REQUESTS):
            started = time.perf_counter()
            response = client.get(url, params)
            seconds.append(time.perf_counter() - started)
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url, params)
        if url.startswith("/api/"):
            payload = response.json()
            total, shown = payload["count"], len(payload["results"])
            last_page = last_page or -(-total // 50)
        else:  # response.context exists only under the test runner's instrumentation, which would slow rendering
            total = selectors.leaderboard(AnonymousUser(), selectors.LeaderboardQuery.from_params(params)).count()
            shown = response.content.count(b'data-label="Rank"')
        query = "?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else ""
        measurements.append({
            "request": f"GET {url}{query}", "rows_total": total, "rows_on_page": shown,
            "median_ms": round(statistics.median(seconds) * 1000, 1),
            "runs_ms": [round(s * 1000, 1) for s in seconds],
            "queries": len(queries.captured_queries),
            "sql_ms": round(sum(float(q["time"]) for q in queries.captured_queries) * 1000, 1),
            "slowest_query_ms": round(max(float(q["time"]) for q in queries.captured_queries) * 1000, 1),
        })
    return measurements


def requests_table(cards: int, measurements: list[dict[str, Any]]) -> str:
    header = ("request", "cards", "rows", "on page", "median ms", "min ms", "max ms", "queries", "SQL ms")
    rows = [(m["request"], f"{cards:,}", f"{m['rows_total']:,}", str(m["rows_on_page"]), f"{m['median_ms']:.0f}",
             f"{min(m['runs_ms']):.0f}", f"{max(m['runs_ms']):.0f}", str(m["queries"]), f"{m['sql_ms']:.0f}")
            for m in measurements]
    return aligned(header, rows)


# ---------------------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------------------

def aligned(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """The table style of bench_import: first column left-aligned, the others right-aligned."""
    table = [header, *rows]
    widths = [max(len(row[column]) for row in table) for column in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        return "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))

    return "\n".join([line(header), "  ".join("-" * w for w in widths), *map(line, rows)])


def merge_into(output: Path, section: dict[str, Any]) -> None:
    report: dict[str, Any] = {}
    if output.exists():
        try:
            report = json.loads(output.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            report = {}
    report.setdefault("environment", base.environment())
    report["leaderboard"] = section
    output.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def run(results: int, cards: int, output: Path) -> None:
    base.setup_django()
    delete_bench_data()  # leftovers of an interrupted run
    try:
        user, version = create_fixture(results)
        ingest, template = bench_ingest(user, version)
        print(f"Ingest of one {ingest['results']:,}-result card ({ingest['card_bytes'] / base.MIB:.1f} MiB, "
              f"{ingest['domains']} domains), median of {REPEATS} interleaved rounds:")
        print(ingest_table(ingest))
        entry_results = template["results"]
        (_, setup_s) = timed(lambda: bench_cards(template, version, user, cards, entry_results))
        analyze()
        requests = bench_requests()
        print()
        print(f"Leaderboard over {cards:,} READY run cards ({cards * CARD_RESULTS:,} results; stored in "
              f"{setup_s:.0f} s), anonymous visitor, django.test.Client, median of {REQUESTS} after a warm-up:")
        print(requests_table(cards, requests))
    finally:
        delete_bench_data()
    by_name = {m["operation"]: m for m in ingest["measurements"]}
    whole = by_name["services.submit_run_card (whole ingest)"]["ratio_to_sacrebleu"]
    alone = by_name["verification.recompute_scores"]["ratio_to_sacrebleu"]
    verify = by_name["of which verify_run_card"]["ratio_to_sacrebleu"]
    print(f"within 2× of sacrebleu alone: recompute_scores {alone:.2f}× {'yes' if alone <= 2 else 'NO'}; "
          f"verify_run_card {verify:.2f}× {'yes' if verify <= 2 else 'NO'}; "
          f"whole ingest {whole:.2f}× {'yes' if whole <= 2 else 'NO'} (median of the per-round ratios)")
    merge_into(output, {
        "ingest": ingest,
        "requests": {"cards": cards, "results_per_card": CARD_RESULTS, "methods": METHODS,
                     "store_seconds": round(setup_s, 1), "visitor": "anonymous", "measurements": requests},
        "definitions": {
            "seconds": f"median wall time of {REPEATS} runs (time.perf_counter), DEBUG off",
            "ratio_to_sacrebleu": "seconds / seconds of CHRF(word_order=2).corpus_score on the same sentences",
            "median_ms": f"django.test.Client request to response, median of {REQUESTS} after a warm-up",
            "queries": "SQL statements of one request (CaptureQueriesContext); sql_ms is their summed time",
        },
    })
    print(f"wrote {output} (key \"leaderboard\")")


def main() -> None:
    args = parse_args()
    if args.results < CARD_RESULTS or args.cards < 1:
        raise SystemExit(f"--results must be at least {CARD_RESULTS} and --cards at least 1")
    run(args.results, args.cards, Path(args.output))


if __name__ == "__main__":
    main()
