"""The one rule for a speaker's paid working time: what a piece of work claims is paid only from the later of its
showing and the speaker's `WorkClock`, and the clock moves on by what was paid. Every kind of paid work applies it
without a round trip of its own: `LOCKED_WORK_CLOCK` is read among the work's locked checks (review.selectors.rating,
elicitation.selectors), `paid_seconds` decides, and `SET_WORK_CLOCK` is sent with the work's insert."""

from datetime import datetime, timedelta

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
