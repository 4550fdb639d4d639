"""`make run PORT=…` serves on that port, and the links its e-mails and the demo's printed invitations carry point
there too; installing prints nothing alarming (the application is not built as a package)."""

import subprocess

import pytest


def make_plan(*arguments: str) -> str:
    return subprocess.run(["make", "-n", *arguments], capture_output=True, text=True, check=True).stdout


def test_make_run_derives_the_site_address_from_the_port(monkeypatch):
    monkeypatch.delenv("SITE_BASE_URL", raising=False)
    plan = make_plan("run", "PORT=8123")
    assert "runserver 127.0.0.1:8123" in next(line for line in plan.splitlines() if "runserver" in line)
    assert "Open http://127.0.0.1:8123/" in plan
    # Every command make runs sees the address, load_demo's printed links included.
    printed = subprocess.run(["make", "--no-print-directory", "-s", "PORT=8104", "print-site-base-url"],
                             capture_output=True, text=True)
    assert printed.stdout.strip() == "http://127.0.0.1:8104", printed.stdout + printed.stderr


def test_an_address_given_by_the_environment_wins(monkeypatch):
    monkeypatch.setenv("SITE_BASE_URL", "https://review.example.org")
    assert "Open https://review.example.org/" in make_plan("run")


def test_installing_never_builds_the_application_as_a_package():
    for target in ("install", "install-test"):
        plan = make_plan(target)
        assert "pip install" in plan and " -e " not in plan and "pip install --quiet ." not in plan



@pytest.mark.slow  # a Python process of its own runs `manage.py shell` (1.5 s)
def test_eager_tasks_warn_of_no_missing_broker(tmp_path):
    """`make run` configures no broker, so tasks run eagerly; Celery still prepares a producer for each task it
    runs, and an empty broker address made kombu warn "No hostname was supplied" in the newcomer's log."""
    import os
    import sys

    env = {key: value for key, value in os.environ.items() if key not in ("CELERY_BROKER_URL", "REDIS_CACHE_URL")}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'unused.sqlite3'}"
    script = ("from django.conf import settings; from config.celery import app; "
              "assert settings.CELERY_TASK_ALWAYS_EAGER; app.producer_pool.acquire(block=True).release(); "
              "print('producer ready')")
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0 and "producer ready" in done.stdout, done.stdout + done.stderr
    assert "No hostname was supplied" not in done.stdout + done.stderr
