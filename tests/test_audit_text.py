"""Audit events read as sentences: each action's label and each detail's name in the reader's language, values as
phrases (lists joined, yes/no), never a code or a Python repr on a page; the CSV export keeps the codes."""

import ast
import csv
import functools
import io
import json
from pathlib import Path

import pytest
from django.utils import translation

from corpus.services import import_corpus, set_dataset_public
from organizations.audit import record_event
from organizations.audit_text import DETAIL_LABELS, details_line
from organizations.models import AuditAction

from .conftest import corpus_bytes, entry, grant_all_consents

ROOT = Path(__file__).resolve().parent.parent
APPS = [path for path in ROOT.iterdir() if (path / "apps.py").exists()]
# Tuples of names whose values the code writes into details by a comprehension (policies, examples, bands).
FIELD_LISTS = ("GATE_POLICY_FIELDS", "RATING_EXAMPLE_FIELDS", "TIER_BAND_FIELDS")


def string_keys(node: ast.AST) -> set[str]:
    return {key.value for key in getattr(node, "keys", []) if isinstance(key, ast.Constant)
            and isinstance(key.value, str)}


@functools.cache
def written_detail_keys() -> frozenset[str]:
    """Every key the code writes into an event's details: the literal dicts passed to record_event, assigned to a
    `details` variable or subscript, returned by the `*_details` / `*_target` helpers they spread, and the field
    lists written by comprehension."""
    keys: set[str] = set()
    for app in APPS:
        for path in app.rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) \
                        == "record_event":
                    keys |= {key for keyword in node.keywords if keyword.arg == "details"
                             for key in string_keys(keyword.value)}
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    names = {getattr(target, "id", None) for target in targets}
                    if "details" in names:
                        keys |= string_keys(node.value)
                    if names & set(FIELD_LISTS) and isinstance(node.value, ast.Tuple):
                        keys |= {item.value for item in node.value.elts if isinstance(item, ast.Constant)}
                    for target in targets:
                        if isinstance(target, ast.Subscript) and getattr(target.value, "id", "") == "details" \
                                and isinstance(target.slice, ast.Constant):
                            keys.add(target.slice.value)
                elif isinstance(node, ast.FunctionDef) and node.name.endswith(("_details", "_target")):
                    for returned in ast.walk(node):
                        if isinstance(returned, ast.Return) and returned.value is not None:
                            keys |= string_keys(returned.value)
    return frozenset(keys)


def test_the_walk_finds_the_keys_the_code_writes():
    found = written_detail_keys()
    assert {"reason", "uses", "speaker", "min_usable_lower_bound", "reject", "deployable", "entries", "target",
            "where"} <= found


def test_every_detail_the_code_writes_has_a_label():
    assert sorted(written_detail_keys() - set(DETAIL_LABELS)) == []


def test_details_read_as_phrases_in_french():
    details = {"uses": ["public_release", "evaluation"], "reason": "asked by the community", "required": True,
               "hourly_rate": None, "min_usable_lower_bound": 0.7}
    with translation.override("fr-ca"):
        line = details_line(details)
    assert line == ("Utilisations\u00a0: public_release, evaluation; Raison\u00a0: asked by the community; "
                    "Requis\u00a0: oui; Taux horaire\u00a0: —; "
                    "Borne inférieure de la part utilisable d’au moins\u00a0: 0,7")
    assert "['" not in line and "True" not in line and "None" not in line


@pytest.mark.django_db
def test_the_audit_log_and_the_dashboard_speak_sentences_and_the_export_keeps_codes(
        client, steward, governance_user):
    version = import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None).version
    grant_all_consents(version.dataset, governance_user)
    set_dataset_public(dataset=version.dataset, is_public=True, actor=governance_user)
    record_event(AuditAction.CONSENT_REVOKED, actor=governance_user, organization=steward,
                 details={"uses": ["public_release", "evaluation"], "reason": "la communauté l’a demandé"})
    client.force_login(governance_user)
    client.post("/language/", {"language": "fr-ca"})
    log = client.get(f"/orgs/{steward.slug}/audit/").content.decode()
    assert "Consentement révoqué" in log and "Jeu de données publié" in log
    assert "Utilisations\u00a0: public_release, evaluation" in log
    assert "consent.revoked" not in log.replace('value="consent.revoked"', "") and "[&#x27;" not in log
    assert '<option value="consent.revoked">Consentement révoqué</option>' in log
    dashboard = client.get(f"/orgs/{steward.slug}/dashboard/").content.decode()
    assert "Consentement révoqué" in dashboard and "<code>consent.revoked</code>" not in dashboard
    assert "Raison\u00a0: la communauté l’a demandé" in dashboard
    exported = list(csv.DictReader(io.StringIO(
        client.get(f"/orgs/{steward.slug}/audit/", {"format": "csv"}).content.decode())))
    revoked = next(row for row in exported if row["action"] == "consent.revoked")
    assert json.loads(revoked["details"])["uses"] == ["public_release", "evaluation"]
