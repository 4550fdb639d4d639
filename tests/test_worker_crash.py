"""A Celery worker process killed in the middle of a task: the task goes back on the queue
(acks_late + reject_on_worker_lost), runs again, and its work is done exactly once.

The test holds a row lock the task needs, so the task is provably mid-run (waiting inside its
transaction) when its worker process is killed with SIGKILL. Needs the Redis broker and PostgreSQL."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from config.celery import app as celery_app
from leaderboard.models import DomainScore, RunCard
from review import services
from review.models import Assignment, Campaign
from review.services import campaigns as campaign_services

from .review_setup import gold_card, settings_for, speakers

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.django_db(transaction=True)


def database_url() -> str:
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def worker():
    """Starts a real worker process (prefork, one child) on the test database when called; it is
    stopped before pytest-django flushes the database."""
    if connection.vendor != "postgresql" or settings.CELERY_TASK_ALWAYS_EAGER:
        if os.environ.get("REQUIRE_POSTGRES"):
            pytest.fail("this test needs PostgreSQL and the Redis broker")
        pytest.skip("needs PostgreSQL and a Celery broker")
    started = []

    def start() -> subprocess.Popen:
        env = dict(os.environ, DATABASE_URL=database_url(), CELERY_BROKER_URL=settings.CELERY_BROKER_URL)
        started.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork", "--concurrency", "1",
             "--loglevel", "ERROR", "--without-gossip", "--without-mingle", "--without-heartbeat",
             "--queues", celery_app.conf.task_default_queue],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))
        return started[-1]

    yield start
    for process in started:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def connect(autocommit: bool = False) -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(host=db["HOST"] or "127.0.0.1", port=db["PORT"] or 5432, user=db["USER"],
                           password=db.get("PASSWORD") or None, dbname=db["NAME"], autocommit=autocommit)


def locked(table: str, pk: int) -> psycopg.Connection:
    """A separate connection holding the row lock the task will wait for."""
    holder = connect()
    holder.execute(f"SELECT id FROM {table} WHERE id = %s FOR UPDATE", [pk])  # noqa: S608 - fixed table names
    return holder


def wait_for(predicate, timeout: float = 60, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def task_waiting_on_lock() -> bool:
    """Asked on a fresh autocommit connection: pg_stat_activity is a snapshot per transaction."""
    with connect(autocommit=True) as observer:
        row = observer.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                               "AND datname = current_database()").fetchone()
    return row[0] > 0


def pool_children(worker: subprocess.Popen) -> set[int]:
    return {int(pid) for pid in subprocess.run(["pgrep", "-P", str(worker.pid)], capture_output=True,
                                               text=True).stdout.split()}


def kill_pool_child(worker: subprocess.Popen) -> set[int]:
    children = pool_children(worker)
    assert children, "the prefork worker has a child process running the task"
    for pid in children:
        os.kill(pid, signal.SIGKILL)
    return children


def crash_once(start_worker, table: str, pk: int) -> None:
    """With the task already queued: lock its row, start the worker, kill the process running the task
    once it waits inside its transaction, then let the re-delivered task through."""
    holder = locked(table, pk)
    try:
        process = start_worker()
        wait_for(task_waiting_on_lock, what="the task to start and wait inside its transaction")
        killed = kill_pool_child(process)
    finally:
        holder.rollback()
        holder.close()
    wait_for(lambda: pool_children(process) - killed, what="the worker to replace its killed process")
    assert not pool_children(process) & killed, "the process that ran the task first is gone"


def test_campaign_sampling_survives_a_killed_worker(worker, steward, governance_user, monkeypatch):
    monkeypatch.setattr(campaign_services, "INLINE_ASSIGNMENT_LIMIT", 10)
    card = gold_card(steward, governance_user, count=30)
    campaign = services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(speakers(steward, 3), sample_size=20),
    )
    assert campaign.status == Campaign.Status.PREPARING
    crash_once(worker, "review_campaign", campaign.pk)

    def prepared():
        return Campaign.objects.filter(pk=campaign.pk, status=Campaign.Status.OPEN).exists()

    wait_for(prepared, what="the re-delivered task to prepare the campaign")
    assert campaign.items.count() == 20
    assert Assignment.objects.filter(campaign=campaign).count() == 60, "assigned once, not twice"


def test_run_card_verification_survives_a_killed_worker(worker, client, steward, governance_user, settings):
    from corpus.models import Entry
    from corpus.services import import_corpus

    from .cards import body, make_card
    from .conftest import corpus_bytes, entry
    from .review_setup import consent_to_everything

    settings.RUN_CARD_INLINE_MAX_RESULTS = 3
    version = import_corpus(
        data=corpus_bytes([entry(n, domain="medical" if n % 2 else "legal") for n in range(1, 13)],
                                             id="crash-set"),
        organization=steward,
        actor=None,
    ).version
    consent_to_everything(version.dataset, governance_user)
    client.force_login(governance_user)
    response = client.post("/api/v1/run-cards/", body(make_card(version, list(Entry.objects.filter(version=version)))),
                           content_type="application/json")
    assert response.status_code == 202, response.content
    card = RunCard.objects.get()
    crash_once(worker, "leaderboard_runcard", card.pk)
    wait_for(lambda: RunCard.objects.filter(pk=card.pk, status=RunCard.Status.READY).exists(),
             what="the re-delivered verification")
    assert sorted(DomainScore.objects.filter(run_card=card).values_list("domain", flat=True)) == ["legal", "medical"]
