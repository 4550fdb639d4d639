"""For tests that migrate a database of their own as an operator would: a scratch PostgreSQL database (dropped
afterwards) and `manage.py` run against a database URL in a child process."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def scratch_database():
    """(its URL, psycopg's connection arguments) of a new, empty PostgreSQL database on the tests' server."""
    if connection.vendor != "postgresql":
        pytest.skip("migrates a scratch PostgreSQL database: runs against PostgreSQL")
    params = connection.settings_dict
    name = f"champollion_scratch_{uuid.uuid4().hex[:8]}"
    server = dict(host=params["HOST"] or "127.0.0.1", port=params["PORT"] or 5432, user=params["USER"] or "postgres",
                  password=params["PASSWORD"] or None, autocommit=True)
    with psycopg.connect(dbname="postgres", **server) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    password = f":{server['password']}" if server["password"] else ""
    try:
        yield (f"postgres://{server['user']}{password}@{server['host']}:{server['port']}/{name}",
               dict(dbname=name, **server))
    finally:
        with psycopg.connect(dbname="postgres", **server) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def manage(url: str, *args: str) -> str:
    """`manage.py` with DATABASE_URL=`url`; its output, once it succeeded."""
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env={**os.environ, "DATABASE_URL": url},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout
