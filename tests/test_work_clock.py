"""A speaker's paid working time never adds up to more than their wall time (ledger.worktime): items shown together
and rated one after the other, ratings sent together after a spell offline, and ratings sent at the same moment
share the time since the first showing; each speaker has a clock of their own."""

import threading
import time
import uuid
from datetime import timedelta

import pytest
from django.core import signing
from django.db import connection
from django.test import Client
from django.utils import timezone

from ledger.models import WorkClock
from ledger.worktime import CLOCK_SLACK_SECONDS, paid_seconds
from review import services
from review.forms import SHOWN_SALT
from review.models import Assignment, Rating

from .review_setup import settings_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(public_card, governance_user, pool):
    return services.open_campaign(run_card=public_card, actor=governance_user,
                                  values=settings_for(pool, sample_size=30))


def shown_together(campaign, speaker, count: int, seconds_ago: int) -> list[tuple[Assignment, str]]:
    """The speaker's next `count` open items with the signed time of one showing, as rate.js holds them."""
    stamp = int(time.time()) - seconds_ago
    items = Assignment.objects.filter(campaign=campaign, speaker=speaker, state="open").order_by("position")[:count]
    return [(item, signing.Signer(salt=SHOWN_SALT).sign(f"{item.public_id}:{stamp}")) for item in items]


def rate(client, assignment, token, **data) -> None:
    response = client.post(f"/review/items/{assignment.public_id}/",
                           {"client_id": str(uuid.uuid4()), "value": "gist", "shown": token, **data},
                           headers={"accept": "application/json"})
    assert response.status_code == 201, response.content


def paid(speaker) -> float:
    return sum(Rating.objects.filter(speaker=speaker).values_list("active_seconds", flat=True))


def test_items_fetched_together_and_timed_by_the_server_share_the_wall_time(client, campaign, pool):
    """Three items held on the device since one fetch 40 s ago, rated without a working-time count: each claims the
    40 s since the showing; together they are paid the 40 s once (with the clock's slack), not 120 s."""
    speaker = pool[0]
    client.force_login(speaker)
    started = time.monotonic()
    for assignment, token in shown_together(campaign, speaker, 3, seconds_ago=40):
        rate(client, assignment, token)
    wall = 40 + 1 + time.monotonic() - started  # the stamp's whole seconds, the posts' own time
    assert 40 <= paid(speaker) <= wall + CLOCK_SLACK_SECONDS


def test_ratings_sent_together_after_a_spell_offline_keep_the_time_each_counted(client, campaign, pool):
    """Worked one after the other offline (15 s each on the page's count) and sent together a minute after the
    fetch: each is paid its 15 s, since together they fit the wall time."""
    speaker = pool[0]
    client.force_login(speaker)
    for assignment, token in shown_together(campaign, speaker, 3, seconds_ago=60):
        rate(client, assignment, token, active_ms="15000")
    assert list(Rating.objects.filter(speaker=speaker).values_list("active_seconds", flat=True)) == [15.0] * 3


def test_a_device_that_claims_more_than_the_wall_time_is_paid_the_wall_time_once(client, campaign, pool):
    """Four items fetched 30 s ago, each claiming 20 s of work: 80 s claimed in 30 s of wall time."""
    speaker = pool[0]
    client.force_login(speaker)
    started = time.monotonic()
    for assignment, token in shown_together(campaign, speaker, 4, seconds_ago=30):
        rate(client, assignment, token, active_ms="20000")
    wall = 30 + 1 + time.monotonic() - started
    times = list(Rating.objects.filter(speaker=speaker).order_by("created_at").values_list("active_seconds",
                                                                                          flat=True))
    assert times[0] == 20.0 and 30 <= sum(times) <= wall + CLOCK_SLACK_SECONDS


def test_each_speaker_has_a_clock_of_their_own(client, campaign, pool):
    for speaker in pool[:2]:
        client.force_login(speaker)
        for assignment, token in shown_together(campaign, speaker, 2, seconds_ago=50):
            rate(client, assignment, token, active_ms="20000")
    assert [paid(speaker) for speaker in pool[:2]] == [40.0, 40.0]
    assert WorkClock.objects.count() == 2


def test_an_untimed_rating_pays_nothing_and_leaves_the_clock_alone(client, campaign, pool):
    speaker = pool[0]
    client.force_login(speaker)
    (assignment, _token), = shown_together(campaign, speaker, 1, seconds_ago=10)
    rate(client, assignment, "")
    assert Rating.objects.get(assignment=assignment).active_seconds is None
    assert not WorkClock.objects.filter(speaker=speaker).exists()


@pytest.mark.django_db(transaction=True)
def test_ratings_sent_at_the_same_moment_share_the_wall_time(steward, governance_user, public_card):
    """Two tabs sending at once: the speaker's clock row is locked by the first, so the second pays only what is
    left of the wall time."""
    if connection.vendor != "postgresql":
        pytest.skip("concurrency is proven on PostgreSQL (SQLite serialises every write)")
    from .review_setup import speakers

    pool = speakers(steward, 3)
    campaign = services.open_campaign(run_card=public_card, actor=governance_user,
                                      values=settings_for(pool, sample_size=30))
    speaker = pool[0]
    WorkClock.objects.create(speaker=speaker, counted_until=timezone.now() - timedelta(days=1))
    held = shown_together(campaign, speaker, 4, seconds_ago=20)
    barrier = threading.Barrier(len(held))
    errors = []

    def send(assignment, token):
        try:
            tab = Client()
            tab.force_login(speaker)
            barrier.wait()
            rate(tab, assignment, token, active_ms="20000")
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=pair) for pair in held]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Rating.objects.filter(speaker=speaker).count() == 4
    wall = 20 + 1 + time.monotonic() - started
    assert 20 <= paid(speaker) <= wall + CLOCK_SLACK_SECONDS


@pytest.mark.parametrize(("claimed", "clock_ago", "expected"), [
    (10, None, 10),  # no clock yet: from the showing
    (100, None, 60 + CLOCK_SLACK_SECONDS),  # never more than the time since the showing
    (10, 30, 10),  # the clock is later than the showing: still room
    (50, 30, 30 + CLOCK_SLACK_SECONDS),  # only what is left since the clock
    (10, -10, 0),  # the clock already ran past now (slack used up)
    (-3, None, 0),  # never less than nothing
])
def test_paid_seconds(claimed, clock_ago, expected):
    now = timezone.now()
    clock = None if clock_ago is None else now - timedelta(seconds=clock_ago)
    paid_now, until = paid_seconds(claimed, shown_at=now - timedelta(seconds=60), counted_until=clock, now=now)
    assert paid_now == pytest.approx(expected)
    start = now - timedelta(seconds=60) if clock is None else max(clock, now - timedelta(seconds=60))
    assert until == start + timedelta(seconds=paid_now)
