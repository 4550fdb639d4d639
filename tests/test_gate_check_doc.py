"""docs/validation-gate.md's calibration table is the block `make gate-check` writes from bench/gate_check.json:
checked here, so the document cannot drift from the committed run, and each target's verdict is the numbers'."""

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def gate_check():
    spec = importlib.util.spec_from_file_location("gate_check", ROOT / "scripts" / "gate_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def report():
    return json.loads((ROOT / "bench" / "gate_check.json").read_text(encoding="utf-8"))


def test_the_validation_gate_doc_shows_the_committed_calibration():
    module = gate_check()
    document = (ROOT / "docs" / "validation-gate.md").read_text(encoding="utf-8")
    assert module.DOC_BEGIN in document and module.DOC_END in document
    assert module.with_results(document, report()) == document, "run `make gate-check` (it rewrites the block)"


def test_each_targets_verdict_follows_from_the_results():
    module = gate_check()
    committed = report()
    assert module.targets(committed["results"]) == committed["targets"]


def test_the_run_covers_every_design_of_the_grid():
    module = gate_check()
    committed = report()
    keys = ("kind", "ratings", "speakers", "items", "layout", "leniency", "share")
    assert [tuple(row[key] for key in keys) for row in committed["results"]] == [
        tuple(cell[key] for key in keys) for cell in module.cells(committed["runs"])]
