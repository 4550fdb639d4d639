"""The architecture, checked: the layers hold (and the check catches a break), one permission module answers every
role question, secret entries are shown only through the selectors that record them, services raise the one error
type and name no HTTP status, and the audit log knows its actions."""

import ast
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.template import Context, Template
from django.test import RequestFactory
from rest_framework.test import APIRequestFactory

from common.api import exception_handler
from common.errors import ApplicationError, Conflict, ErrorKind, NotAllowed
from leaderboard.services import RunCardRejected
from organizations import permissions
from organizations.audit import record_event
from organizations.models import AuditAction, AuditEvent
from review.services import NotAllowed as ReviewNotAllowed
from review.services import ReviewError

ROOT = Path(__file__).resolve().parent.parent
APPS = ["common", "accounts", "organizations", "governance", "languages", "corpus", "speakers", "leaderboard", "ledger",
        "review", "elicitation", "submissions", "config"]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def sources(*apps: str):
    for app in apps or APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path, parsed(path)


@functools.cache
def parsed(path: Path) -> ast.Module:
    """Each source file parsed once per test process: the checks walk the trees and never change them."""
    return ast.parse(path.read_text(), filename=str(path))


def is_services(path: Path) -> bool:
    """A services module, or a module of a services package (review/services/rating.py)."""
    return path.name == "services.py" or path.parent.name == "services"


def is_selectors(path: Path) -> bool:
    return path.name == "selectors.py" or path.parent.name == "selectors"


def calls_to(tree: ast.AST, name: str) -> tuple[int, ...]:
    return calls_by_name(tree).get(name, ())


@functools.cache
def calls_by_name(tree: ast.AST) -> dict[str, tuple[int, ...]]:
    """The lines of the calls in `tree` by the name called (a function's or a method's), gathered once per tree."""
    lines: dict[str, list[int]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            if name is not None:
                lines.setdefault(name, []).append(node.lineno)
    return {name: tuple(found) for name, found in lines.items()}


# The layers.

def lint_imports(cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_layers_hold():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 4 kept, 0 broken." in done.stdout


def copy_of_the_apps(tmp_path: Path) -> Path:
    for name in APPS:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_an_import_from_a_lower_layer_to_a_higher_one_breaks_the_contract(tmp_path):
    """The check is not vacuous: a corpus module importing review (a layer above it) fails it."""
    (copy_of_the_apps(tmp_path) / "corpus" / "upward.py").write_text(
        "from review.selectors import governed_campaigns  # noqa\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "corpus is not allowed to import review" in done.stdout
    assert "corpus.upward -> review.selectors" in done.stdout


def test_a_selector_importing_its_apps_services_breaks_the_contract(tmp_path):
    """Reads sit below writes inside an app: a corpus selector importing corpus's services fails the check."""
    (copy_of_the_apps(tmp_path) / "corpus" / "selectors" / "upward.py").write_text(
        "from corpus.services import import_corpus  # noqa\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "corpus.selectors is not allowed to import corpus.services" in done.stdout


def test_a_selector_importing_another_apps_services_breaks_the_contract(tmp_path):
    """Reads never reach a write, even of an app below: a leaderboard selector importing corpus's services fails the
    check, though the layers allow the import."""
    (copy_of_the_apps(tmp_path) / "leaderboard" / "selectors" / "writes.py").write_text(
        "from corpus.services import freeze_version  # noqa\n")
    done = lint_imports(tmp_path)
    assert done.returncode != 0
    assert "leaderboard.selectors is not allowed to import corpus.services" in done.stdout


# One permission module.

def test_no_role_check_outside_the_permission_module():
    """Roles are asked by name through organizations.permissions; the role lookup itself is its alone."""
    for path, tree in sources():
        if path.relative_to(ROOT).as_posix() in ("organizations/permissions.py", "organizations/selectors.py"):
            continue
        assert not calls_to(tree, "holds_role"), path
        assert not calls_to(tree, "has_role"), path
        assert not calls_to(tree, "require_governance"), path


@pytest.mark.django_db
def test_named_permissions_answer_with_a_reason(steward, other_org, governance_user, governance_user_without_mfa,
                                                curator, speaker, outsider, public_version):
    dataset = public_version.dataset
    assert permissions.check(governance_user, "organization.govern", steward)
    assert permissions.check(governance_user, "organization.manage", steward)
    assert permissions.check(governance_user, "dataset.see_secret", dataset)
    assert permissions.check(curator, "dataset.curate", dataset)
    assert not permissions.check(curator, "dataset.govern", dataset)
    assert not permissions.check(governance_user, "organization.govern", other_org)

    without_code = permissions.check(governance_user_without_mfa, "organization.manage", steward)
    assert not without_code and without_code.needs_second_factor and "two-factor" in without_code.reason
    # Role permissions ask the role only: the page in front of the service asked for the second factor.
    assert permissions.check(governance_user_without_mfa, "organization.govern", steward)

    for user in (speaker, outsider):
        verdict = permissions.check(user, "dataset.see_secret", dataset)
        assert not verdict and not verdict.needs_second_factor
        assert verdict.reason == "Only curators and governance staff of the steward organization may do this."
    assert permissions.check(None, "dataset.curate", dataset).reason == "Sign in first."
    with pytest.raises(KeyError):
        permissions.check(governance_user, "dataset.delete_everything", dataset)
    with pytest.raises(ReviewNotAllowed, match="Only governance staff"):
        permissions.require(speaker, "organization.govern", steward, error=ReviewNotAllowed)


@pytest.mark.django_db
def test_templates_ask_the_same_permissions_by_name(curator, speaker, public_version):
    template = Template('{% load organization_tags %}{% permitted "dataset.curate" dataset as can %}{{ can }}')
    for user, expected in ((curator, "True"), (speaker, "False")):
        request = RequestFactory().get("/")
        request.user = user
        assert template.render(Context({"request": request, "dataset": public_version.dataset})) == expected


# Who holds which role is decided in one place.

ROLE_DECIDERS = ("organizations/selectors.py", "organizations/permissions.py")


def role_filters(tree: ast.AST) -> list[int]:
    """Lines that filter by a membership's role themselves (`role=`, `memberships__role=`, or such a lookup
    written as a string)."""
    def is_role_lookup(name: str) -> bool:
        return name == "role" or name.endswith(("__role", "__role__in")) or name.startswith("role__")

    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.keyword) and node.arg
             and is_role_lookup(node.arg)]
    lines += [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
              and node.value.endswith(("__role", "__role__in"))]
    return sorted(set(lines))


def test_selectors_leave_role_filters_to_the_one_place_that_decides_them():
    """A selector asks organizations.selectors who holds a role (`holding_role`, `members_with_role`,
    `role_holders`, `org_ids_with_roles`, `governance_org_ids`, ...): a role filter written inside another selector
    is a second visibility rule that drifts from the first."""
    for path, tree in sources():
        relative = path.relative_to(ROOT).as_posix()
        if is_selectors(path) and relative not in ROLE_DECIDERS:
            assert not role_filters(tree), f"{relative}: lines {role_filters(tree)} filter by role themselves"


def test_the_role_filter_check_catches_a_role_written_in_a_query():
    for source in ("Membership.objects.filter(organization=o, role=Role.SPEAKER)",
                   "Organization.objects.filter(memberships__user=u, memberships__role=Role.SPEAKER)",
                   "Q(**{f'{prefix}organization__memberships__role': Role.SPEAKER})"):
        assert role_filters(ast.parse(source)), source
    assert not role_filters(ast.parse("Organization.objects.filter(holding_role(user, Role.SPEAKER))"))


# Secret entries are shown only by the selectors that record it.

def test_only_selectors_record_which_secret_entries_were_shown():
    for path, tree in sources():
        relative = path.relative_to(ROOT).as_posix()
        if relative == "organizations/audit.py" or is_selectors(path):
            continue
        assert not calls_to(tree, "record_secret_access"), f"{relative} records secret access itself"
        assert not calls_to(tree, "secret_entries_shown"), f"{relative} counts secret entries itself"


# The one error type.

# Modules that hold an app's writes under another name: they follow the services' rules.
SERVICE_MODULES = ("submissions/harness/intake.py",)
EXCEPTION_SUFFIXES = ("Error", "Exception", "Rejected", "Refused", "NotAllowed")
STATUS_NAMES = ("status", "status_code", "http_status")


def service_sources():
    for path, tree in sources():
        if is_services(path) or path.relative_to(ROOT).as_posix() in SERVICE_MODULES:
            yield path, tree


def is_http_status(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and 100 <= node.value <= 599


def carried_http_statuses(tree: ast.AST) -> list[int]:
    """Lines where an HTTP status travels with a refusal: a status-like number handed to an exception, held in a
    dict's values (a table of statuses) or assigned to a status attribute or keyword."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
            if callee.endswith(EXCEPTION_SUFFIXES) and any(is_http_status(arg) for arg in node.args):
                lines.append(node.lineno)
            lines += [node.lineno for keyword in node.keywords
                      if keyword.arg in STATUS_NAMES and is_http_status(keyword.value)]
        elif isinstance(node, ast.Dict) and node.values and all(is_http_status(value) for value in node.values):
            lines.append(node.lineno)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and is_http_status(node.value):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any((getattr(target, "id", None) or getattr(target, "attr", "")) in STATUS_NAMES for target in targets):
                lines.append(node.lineno)
    return sorted(set(lines))


def test_services_raise_the_one_error_type_and_name_no_http_status():
    for path, tree in service_sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and any(getattr(base, "id", "") == "Exception" for base in node.bases):
                pytest.fail(f"{path}: {node.name} is not an ApplicationError")
            if isinstance(node, ast.ImportFrom) and node.module in ("http", "rest_framework", "django.http"):
                pytest.fail(f"{path} imports {node.module}")
            if isinstance(node, ast.Name) and node.id in ("Http404", "HTTPStatus", "PermissionDenied"):
                pytest.fail(f"{path} uses {node.id}")
        assert not carried_http_statuses(tree), f"{path}: lines {carried_http_statuses(tree)} carry an HTTP status"
    assert issubclass(ReviewNotAllowed, NotAllowed) and issubclass(ReviewError, ApplicationError)


def test_the_http_status_check_catches_a_status_carried_by_a_refusal():
    for source in ("raise HarnessError(429, 'PGRST429', 'too many')", "STATUS_OF_KIND = {'invalid': 400}",
                   "error.status = 409", "refuse(kind, status=413)"):
        assert carried_http_statuses(ast.parse(source)), source
    assert not carried_http_statuses(ast.parse("REASON_LIMIT = 500\nraise ReviewError(_('Too long.'), 'reason')"))


@pytest.mark.parametrize(("error", "status"), [
    (ApplicationError("The title is empty.", "title"), 400),
    (NotAllowed("Only governance staff may do this."), 403),
    (Conflict("Already closed."), 409),
    (ApplicationError("Gone.", kind=ErrorKind.GONE), 410),
    (RunCardRejected(ErrorKind.CONFLICT, []), 409),
])
def test_the_api_layer_maps_each_kind_to_its_status(error, status):
    request = APIRequestFactory().get("/api/v1/")
    response = exception_handler(error, {"request": request})
    assert response.status_code == status
    assert response.data["detail"] == error.message and response.data["code"] == error.kind.value
    assert response.data.get("field") == error.field


# The audit log's actions.

@pytest.mark.django_db
def test_the_audit_log_records_known_actions_only(steward, governance_user):
    event = record_event(AuditAction.ORGANIZATION_CHANGED, actor=governance_user, organization=steward)
    assert event.action == "organization.changed" and event.get_action_display() == "Organization changed"
    with pytest.raises(ValueError):
        record_event("organization.renamed_quietly", actor=governance_user, organization=steward)
    assert not AuditEvent.objects.filter(action="organization.renamed_quietly").exists()


def test_every_recorded_action_is_in_the_enum():
    for path, tree in sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "record_event" and node.args:
                first = node.args[0]
                assert not isinstance(first, ast.Constant), f"{path}:{node.lineno} records a bare string"


# Services: keyword-only, with the acting person named.

ACTIONS = {
    "accounts.services": ["create_api_token", "revoke_api_token"],
    "organizations.services": ["create_organization", "add_member", "invite_member", "accept_invitation",
                               "remove_member", "change_role", "update_organization", "revoke_invitation",
                               "update_commitments"],
    "corpus.services": ["import_corpus", "add_entry", "update_entry", "freeze_version", "create_next_version",
                        "set_dataset_public", "grant_consent", "revoke_consent", "add_entries", "remove_entries"],
    "corpus.bulk": ["stage_bulk_import", "apply_staged_import"],
    "speakers.services": ["add_skill", "change_skill", "remove_skill", "forget_skills", "attest_skill",
                          "withdraw_attestation", "set_practice_round", "save_practice_item", "retire_practice_item",
                          "start_practice", "answer_practice_item"],
    "leaderboard.services": ["submit_run_card", "register_method", "record_reproduction", "declare_conflict",
                             "withdraw_conflict"],
    "review.services": ["open_campaign", "record_rating", "undo_last_rating", "add_speaker", "remove_speaker",
                        "leave_pool", "speaker_left_organization", "speaker_unqualified", "speaker_in_conflict",
                        "set_campaign_status", "record_decision",
                        "update_community_review", "set_gate_policy", "record_ratings_export"],
    "elicitation.services": ["create_batch", "add_sources", "set_batch_status", "update_guideline", "release_source",
                             "submit_translation", "skip_source", "verify_translation", "check_analysis",
                             "declare_verification_conflict", "add_accepted_to_version", "withdraw_elicited_work"],
    "config.services": ["delete_account", "withdraw_everything"],
    "governance.services": ["propose", "amend", "sign", "execute_now", "withdraw", "propose_policy"],
    "submissions.decisions": ["propose_approval", "propose_transfer"],
    "corpus.decisions": ["propose_publication"],
    "leaderboard.decisions": ["propose_disqualification", "disqualify_or_propose"],
    "submissions.services": ["publish_terms", "accept_terms", "submit_method", "advance_submission",
                             "record_ownership_transfer"],
}


@pytest.mark.parametrize("module", sorted(ACTIONS))
def test_actions_take_keyword_arguments_and_a_required_actor(module):
    import importlib
    import inspect

    for name in ACTIONS[module]:
        parameters = inspect.signature(getattr(importlib.import_module(module), name)).parameters
        kinds = {p.kind for p in parameters.values()}
        assert kinds <= {inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD}, f"{module}.{name}"
        assert "actor" in parameters and parameters["actor"].default is inspect.Parameter.empty, f"{module}.{name}"


@pytest.mark.django_db
def test_entry_edits_check_their_own_permission(speaker, curator, public_version):
    from corpus import bulk
    from corpus.services import add_entry, update_entry

    entry = public_version.entries.first()
    with pytest.raises(NotAllowed, match="curators and governance staff"):
        add_entry(actor=speaker, version=public_version, data={"id": 999, "source": "s", "reference": "r",
                                                               "segment": "development"})
    with pytest.raises(NotAllowed):
        update_entry(actor=speaker, entry=entry, changes={"notes": "changed by a speaker"})
    entry.refresh_from_db()
    assert "changed by a speaker" not in entry.document
    preview = bulk.stage_bulk_import(actor=curator, version=public_version, data=b"id,source,reference,segment\n"
                                     b"998,s,r,development\n", file_format="csv")
    assert preview.staged is not None
    with pytest.raises(NotAllowed, match="Only the person who uploaded"):
        bulk.apply_staged_import(actor=speaker, staged=preview.staged)
    assert not public_version.entries.filter(entry_id="998").exists()
    bulk.apply_staged_import(actor=curator, staged=preview.staged)
    assert public_version.entries.filter(entry_id="998").exists()


# Names outside the code survive the move.

@pytest.mark.django_db
def test_moved_models_keep_their_names_in_the_audit_log_and_the_queue(steward, governance_user):
    from organizations.models import Membership
    from organizations.tasks import send_invitation_email

    membership = Membership.objects.get(user=governance_user)
    event = record_event(AuditAction.MEMBERSHIP_ROLE_CHANGED, actor=governance_user, organization=steward,
                         obj=membership)
    assert event.object_type == "governance.Membership"
    assert send_invitation_email.name == "governance.tasks.send_invitation_email"
