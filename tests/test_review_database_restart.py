"""PostgreSQL restarted while speakers rate: every acknowledged rating survives, and a rating sent while
the database is down is not acknowledged, so the page re-sends it and it is stored once.

Runs only where ALLOW_POSTGRES_RESTART=1 (CI) against a local cluster managed by pg_ctlcluster: it
cuts every other connection to the server, so `make test` runs it by itself after the parallel run (`alone`)."""

import os
import shutil
import subprocess
import time
import uuid

import pytest
from django.db import connection
from django.test import Client

from review import services
from review.models import Assignment, Rating

from .review_setup import gold_card, settings_for, speakers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.alone]


def cluster() -> str | None:
    if connection.vendor != "postgresql" or not shutil.which("pg_ctlcluster") or not os.path.isdir("/etc/postgresql"):
        return None
    versions = sorted(os.listdir("/etc/postgresql"))
    return versions[-1] if versions else None


def pg(action: str, version: str) -> None:
    connection.close()
    subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", action], check=True,
                   capture_output=True, timeout=120)
    if action != "stop":
        for _ in range(120):
            if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"], check=False).returncode == 0:
                return
            time.sleep(0.25)
        raise RuntimeError("PostgreSQL did not come back")


@pytest.fixture
def version():
    if not os.environ.get("ALLOW_POSTGRES_RESTART"):
        pytest.skip("restarts the PostgreSQL server: only where ALLOW_POSTGRES_RESTART=1 (.ci/run sets it)")
    found = cluster()
    if found is None:
        pytest.fail("ALLOW_POSTGRES_RESTART is set but no local cluster can be restarted with pg_ctlcluster")
    yield found
    if subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1"], check=False).returncode != 0:
        pg("start", found)  # the test stopped it and failed before starting it again


def test_acknowledged_ratings_survive_a_database_restart(version, steward, governance_user):
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 2)
    speaker = pool[0]
    campaign = services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=4, ratings_per_item=2),
    )
    items = list(Assignment.objects.filter(campaign=campaign, speaker=speaker).order_by("position"))
    browser = Client(raise_request_exception=False)
    browser.force_login(speaker)

    def rate(assignment, client_id):
        return browser.post(f"/review/items/{assignment.public_id}/", {"client_id": str(client_id), "value": "gist"},
                            headers={"Accept": "application/json"})

    first = uuid.uuid4()
    assert rate(items[0], first).status_code == 201
    pg("restart", version)
    second = uuid.uuid4()
    assert rate(items[1], second).status_code == 201, "the first request after the restart reconnects"

    pg("stop", version)
    third = uuid.uuid4()
    refused = rate(items[2], third)
    assert refused.status_code >= 500, "a rating the database did not store is never acknowledged"
    pg("start", version)
    assert rate(items[2], third).status_code == 201, "the page's retry stores it"
    assert rate(items[2], third).status_code == 200, "and a further retry stores nothing new"

    connection.close()
    stored = set(Rating.objects.filter(speaker=speaker).values_list("client_id", flat=True))
    assert stored == {first, second, third}
