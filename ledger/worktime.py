"""The one rule for a speaker's paid working time: what a piece of work claims is paid only from the later of its
showing and the speaker's `WorkClock`, and the clock moves on by what was paid. Review's rating post applies it in
its own two round trips (review.services.rating: `LOCKED_WORK_CLOCK` among its locked checks, `SET_WORK_CLOCK` with
its insert); every other kind of work calls `claim_working_time`, two prepared statements."""

from datetime import datetime, timedelta

from django.db import transaction

from accounts.models import User
from common import compiled

from .models import WorkClock

CLOCK_SLACK_SECONDS = 5
"""The signed time of an item's showing has whole seconds, and a page's clock is not the server's."""

# The clock's read, locked, and its write (common.compiled: prepared once per connection, as every hot path's).
LOCKED_WORK_CLOCK = compiled.CompiledQuery(
    lambda speaker: WorkClock.objects.select_for_update().filter(speaker=speaker).order_by()
    .values_list("counted_until"),
    speaker=int)
SET_WORK_CLOCK = (f"INSERT INTO {WorkClock._meta.db_table} (speaker_id, counted_until) VALUES (%s, %s) "
                  "ON CONFLICT (speaker_id) DO UPDATE SET counted_until = EXCLUDED.counted_until")


def paid_seconds(claimed: float, *, shown_at: datetime, counted_until: datetime | None,
                 now: datetime) -> tuple[float, datetime]:
    """The seconds of `claimed` that are paid, and where the speaker's clock stands after them: never more than the
    wall time from the later of the showing and the clock (with the clock's slack), never less than nothing."""
    start = shown_at if counted_until is None else max(shown_at, counted_until)
    available = (now - start).total_seconds() + CLOCK_SLACK_SECONDS
    paid = max(0.0, min(claimed, available))
    return paid, start + timedelta(seconds=paid)


@transaction.atomic
def claim_working_time(*, speaker: User, claimed: float, shown_at: datetime, now: datetime) -> float:
    """Pay `claimed` seconds of work shown to the speaker at `shown_at`, as far as their clock allows, and move the
    clock on; the speaker's clock row is locked, so two pieces of work sent at once share the wall time."""
    row = LOCKED_WORK_CLOCK.first(speaker=speaker.pk)
    paid, until = paid_seconds(claimed, shown_at=shown_at, counted_until=row[0] if row else None, now=now)
    compiled.execute(SET_WORK_CLOCK, [speaker.pk, until])
    return paid
