"""Elicitation phase of `make bench` (scripts/bench.py): the translate and verify loops' data, sessions and query
counts, after the review phase (whose bench organization, dataset and 50 qualified loop speakers it uses).

Each loop speaker gets two batches of their own in the review phase's dataset (so that no two clients ever take the
same work): one of SOURCES sources to translate, and one of SOURCES translations, written by the next speaker, to
verify. One source in ten has the very text of an entry the leaderboard's run cards scored, so that the submission's
machine-paste check (`elicitation.selectors.closest_machine_output`) finds stored outputs to compare with, as it does
for a source a curator took from a corpus; the others find none. The texts are placeholders (never language data).

The HTTP phase's clients do what elicit.js does (ELICIT_SCRIPT): open the first item's page, fetch the items ahead,
then post each submission as JSON and show the next item from those held, fetching more when fewer than
REFILL_BELOW are left. Before every run the bench gives the items back (`reset`). See docs/performance.md.
"""

import uuid
from collections.abc import Callable
from typing import Any

import bench_review
from bench_wrk import LOOP_PRELUDE, LOOP_TOTALS

SOURCES = 400  # per speaker and loop: more than one measured run takes
CORPUS_SOURCE_EVERY = 10  # one source in ten is the text of a scored corpus entry
REFILL_BELOW = 5  # elicit.js's REFILL_BELOW
TRANSLATE_TITLE = "Benchmark translate loop"
VERIFY_TITLE = "Benchmark verify loop"

# The elicitation loops, one wrk thread and connection per speaker (CLIENTS, MODE, SPREAD and REFILL_BELOW are
# prepended; WRK_REPORT's report_line too). MODE "translate": GET the first source's page, fetch the sources ahead
# (as elicit.js does on load), then POST each translation as JSON and take the next source from those held; when
# fewer than REFILL_BELOW are held, fetch again. MODE "verify": the same with the translations to verify, each
# accepted. Every POST carries the item's signed showing stamp, as the page does. Only submissions the server
# answered as stored count. SPREAD as in the rating loop: speaker n starts as if part of its first batch were done.
ELICIT_SCRIPT = LOOP_PRELUDE + """
local function escaped(value)
  return (string.gsub(value, "[^%w%-%._~]", function (c) return string.format("%%%02X", string.byte(c)) end))
end
function request()
  if step == "upcoming" then
    return wrk.format("GET", me.upcoming, {["Cookie"] = me.cookie, ["Accept"] = "application/json"})
  end
  if step == "post" then
    local headers = {["Cookie"] = me.cookie, ["Content-Type"] = "application/x-www-form-urlencoded",
                     ["Accept"] = "application/json", ["X-CSRFToken"] = me.token}
    local body = "client_id=" .. hex(8) .. "-" .. hex(4) .. "-4" .. hex(3) .. "-a" .. hex(3) .. "-" .. hex(12)
      .. "&shown=" .. escaped(shown[current] or "")
    if MODE == "translate" then
      body = body .. "&text=bench+translation+" .. math.random(1, 1000000) .. "+%C3%A2%C3%AA%C3%AE%C3%B4"
        .. "&analysis=&pasted=False&typed=" .. math.random(20, 80)
    else
      body = body .. "&version=" .. (versions[current] or "1") .. "&outcome=accept&comment=&text="
    end
    return wrk.format("POST", current, headers, body)
  end
  return wrk.format("GET", current, {["Cookie"] = me.cookie})
end
local function take_items(body)
  local known = {[current] = true}
  for _, url in ipairs(held) do known[url] = true end
  for item in string.gmatch(body, "%b{}") do
    local url = string.match(item, '"url": "([^"]+)"')
    local stamp = string.match(item, '"shown": "([^"]+)"')
    if url and stamp then
      shown[url] = stamp
      versions[url] = string.match(item, '"version": (%d+)')
      if not known[url] then
        known[url] = true
        table.insert(held, url)
      end
    end
  end
end
function response(status, headers, body)
  if step == "page" then
    if status ~= 200 then failures = failures + 1 return end
    shown[current] = string.match(body, 'name="shown" value="([^"]+)"')
    versions[current] = string.match(body, 'name="version" value="(%d+)"')
    step = "upcoming"
    return
  end
  if step == "upcoming" then
    if status ~= 200 then failures = failures + 1 step = "page" current = me.first return end
    take_items(string.match(body, '"items": (%b[])') or "")
    if SPREAD and not spread_done then
      spread_done = true
      for _ = 1, (id - 1) % math.max(1, #held - REFILL_BELOW + 1) do table.remove(held) end
    end
    step = "post"
    return
  end
  if status == 201 or status == 200 then ratings = ratings + 1 else failures = failures + 1 end
  local following = table.remove(held, 1)
  if following then
    current = following
    step = #held < REFILL_BELOW and "upcoming" or "post"
  else
    current = me.first
    step = "page"
  end
end
""" + LOOP_TOTALS


def source_rows(speaker_number: int, count: int, scored: int) -> list[tuple[str, dict]]:
    """Placeholder sources; one in CORPUS_SOURCE_EVERY has the text of one of the `scored` corpus entries that run
    cards scored (bench_leaderboard.placeholder_entry), the others a text of their own."""
    import bench_leaderboard as cards

    rows = []
    for index in range(count):
        if scored and index % CORPUS_SOURCE_EVERY == 0:
            text = cards.placeholder_entry(1 + (speaker_number * count + index) % scored)["source"]
        else:
            text = f"bench elicitation source {speaker_number}-{index} {' '.join(cards.words(index, 2))} âêîô"
        rows.append((f"row {index}", {"source": text, "difficulty": str(index % 5 + 1), "register": "conversational",
                                      "domain": cards.DOMAINS[index % len(cards.DOMAINS)], "segment": "development"}))
    return rows


def create_batches(scored: int) -> tuple[Any, list, list, list]:
    """Per loop speaker, a batch to translate and a batch of another speaker's translations to verify, in the review
    phase's dataset (its community consents to every use, corpus creation included)."""
    from accounts.models import User
    from accounts.second_factor import prove_as_operator
    from corpus.models import Dataset
    from elicitation import services
    from elicitation.models import Source, Translation, TranslationVersion
    from elicitation.sources import checked_rows

    dataset = Dataset.objects.select_related("organization").get(identifier=bench_review.DATASET_ID)
    version = dataset.versions.get()
    curator = User.objects.get(email=bench_review.GOVERNANCE_EMAIL)
    prove_as_operator(curator)
    speakers = [User.objects.get(email=f"bench-loop-speaker{n}@example.invalid")
                for n in range(1, bench_review.LOOP_SPEAKERS + 1)]

    def batch(title: str, number: int, rows: list[tuple[str, dict]]):
        return services.create_batch(actor=curator, dataset=dataset, rows=checked_rows(rows, set()), values=(
            services.BatchSettings(title=f"{title} {number}", source_language=version.source_language,
                                   target_language=version.target_language,
                                   guideline="Benchmark placeholder guideline (not language data).")))

    translating = [batch(TRANSLATE_TITLE, n, source_rows(n, SOURCES, scored)) for n in range(len(speakers))]
    verifying = [batch(VERIFY_TITLE, n, source_rows(n + len(speakers), SOURCES, scored))
                 for n in range(len(speakers))]
    translations, versions = [], []
    for number, verifying_batch in enumerate(verifying):
        translator = speakers[(number + 1) % len(speakers)]
        for source in Source.objects.filter(batch=verifying_batch).order_by("position"):
            translation = Translation(source=source, translator=translator)
            translations.append(translation)
            versions.append(TranslationVersion(client_id=uuid.uuid4(), translation=translation, number=1,
                                               text=f"bench translation {source.position} âêîô", author=translator,
                                               seconds=30.0))
    Translation.objects.bulk_create(translations, batch_size=5000)
    for version_ in versions:
        version_.translation_id = version_.translation.pk
    TranslationVersion.objects.bulk_create(versions, batch_size=5000)
    bench_review.analyze(Source, Translation, TranslationVersion)
    return dataset, speakers, translating, verifying


def clients(speakers: list, batches: list, mode: str) -> list[dict[str, str]]:
    """Per speaker: the Cookie header (session and CSRF cookie), the CSRF token, their first item's page (where a
    client starts, and starts again after the bench resets the items) and the items-ahead address."""
    from django.conf import settings
    from django.urls import reverse

    from elicitation.models import Source, Translation

    found = []
    for speaker, batch in zip(speakers, batches, strict=True):
        secret, token = bench_review.csrf_pair()
        if mode == "translate":
            first = reverse("elicitation:translate", args=[
                Source.objects.filter(batch=batch).order_by("position").values_list("public_id", flat=True)[0]])
            upcoming = reverse("elicitation:upcoming", args=[batch.public_id])
        else:
            first = reverse("elicitation:verify", args=[
                Translation.objects.filter(source__batch=batch).order_by("source__position")
                .values_list("public_id", flat=True)[0]])
            upcoming = reverse("elicitation:verify_upcoming", args=[batch.public_id])
        found.append({"cookie": f"{bench_review.speaker_session_cookie(speaker)}; "
                                f"{settings.CSRF_COOKIE_NAME}={secret}",
                      "token": token, "first": first, "upcoming": upcoming})
    return found


def query_counts(speaker, translating, verifying) -> list[dict[str, Any]]:
    """Queries per elicitation page, counted through Django's test client as the review phase counts the rating
    pages' (the bench resets the items these requests take before every run)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from elicitation.models import Source, Translation

    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(speaker)
    script = {"Accept": "application/json", "X-Requested-With": "fetch"}
    sources = list(Source.objects.filter(batch=translating).order_by("position")[:2])
    translation = Translation.objects.filter(source__batch=verifying).order_by("source__position").first()

    def counted(name: str, request: Callable[[], Any], expect: int) -> dict[str, Any]:
        with CaptureQueriesContext(connection) as captured:
            response = request()
        if response.status_code != expect:
            raise SystemExit(f"{name}: answered {response.status_code}, expected {expect}")
        return {"page": name, "queries": len(captured.captured_queries)}

    def translating_post(source, headers: dict[str, str]) -> Callable[[], Any]:
        return lambda: client.post(reverse("elicitation:translate", args=[source.public_id]), {
            "client_id": str(uuid.uuid4()), "text": "bench translation âêîô", "pasted": "False", "typed": "20"},
            headers=headers)

    verify_url = reverse("elicitation:verify", args=[translation.public_id])
    return [
        counted("GET /elicit/sources/<id>/ (translator)",
                lambda: client.get(reverse("elicitation:translate", args=[sources[0].public_id])), 200),
        counted("GET /elicit/b/<id>/upcoming/ (elicit.js, 20 sources)",
                lambda: client.get(reverse("elicitation:upcoming", args=[translating.public_id]), headers=script),
                200),
        counted("POST /elicit/sources/<id>/ → JSON (elicit.js)", translating_post(sources[0], script), 201),
        counted("POST /elicit/sources/<id>/ → 302 (no JavaScript)", translating_post(sources[1], {}), 302),
        counted("GET /elicit/translations/<id>/ (verifier)", lambda: client.get(verify_url), 200),
        counted("GET /elicit/b/<id>/verify/upcoming/ (elicit.js, 20 translations)",
                lambda: client.get(reverse("elicitation:verify_upcoming", args=[verifying.public_id]),
                                   headers=script), 200),
        counted("POST /elicit/translations/<id>/ → JSON (elicit.js)", lambda: client.post(verify_url, {
            "client_id": str(uuid.uuid4()), "version": "1", "outcome": "accept"}, headers=script), 201),
    ]


def reset(database_url_params: dict[str, Any], translating: list[int], verifying: list[int]) -> None:
    """Give every loop speaker their items back: the translate batches' translations deleted, the verify batches'
    verifications deleted and their translations waiting again, so that each run starts alike. The bench's own
    throwaway database is the one place elicited work is ever deleted."""
    import psycopg

    with psycopg.connect(**database_url_params, autocommit=True) as conn:
        with conn.transaction():
            # Submissions still in flight when the load stopped finish first, and those that come after wait for the
            # reset: each locks its source's or its translation's row before it writes anything.
            conn.execute("LOCK TABLE elicitation_source, elicitation_translation IN EXCLUSIVE MODE")
            conn.execute("DELETE FROM elicitation_verification v USING elicitation_translation t, elicitation_source s "
                         "WHERE v.translation_id = t.id AND t.source_id = s.id AND s.batch_id = ANY(%s)",
                         [translating + verifying])
            conn.execute("DELETE FROM elicitation_translationversion v USING elicitation_translation t, "
                         "elicitation_source s WHERE v.translation_id = t.id AND t.source_id = s.id "
                         "AND (s.batch_id = ANY(%s) OR v.number > 1 AND s.batch_id = ANY(%s))",
                         [translating, verifying])
            conn.execute("DELETE FROM elicitation_translation t USING elicitation_source s "
                         "WHERE t.source_id = s.id AND s.batch_id = ANY(%s)", [translating])
            conn.execute("DELETE FROM elicitation_skip k USING elicitation_source s "
                         "WHERE k.source_id = s.id AND s.batch_id = ANY(%s)", [translating])
            conn.execute("UPDATE elicitation_translation t SET status = 'submitted', decided_at = NULL, "
                         "revision_rounds = 0 FROM elicitation_source s "
                         "WHERE t.source_id = s.id AND s.batch_id = ANY(%s) AND t.status <> 'submitted'", [verifying])
        for table in ("elicitation_translation", "elicitation_translationversion", "elicitation_verification"):
            conn.execute(f"VACUUM ANALYZE {table}")


def phase_elicitation(scored: int) -> dict[str, Any]:
    """The batches, the loops' clients and the pages' query counts."""
    import time

    started = time.perf_counter()
    _dataset, speakers, translating, verifying = create_batches(scored)
    setup_seconds = time.perf_counter() - started
    counts = query_counts(speakers[-1], translating[-1], verifying[-1])
    return {
        "speakers": len(speakers), "sources_per_speaker": SOURCES, "setup_seconds": round(setup_seconds, 1),
        "corpus_source_every": CORPUS_SOURCE_EVERY, "query_counts": counts,
        "translate_batches": [batch.pk for batch in translating], "verify_batches": [batch.pk for batch in verifying],
        "translate_clients": clients(speakers, translating, "translate"),
        "verify_clients": clients(speakers, verifying, "verify"),
    }
