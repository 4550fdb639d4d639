"""The leaderboard's state stamp and what is cached under it: one answer for everyone who sees what an anonymous
visitor sees, never stale because every write that changes the listing changes the stamp in its own transaction."""

import hashlib
from collections.abc import Callable
from typing import Any

from django.core.cache import cache

from common.compiled import CompiledQuery
from languages.selectors import language_cache_key
from organizations.selectors import governance_org_ids, secret_reader_org_ids

from ..models import LeaderboardState

# The state stamp not handed to a read: it reads it itself (public_stamp).
READ_STAMP: Any = object()


# Entries under an older stamp are never read again; they only wait to expire.
LEADERBOARD_CACHE_SECONDS = 600


def shares_public_view(user) -> bool:
    """Whether `user` sees exactly what an anonymous visitor sees on the leaderboard: no role that widens it
    (curators and governance staff also see their own unpublished or withdrawn datasets' cards). One cached
    answer serves all of them."""
    return not secret_reader_org_ids(user) and not governance_org_ids(user)


# Read on every view of the leaderboard, page or API, before anything else: compiled once (common.compiled).
_STAMP = CompiledQuery(lambda: LeaderboardState.objects.filter(pk=1).order_by().values_list("stamp"))


def leaderboard_stamp() -> str | None:
    """The state stamp (None when its row is missing, e.g. after a flush: then nothing is cached)."""
    row = _STAMP.first()
    return None if row is None else row[0]


def cached_under(stamp: str | None, name: str, compute: Callable[[], Any]) -> Any:
    """`compute()`, cached under the state stamp (never when there is none: the reader sees more than the public)."""
    if stamp is None:
        return compute()
    key = f"leaderboard:{stamp}:{name}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, LEADERBOARD_CACHE_SECONDS)
    return value


def cached_many(stamp: str | None, names: dict[Any, str]) -> dict[Any, Any]:
    """What the cache holds of `names` (anything → its name under the state stamp), by the same keys; nothing when
    there is no stamp."""
    if stamp is None:
        return {}
    found = cache.get_many([f"leaderboard:{stamp}:{name}" for name in names.values()])
    return {what: found[f"leaderboard:{stamp}:{name}"] for what, name in names.items()
            if f"leaderboard:{stamp}:{name}" in found}


def store_many(stamp: str | None, values: dict[str, Any]) -> None:
    """Cache `values` (name → value) under the state stamp (never when there is none)."""
    if stamp is not None and values:
        cache.set_many({f"leaderboard:{stamp}:{name}": value for name, value in values.items()},
                       LEADERBOARD_CACHE_SECONDS)


def public_stamp(user) -> str | None:
    """The state stamp answers are cached under for `user` (None: nothing is cached for them); read once per
    request and handed to each ranking a page shows."""
    return leaderboard_stamp() if shares_public_view(user) else None


def whole_answer_key(kind: str, address: str) -> str | None:
    """The cache key of a whole answer (the page, the API's JSON) shared by everyone who sees what a visitor sees:
    under the state stamp (leaderboard_page says why never stale), per interface language and address; None
    before the stamp exists."""
    stamp = leaderboard_stamp()
    if stamp is None:
        return None
    return f"leaderboard-{kind}:{stamp}:{language_cache_key()}:{hashlib.sha256(address.encode()).hexdigest()[:32]}"
