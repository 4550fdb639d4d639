"""`make run PORT=…` serves on that port, and the links its e-mails carry point there too (issue 12, part 7)."""

import subprocess


def test_make_run_derives_the_site_address_from_the_port(monkeypatch):
    monkeypatch.delenv("SITE_BASE_URL", raising=False)
    plan = subprocess.run(["make", "-n", "run", "PORT=8123"], capture_output=True, text=True, check=True).stdout
    serve = next(line for line in plan.splitlines() if "runserver" in line)
    assert "runserver 127.0.0.1:8123" in serve
    assert "SITE_BASE_URL=${SITE_BASE_URL:-http://127.0.0.1:8123}" in serve
