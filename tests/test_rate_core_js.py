"""The rating page's queue, Undo and timing rules (static/js/rate-core.js) under Node's own test runner
(tests/js/*.test.cjs): logic a browser test would only reach through taps. `.ci/run` installs Node.js and sets
REQUIRE_NODE, so CI never skips it."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_rating_pages_rules_pass_under_node():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("REQUIRE_NODE"):
            pytest.fail("REQUIRE_NODE is set but node is not installed")
        pytest.skip("Node.js is not installed (apt-get install nodejs)")
    run = subprocess.run([node, "--test", str(ROOT / "tests" / "js")], capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "# fail 0" in run.stdout and "# pass 0" not in run.stdout
