"""Review phases of `make bench` (scripts/bench.py): a campaign of 3,400 items rated three times each, the
aggregation of its ratings, and the speaker whose rating page the HTTP phase loads.

The data is a throwaway gold-standard dataset of obviously artificial placeholder entries (never language
data), a run card scoring it, and three bench speakers. Ratings are stored with the ORM as `record_rating`
would have stored them (10,200 calls through the service would take minutes and measure nothing asked for).
See docs/performance.md.
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
ENTRIES = 3_600
SAMPLE_SIZE = 3_370
CONTROL_ITEMS = 30  # rated by every speaker: 3,370 × 3 + 30 × 3 = 10,200 ratings over 3,400 items
RATINGS_PER_ITEM = 3
ROUNDS = 3
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
    from review.selectors import campaign_aggregate, campaign_observations

    started = time.perf_counter()
    campaign, speakers = create_campaign()
    stored, assignment_id = rate_all_but_one(campaign, speakers[0])
    setup_seconds = time.perf_counter() - started
    items = campaign.items.count()

    # The database-backed figures first: the live objects of the in-memory ones would make every garbage
    # collection during them slower than in a web process.
    measurements = [
        measure("review.selectors.campaign_aggregate", stored, lambda: campaign_aggregate(campaign),
                "campaign_observations then aggregate: what the campaign and decision pages compute"),
        measure("review.selectors.campaign_observations", stored, lambda: campaign_observations(campaign),
                "reading the current ratings and the items from PostgreSQL into ItemObservations"),
    ]
    measurements.append(measure_aggregate("review.aggregation.aggregate (campaign's)", campaign_observations(campaign),
                                          "the pure function on the stored campaign's observations (controls "
                                          "included)"))
    measurements.append(measure_aggregate("review.aggregation.aggregate (synthetic)",
                                          synthetic_items(-(-stored // RATINGS_PER_ITEM)),
                                          "the pure function on ItemObservations built in memory, no controls"))
    result = campaign_aggregate(campaign)
    return {
        "items": items, "ratings": stored, "setup_seconds": round(setup_seconds, 1), "rounds": ROUNDS,
        "alpha": result.alpha, "measurements": measurements,
        "rating_page": {"path": f"/review/items/{assignment_id}/", "cookie": speaker_session_cookie(speakers[0])},
    }
