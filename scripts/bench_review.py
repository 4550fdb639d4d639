"""Review phases of `make bench` (scripts/bench.py): a campaign of 10,000 items rated three times each (the
decision page's evidence), its aggregation, and a second campaign of the same card for the rating loop: 50
speakers with 600 items each, whose sessions and CSRF tokens the HTTP phase's clients use.

The data is a throwaway gold-standard dataset of obviously artificial placeholder entries (never language
data), a run card scoring it, and bench speakers. The big campaign's ratings are stored with the ORM as
`record_rating` would have stored them (30,000 calls through the service would take minutes and measure nothing
asked for); the loop campaign's are given over HTTP by the load itself. See docs/performance.md.
"""

import gc
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

import bench_leaderboard as cards

ORG_SLUG = "bench-review"
DATASET_ID = "bench-review-gold"
GOVERNANCE_EMAIL = "bench-review-governance@example.invalid"
SPEAKER_EMAILS = tuple(f"bench-review-speaker{n}@example.invalid" for n in (1, 2, 3))
ENTRIES = 10_200
SAMPLE_SIZE = 9_970
CONTROL_ITEMS = 30  # rated by every speaker: 9,970 × 3 + 30 × 3 = 30,000 ratings over 10,000 items
RATINGS_PER_ITEM = 3
LOOP_SPEAKERS = 50
LOOP_ITEMS = 3_000
LOOP_RATINGS_PER_ITEM = 10  # 3,000 × 10 ÷ 50: 600 items per speaker, more than one measured round rates
ROUNDS = 3
GATE_ITEMS = 1_000
GATE_SPEAKERS = 12
GATE_OPERATION = "aggregate + evaluate_gate (speaker panel)"
RATING_VALUES = ("reject", "gist", "acceptable", "excellent")


def gold_corpus(count: int) -> bytes:
    """Placeholder entries in the gold_standard segment, all five difficulties, four domains."""
    import json

    from corpus.services import corpus_file_chunks

    def document(index: int) -> str:
        entry = cards.placeholder_entry(index)
        entry.update(segment="gold_standard", provenance="gold_standard")
        return json.dumps(entry, ensure_ascii=False)

    envelope = json.dumps(cards.base.envelope(DATASET_ID), ensure_ascii=False)
    return b"".join(corpus_file_chunks(envelope, (document(i) for i in range(1, count + 1))))


def create_campaign() -> tuple[Any, list]:
    """The steward organization, its governance user and speakers, a gold card and an open campaign."""
    from allauth.mfa.totp.internal.auth import TOTP, generate_totp_secret
    from django.test.utils import override_settings

    from accounts.second_factor import prove_as_operator
    from corpus.models import Entry
    from corpus.services import import_corpus
    from leaderboard.services import submit_run_card
    from organizations.models import Organization
    from organizations.services import add_member
    from review import services
    from tests.cards import body, make_card

    organization = Organization.objects.create(slug=ORG_SLUG, name="Review benchmark (throwaway)")
    governance, _, _ = add_member(email=GOVERNANCE_EMAIL, organization=organization, role="governance", actor=None)
    TOTP.activate(governance, generate_totp_secret())  # governance staff see their secret segments only with 2FA
    prove_as_operator(governance)  # the benchmark acts for them, as load_demo does (accounts.second_factor)
    speakers = [add_member(
        email=email,
        organization=organization,
        role="speaker",
        actor=None,
    )[0] for email in SPEAKER_EMAILS]
    version = import_corpus(data=gold_corpus(ENTRIES), organization=organization, actor=None).version
    cards.consent_to_everything(version.dataset, governance)
    qualify(speakers, organization, version)
    entries = list(Entry.objects.filter(version=version).order_by("position"))
    card = make_card(version, entries, predict=cards.predict, composite=0.8, model_slug="bench-review-model")
    with override_settings(RUN_CARD_INLINE_MAX_RESULTS=ENTRIES):
        run_card = submit_run_card(body=body(card), actor=governance)
    campaign = services.open_campaign(
        run_card=run_card,
        actor=governance,
        values=services.CampaignSettings(
            title="Benchmark campaign", sample_size=SAMPLE_SIZE, speakers=speakers, ratings_per_item=RATINGS_PER_ITEM,
            seed=42, control_count=CONTROL_ITEMS),
    )
    services.prepare_campaign(campaign.pk)  # done already when Celery ran eagerly on commit; else now
    campaign.refresh_from_db()
    return campaign, speakers


def qualify(speakers: list, organization, version) -> None:
    """Each speaker fluent in both languages of the version's pair, attested by the organization: what a review
    pool is drawn from (docs/speakers.md)."""
    from speakers.services import add_skill, attest_skill

    for speaker in speakers:
        for language in {version.source_language, version.target_language}:
            attest_skill(actor=None, organization=organization,
                         skill=add_skill(actor=speaker, language=language, reading=4, writing=4))


def create_loop_campaign(campaign) -> tuple[Any, list]:
    """A second campaign on the same card for the rating loop: LOOP_SPEAKERS speakers, each with their own
    LOOP_ITEMS × LOOP_RATINGS_PER_ITEM ÷ LOOP_SPEAKERS assignments, no control items; phones may hold its
    items."""
    from accounts.second_factor import prove_as_operator
    from organizations.services import add_member
    from review import services

    governance = campaign.opened_by
    prove_as_operator(governance)
    speakers = [add_member(email=f"bench-loop-speaker{n}@example.invalid", organization=campaign.organization,
                           role="speaker", actor=None)[0] for n in range(1, LOOP_SPEAKERS + 1)]
    qualify(speakers, campaign.organization, campaign.run_card.dataset_version)
    loop = services.open_campaign(
        run_card=campaign.run_card, actor=governance,
        values=services.CampaignSettings(
            title="Benchmark rating loop", sample_size=LOOP_ITEMS, speakers=speakers,
            ratings_per_item=LOOP_RATINGS_PER_ITEM, seed=7, control_count=0,
            # rate.js then holds the upcoming (secret) items on the phone, as such a campaign lets it.
            device_may_hold_secret_items=True),
    )
    services.prepare_campaign(loop.pk)
    loop.refresh_from_db()
    return loop, speakers


def csrf_pair() -> tuple[str, str]:
    """A CSRF cookie secret and a form token for it, as a page with a form would have handed the browser."""
    from django.middleware.csrf import _get_new_csrf_string, _mask_cipher_secret

    secret = _get_new_csrf_string()
    return secret, _mask_cipher_secret(secret)


def loop_clients(loop, speakers) -> list[dict[str, str]]:
    """Per loop speaker: the Cookie header (session and CSRF cookie), the form's CSRF token, their first item's
    path (where a client starts, and starts again after the bench resets the campaign) and the campaign's
    upcoming-items path (what rate.js fetches ahead)."""
    from django.conf import settings

    from review.models import Assignment

    firsts = {}
    for speaker_id, public_id in (Assignment.objects.filter(campaign=loop).order_by("speaker_id", "position")
                                  .values_list("speaker_id", "public_id")):
        firsts.setdefault(speaker_id, f"/review/items/{public_id}/")
    clients = []
    for speaker in speakers:
        secret, token = csrf_pair()
        clients.append({"cookie": f"{speaker_session_cookie(speaker)}; {settings.CSRF_COOKIE_NAME}={secret}",
                        "token": token, "first": firsts[speaker.pk],
                        "upcoming": f"/review/c/{loop.public_id}/upcoming/"})
    return clients


def governance_session_cookie(user) -> str:
    """A governance session that proved the second factor at sign-in (the decision page needs it), recorded as
    allauth records a sign-in with password and TOTP code."""
    from allauth.account.internal.flows.login import AUTHENTICATION_METHODS_SESSION_KEY
    from allauth.mfa.models import Authenticator
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    totp = Authenticator.objects.get(user=user, type=Authenticator.Type.TOTP)
    session = client.session
    session[AUTHENTICATION_METHODS_SESSION_KEY] = [
        {"method": "password", "at": time.time(), "email": user.email},
        {"method": "mfa", "at": time.time(), "id": totp.pk, "type": "totp"}]
    session["account_authentication_methods_user"] = str(user.pk)
    session.save()
    return f"{settings.SESSION_COOKIE_NAME}={session.session_key}"


def query_counts(campaign, loop, governance, loop_speaker, cookie_client: dict[str, str]) -> list[dict[str, Any]]:
    """Queries per page, counted in this process through Django's test client (the same views and middleware
    as the server): each page's count must not grow with the data."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from review.models import Assignment

    def counted(name: str, request: Callable[[Client], Any], client: Client, expect: int) -> dict[str, Any]:
        with CaptureQueriesContext(connection) as captured:
            response = request(client)
        if response.status_code != expect:
            raise SystemExit(f"{name}: answered {response.status_code}, expected {expect}")
        return {"page": name, "queries": len(captured.captured_queries)}

    anonymous = Client(HTTP_HOST="127.0.0.1")
    speaker = Client(HTTP_HOST="127.0.0.1")
    speaker.force_login(loop_speaker)
    staff = Client(HTTP_HOST="127.0.0.1")
    staff.cookies.load(governance_session_cookie(governance))
    item = Assignment.objects.filter(campaign=loop, speaker=loop_speaker, state="open").order_by("position").first()
    path = f"/review/items/{item.public_id}/"

    def rating(headers: dict[str, str]) -> Callable[[Client], Any]:
        return lambda client: client.post(path, {"client_id": str(uuid.uuid4()), "value": "acceptable"},
                                          headers=headers)

    decision = f"/review/campaigns/{campaign.public_id}/decision/"
    counts = [
        counted("GET /leaderboard/ (anonymous)", lambda c: c.get("/leaderboard/?standard=legacy-composite"),
                anonymous, 200),
        counted("GET /api/v1/leaderboard/ (anonymous)",
                lambda c: c.get("/api/v1/leaderboard/?standard=legacy-composite"), anonymous, 200),
        counted("GET /review/items/<id>/ (speaker)", lambda c: c.get(path), speaker, 200),
        counted("GET /review/c/<id>/upcoming/ (rate.js, 20 items)",
                lambda c: c.get(f"/review/c/{loop.public_id}/upcoming/", headers={"Accept": "application/json"}),
                speaker, 200),
        counted("POST /review/items/<id>/ → JSON (rate.js)",
                rating({"Accept": "application/json", "X-Requested-With": "fetch"}), speaker, 201),
        counted("POST /review/items/<id>/ → JSON with the next item (rate.js, items not held)",
                rating({"Accept": "application/json", "X-Requested-With": "fetch", "X-Next-Item": "item"}),
                speaker, 201),
        counted("POST /review/items/<id>/ → 302 (no JavaScript)", rating({}), speaker, 302),
        counted("GET /review/campaigns/<id>/decision/ (governance)", lambda c: c.get(decision), staff, 200),
    ]
    cookie_client["decision_cookie"] = governance_session_cookie(governance)
    cookie_client["decision_path"] = decision
    return counts


def rate_all_but_one(campaign, speaker) -> tuple[int, str]:
    """Store a current rating for every assignment but one of `speaker`'s, whose id is returned: the rating
    page the HTTP phase loads. Values are a deterministic function of item and speaker, mostly agreeing."""
    from review.models import Assignment, Rating

    assignments = list(Assignment.objects.filter(campaign=campaign).order_by("pk")
                       .values_list("pk", "item_id", "speaker_id", "public_id"))
    kept = next(row for row in assignments if row[2] == speaker.pk)
    ratings = []
    for pk, item_id, speaker_id, _ in assignments:
        if pk == kept[0]:
            continue
        quality = item_id % 4
        drift = (item_id + speaker_id) % 5 == 0  # one rating in five is a step lower or higher
        value = RATING_VALUES[min(3, max(0, quality + (1 if speaker_id % 2 else -1) * drift))]
        ratings.append(Rating(client_id=uuid.uuid4(), assignment_id=pk, speaker_id=speaker_id, value=value,
                              semantically_wrong=value == "reject" and item_id % 3 == 0))
    Rating.objects.bulk_create(ratings, batch_size=5000)
    Assignment.objects.filter(campaign=campaign).exclude(pk=kept[0]).update(state=Assignment.State.RATED)
    analyze(Assignment, Rating)
    return len(ratings), str(kept[3])


def analyze(*models) -> None:
    """Refresh the planner's statistics after a bulk load, as autovacuum would soon do."""
    from django.db import connection

    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


def synthetic_items(count: int, speakers: int = RATINGS_PER_ITEM) -> list:
    """`count` items rated by `speakers` speakers each, with the same value pattern as the stored ratings."""
    from review.aggregation import ItemObservations, Observation

    items = []
    for item_id in range(1, count + 1):
        quality = item_id % 4
        observations = tuple(
            Observation(speaker_id, RATING_VALUES[min(3, max(0, quality + (1 if speaker_id % 2 else -1)
                                                                * ((item_id + speaker_id) % 5 == 0)))])
            for speaker_id in range(1, speakers + 1))
        items.append(ItemObservations(item_id=item_id, difficulty=item_id % 5 + 1,
                                      domain=cards.DOMAINS[item_id % len(cards.DOMAINS)], is_control=False,
                                      observations=observations))
    return items


def panel_items(count: int, speakers: int, seed: int) -> list:
    """`count` items each rated by one to three of `speakers` speakers drawn at random (mostly three): the shape
    the gate's speaker-aware interval and leave-one-speaker-out check work hardest on."""
    import random

    from review.aggregation import ItemObservations, Observation

    rng = random.Random(seed)
    items = []
    for item_id in range(count):
        raters = rng.sample(range(1, speakers + 1), rng.choice([1, 2, 3, 3, 3]))
        items.append(ItemObservations(item_id, rng.choice([1, 2, None]), "", False, tuple(
            Observation(speaker, rng.choice(RATING_VALUES[1:] if rng.random() < 0.8 else RATING_VALUES))
            for speaker in raters)))
    return items


def median_seconds(operation: Callable[[], Any], rounds: int = ROUNDS) -> tuple[float, list[float]]:
    """Median wall time; each round starts after a full garbage collection, so that no round pays for the
    garbage of the one before."""
    runs = []
    for _ in range(rounds):
        gc.collect()
        started = time.perf_counter()
        operation()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs), runs


def measure(name: str, ratings: int, operation: Callable[[], Any], note: str) -> dict[str, Any]:
    seconds, runs = median_seconds(operation)
    return {"operation": name, "ratings": ratings, "seconds": round(seconds, 4),
            "runs_seconds": [round(s, 4) for s in runs], "ratings_per_second": round(ratings / seconds, 1),
            "note": note}


def measure_aggregate(name: str, items: list, note: str) -> dict[str, Any]:
    """`aggregate` alone on `items` (which are freed on return, before the next measurement)."""
    from review.aggregation import aggregate

    return measure(name, sum(len(item.observations) for item in items), lambda: aggregate(items, RATINGS_PER_ITEM),
                   note)


def speaker_session_cookie(user) -> str:
    """A session for `user` in the database, as logging in makes one; the HTTP phase sends its cookie."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def phase_review() -> dict[str, Any]:
    """Build the campaign, rate it, time the aggregation three ways, and hand over the rating page."""
    from review.aggregation import aggregate
    from review.gate import GatePolicy, evaluate_gate
    from review.selectors import campaign_aggregate, campaign_observations

    started = time.perf_counter()
    campaign, speakers = create_campaign()
    stored, assignment_id = rate_all_but_one(campaign, speakers[0])
    setup_seconds = time.perf_counter() - started
    items = campaign.items.count()

    # The database-backed figures first: the live objects of the in-memory ones would make every garbage
    # collection during them slower than in a web process.
    campaign_aggregate(campaign)
    measurements = [
        measure("review.selectors.campaign_aggregate (cached)", stored, lambda: campaign_aggregate(campaign),
                "what the campaign and decision pages read while the evidence is unchanged: its state, then the "
                "cache"),
        measure("campaign_observations + aggregate (uncached)", stored,
                lambda: aggregate(campaign_observations(campaign), RATINGS_PER_ITEM),
                "what the first read after a change of the evidence computes"),
        measure("review.selectors.campaign_observations", stored, lambda: campaign_observations(campaign),
                "reading the current ratings and the items from PostgreSQL into ItemObservations"),
    ]
    measurements.append(measure_aggregate("review.aggregation.aggregate (campaign's)", campaign_observations(campaign),
                                          "the pure function on the stored campaign's observations (controls "
                                          "included)"))
    measurements.append(measure_aggregate("review.aggregation.aggregate (synthetic)",
                                          synthetic_items(-(-stored // RATINGS_PER_ITEM)),
                                          "the pure function on ItemObservations built in memory, no controls"))
    gate_items = panel_items(GATE_ITEMS, GATE_SPEAKERS, seed=7)
    gate = measure(
        GATE_OPERATION, sum(len(item.observations) for item in gate_items),
        lambda: evaluate_gate(aggregate(gate_items, RATINGS_PER_ITEM), GatePolicy()),
        f"{GATE_ITEMS:,} items rated by up to three of {GATE_SPEAKERS} speakers: aggregation, the speaker-aware "
        "interval for the panel and with each speaker replaced, and the gate")
    measurements.append(gate)
    result = campaign_aggregate(campaign)
    loop, loop_speakers = create_loop_campaign(campaign)
    pages: dict[str, str] = {}
    counts = query_counts(campaign, loop, campaign.opened_by, loop_speakers[-1], pages)
    return {
        "items": items, "ratings": stored, "setup_seconds": round(setup_seconds, 1), "rounds": ROUNDS,
        "alpha": result.alpha, "measurements": measurements, "gate": gate, "query_counts": counts,
        "loop": {"campaign_id": loop.pk, "speakers": LOOP_SPEAKERS,
                 "items_per_speaker": LOOP_ITEMS * LOOP_RATINGS_PER_ITEM // LOOP_SPEAKERS,
                 "clients": loop_clients(loop, loop_speakers)},
        "decision_page": {"path": pages["decision_path"], "cookie": pages["decision_cookie"]},
    }
