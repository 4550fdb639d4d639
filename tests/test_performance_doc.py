"""docs/performance.md's figures are the results block `make bench` writes from bench/results.json: checked here,
so the document can't drift from the committed run."""

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bench_module():
    """scripts/bench.py as `make bench` runs it: with its own folder on the path, for the modules beside it."""
    if str(ROOT / "scripts") not in sys.path:
        sys.path.append(str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location("bench_report", ROOT / "scripts" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_performance_doc_shows_the_committed_results():
    bench = bench_module()
    report = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
    document = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
    assert bench.DOC_BEGIN in document and bench.DOC_END in document
    assert bench.with_results(document, report) == document, "run `make bench` (it rewrites the block)"


def test_every_goal_says_whether_it_is_met():
    bench = bench_module()
    report = json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))
    recomputed = bench.goals(report)
    assert [goal["met"] for goal in recomputed] == [goal["met"] for goal in report["goals"]]
    assert {"≤ 6 ms", "< 150 ms", "< 200 ms", "≤ 10×", "≤ 3×"} <= {goal["target"] for goal in recomputed}
