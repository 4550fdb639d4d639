"""The translate and verify loops read a fixed number of queries whatever the data (docs/performance.md): each page,
the items ahead and each submission are counted once on a small batch and again after the batch, its translations,
its revisions, its verifications and the stored machine outputs have grown, and must be the same, under a bound."""

import json
import uuid

import pytest
from django.db import connection
from django.urls import reverse

from corpus.models import Entry
from corpus.services import import_corpus
from elicitation.models import Translation
from elicitation.selectors import UPCOMING, next_to_verify, to_translate
from leaderboard.services import submit_run_card

from .cards import body, make_card
from .conftest import corpus_bytes, entry, grant_all_consents
from .elicitation_setup import consented_dataset, make_batch, people, translate, verify

pytestmark = pytest.mark.django_db

HEADER = "source,difficulty,register,domain,segment\n"
JSON = {"HTTP_ACCEPT": "application/json"}
# The loops' requests and their bounds (the rating post reads 8: docs/performance.md's "Queries per page"; a
# submission's read their person's qualification and work clock and the machine outputs with their checks).
BOUNDS = {"translate page": 6, "upcoming sources": 8, "translate post": 11, "translate post, no JavaScript": 11,
          "verify page": 5, "upcoming translations": 5, "verify post": 11}


def sources_csv(start: int, count: int) -> str:
    return HEADER + "".join(f"source number {n},{n % 5 + 1},conversational,conv,development\n"
                            for n in range(start, start + count))


def stored_outputs(steward, governance_user, texts: list[str], runs: int) -> None:
    """`runs` run cards, each with a prediction for an entry of each of `texts`."""
    version = import_corpus(data=corpus_bytes([entry(n, source=text, reference=f"reference {n}")
                                               for n, text in enumerate(texts, start=1)], id="outputs"),
                            organization=steward, actor=None).version
    grant_all_consents(version.dataset)
    rows = list(Entry.objects.filter(version=version))
    for run in range(runs):
        submit_run_card(body=body(make_card(version, rows, composite=0.8, model_slug=f"system-{run}",
                                            predict=lambda e, run=run: f"output {run} of {e.entry_id}")),
                        actor=governance_user)


def loop_counts(client, batch, translator, verifier, at_most) -> dict[str, int]:
    """Each request of the two loops, as elicit.js (and, for one post, a browser without it) makes them, each
    within its bound (`at_most`: pytest-django's django_assert_max_num_queries)."""
    counts: dict[str, int] = {}

    def counted(name: str, request) -> int:
        with at_most(BOUNDS[name]) as captured:
            response = request()
        assert response.status_code in (200, 201, 302), (response.status_code, response.content[:500])
        return len(captured.captured_queries)

    client.force_login(translator)
    source, plain = to_translate(translator, batch)[:2]
    translating = reverse("elicitation:translate", args=[source.public_id])
    counts["translate page"] = counted("translate page", lambda: client.get(translating))
    counts["upcoming sources"] = counted("upcoming sources", lambda: client.get(
        reverse("elicitation:upcoming", args=[batch.public_id]), **JSON))
    counts["translate post"] = counted("translate post", lambda: client.post(translating, {
        "client_id": str(uuid.uuid4()), "text": "tânisi", "pasted": "False", "typed": "6"}, **JSON))
    counts["translate post, no JavaScript"] = counted("translate post, no JavaScript", lambda: client.post(
        reverse("elicitation:translate", args=[plain.public_id]), {"client_id": str(uuid.uuid4()), "text": "tânisi"}))
    client.force_login(verifier)
    translation = next_to_verify(verifier, batch)
    verifying = reverse("elicitation:verify", args=[translation.public_id])
    counts["verify page"] = counted("verify page", lambda: client.get(verifying))
    counts["upcoming translations"] = counted("upcoming translations", lambda: client.get(
        reverse("elicitation:verify_upcoming", args=[batch.public_id]), **JSON))
    counts["verify post"] = counted("verify post", lambda: client.post(verifying, {
        "client_id": str(uuid.uuid4()), "version": str(translation.versions.count()), "outcome": "accept"}, **JSON))
    return counts


def test_the_loops_read_the_same_queries_whatever_the_data(client, steward, curator, governance_user,
                                                           django_assert_max_num_queries):
    batch = make_batch(curator, consented_dataset(steward).dataset, sources_csv(1, 6), verifications_per_translation=2)
    translator, verifier, others = people(steward, 3)
    first, second, third = batch.sources.order_by("position")[:3]
    for source in (first, second):
        translate(others, source, f"{source.text} (crk)")
    version, _ = translate(translator, third, "tânisi")
    verify(verifier, version.translation, "revise", comment="Please use the plural.")
    small = loop_counts(client, batch, translator, verifier, django_assert_max_num_queries)

    # The batch grows: many more sources, some with machine outputs from several runs, translated by others; the
    # translator's work sent back for revision with notes (the items ahead then carry them); the verifier's
    # verifications elsewhere in the batch, some made stale by an edit.
    client.force_login(translator)
    bigger = make_batch(curator, batch.dataset, sources_csv(1, 3 * UPCOMING), verifications_per_translation=2)
    stored_outputs(steward, governance_user, [f"source number {n}" for n in range(1, 3 * UPCOMING)], runs=3)
    sources = list(bigger.sources.order_by("position"))
    for source in sources[:UPCOMING]:
        translate(others, source, f"{source.text} (crk)")
    for source in sources[UPCOMING:UPCOMING + 4]:
        version, _ = translate(translator, source, f"{source.text} (crk)")
        verify(verifier, version.translation, "revise", comment="Please use the plural.")
    accepted, edited = list(Translation.objects.filter(source__batch=bigger, translator=others)[:2])
    verify(verifier, accepted, "accept")
    verify(translator, edited, "accept")
    verify(verifier, edited, "edit", text="tânisi (edited)")
    big = loop_counts(client, bigger, translator, verifier, django_assert_max_num_queries)

    assert big == small, f"the loops' query counts grew with the data: {small} then {big}"
    client.force_login(translator)
    with django_assert_max_num_queries(BOUNDS["upcoming sources"]):
        items = json.loads(client.get(reverse("elicitation:upcoming", args=[bigger.public_id]), **JSON).content)
    assert len(items["items"]) == UPCOMING
    assert sum(1 for item in items["items"] if item["revision"]) == 4, "the revisions come first, with their notes"
    assert items["items"][0]["revision"]["notes"] == ["Please use the plural."]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="reads PostgreSQL's plan")
def test_the_machine_paste_check_finds_entries_through_the_index_of_their_texts():
    """`closest_machine_output` reads entries by the digest of their source text (`entry_source_digest`), never
    every entry's text."""
    from corpus.models import source_digest, source_digest_of
    from leaderboard.models import RunCardResult

    query = (RunCardResult.objects.alias(digest=source_digest_of("entry")).filter(digest=source_digest("a source"))
             .values_list("predicted", "entry__source"))
    sql, params = query.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "entry_source_digest" in plan, plan


@pytest.mark.skipif(connection.vendor != "postgresql", reason="counts PostgreSQL's round trips")
def test_a_timed_submission_reads_its_sender_with_its_checks_and_moves_the_clock_with_its_insert(
        client, steward, curator):
    """A translation and a verdict, each timed by its page's stamp: the user and the item, then in the transaction
    one round trip of reads (the lock, the checks, the sender's qualification and work clock, a translation's
    machine outputs) and the writes, the clock's carried by the work's insert (docs/performance.md)."""
    from django.test.utils import CaptureQueriesContext

    from elicitation.forms import shown_token
    from ledger.models import WorkClock

    batch = make_batch(curator, consented_dataset(steward).dataset, sources_csv(1, 4), verifications_per_translation=2)
    translator, verifier = people(steward, 2)
    source = to_translate(translator, batch)[0]

    def statements(user, url: str, data: dict) -> list[str]:
        client.force_login(user)
        with CaptureQueriesContext(connection) as captured:
            answer = client.post(url, {**data, "client_id": str(uuid.uuid4())}, **JSON)
        assert answer.status_code == 201, answer.content
        return [query["sql"].split()[0] for query in captured.captured_queries]

    translated = statements(translator, reverse("elicitation:translate", args=[source.public_id]), {
        "text": "tânisi", "shown": shown_token(source.public_id)})
    # The user, the source; the lock, the checks, the levels, the clock, the memberships, the outputs; the
    # translation, then its version with the clock (one statement: `WITH` …).
    assert translated == ["SELECT", "SELECT", "SAVEPOINT", *["SELECT"] * 6, "INSERT", "WITH", "RELEASE"]
    translation = Translation.objects.get(source=source)
    verified = statements(verifier, reverse("elicitation:verify", args=[translation.public_id]), {
        "version": "1", "outcome": "accept", "shown": shown_token(translation.public_id)})
    # The user, the translation; the lock, the checks, the current version, the levels, the clock, the memberships;
    # the verdict with the clock.
    assert verified == ["SELECT", "SELECT", "SAVEPOINT", *["SELECT"] * 6, "WITH", "RELEASE"]
    assert WorkClock.objects.filter(speaker__in=[translator, verifier]).count() == 2, "each moved their clock"
