"""The suite run by several pytest-xdist workers at once (`make test`, `make test-fast`): each worker keeps its
database, its cache and its Celery queue to itself.

pytest-django gives each worker a test database of its own (`…_gw0`, `…_gw1`). The cache and the broker are one
Redis database for all of them, so each worker's cache keys carry its name and its `clear()` removes only those
(Django's Redis cache empties the whole Redis database, the other workers' sessions and rate-limit counters
with it), and its tasks go to a queue of its own, which only its own Celery workers read. Without xdist, and
with the in-process cache and eager tasks of SQLite runs, nothing changes.
"""

import os

from common.cache import SharedClientRedisCache

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


class WorkerCache(SharedClientRedisCache):
    """The project's Redis cache, whose `clear()` removes only the keys of this worker's prefix."""

    def clear(self) -> bool:
        client = self._cache.get_client(write=True)
        keys = list(client.scan_iter(match=f"{self.key_prefix}:*", count=1000))
        if keys:
            client.delete(*keys)
        return True


def isolate() -> None:
    """Called once per worker process, before any test touches the cache or sends a task."""
    if not WORKER:
        return
    from django.conf import settings

    cache = settings.CACHES["default"]
    if cache["BACKEND"] == "common.cache.SharedClientRedisCache":
        cache.update(BACKEND="tests.workers.WorkerCache", KEY_PREFIX=f"test-{WORKER}")
    if settings.CELERY_BROKER_URL:
        from config.celery import app

        app.conf.task_default_queue = f"celery-{WORKER}"
