"""A method submitted, or its package revised before the manifest audit: everything checked (terms, the package
inspected in memory, never extracted or executed, the class audit), then stored whole, or every problem returned
and nothing stored."""

from dataclasses import dataclass, field
from typing import IO, Any

from django.conf import settings
from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from common.problems import FieldProblem
from leaderboard.methods import (
    check_card_against_manifest,
    derive_method_class,
    validate_manifest,
    validate_method_card,
)
from organizations.audit import record_event
from organizations.models import AuditAction, Organization

from ..models import DependencySignOff, MethodSubmission, TermsAcceptance
from ..packages import PackageLimits, PackageReport, inspect_package, parse_cost_report
from ..selectors import manifest_digest
from .dependencies import declared_dependency_ids
from .errors import NotAllowed, TransitionRefused
from .states import State, record_change, state_label
from .terms import check_terms


@dataclass
class SubmissionOutcome:
    """What `submit_method` did: the stored submission, or every problem found and nothing stored."""

    submission: MethodSubmission | None
    problems: list[FieldProblem] = field(default_factory=list)
    report: PackageReport | None = None
    derived_class: str | None = None
    deciding_dependency: str | None = None


def package_limits() -> PackageLimits:
    return PackageLimits(
        max_bytes=settings.SUBMISSION_MAX_BYTES,
        max_uncompressed_bytes=settings.SUBMISSION_MAX_UNCOMPRESSED_BYTES,
        max_members=settings.SUBMISSION_MAX_MEMBERS,
    )


def audit_manifest(manifest: Any, method_card: Any) -> tuple[str | None, str | None, list[FieldProblem]]:
    """The class audit, with the leaderboard's own functions: (derived class, deciding dependency id,
    problems). A declared class that differs from the derived one is a problem naming the deciding
    dependency (from `validate_manifest`); class X is refused outright."""
    derived, problems = validate_manifest(manifest, path="method")
    problems += validate_method_card(method_card, path="method_card")
    problems += check_card_against_manifest(method_card, derived, path="method_card")
    deciding = None
    if derived is not None:
        deciding = derive_method_class(manifest["dependencies"])[1]
    if derived == "X":
        problems.append(FieldProblem("method.dependencies", (
            _('dependency "%(dependency)s" makes the method class X (content bundled without the right to '
              "redistribute and transfer it); class X methods cannot be evaluated or transferred and are refused")
            % {"dependency": deciding} if deciding else
            _("a dependency makes the method class X (content bundled without the right to redistribute and "
              "transfer it); class X methods cannot be evaluated or transferred and are refused"))))
    if isinstance(method_card, dict) and isinstance(method_card.get("method_id"), str) \
            and len(method_card["method_id"]) > 200:
        problems.append(FieldProblem("method_card.method_id", _("longer than 200 characters")))
    if isinstance(manifest, dict) and isinstance(method_card, dict):
        manifest_id, card_id = manifest.get("method_id"), method_card.get("method_id")
        if isinstance(manifest_id, str) and isinstance(card_id, str) and manifest_id != card_id:
            problems.append(FieldProblem("method.method_id", _('"%(manifest_id)s" differs from the method card\'s '
                                                               'method_id "%(card_id)s"') % {
                "manifest_id": manifest_id, "card_id": card_id}))
    return derived, deciding, problems


def submit_method(*, actor: User, organization: Organization, terms_acceptance: TermsAcceptance | None,
                  package: IO[bytes], package_name: str, cost_report: bytes,
                  cost_report_name: str = "cost_report.json",
                  development_data: dict | None = None) -> SubmissionOutcome:
    """Check everything, then store the submission and audit it (submitted → manifest_audited) — or,
    on any problem, store nothing and return every problem. The package is inspected in memory and
    never extracted or executed (`packages.inspect_package`). `development_data`: the submitter's declaration of
    the public development entries the method used (leaderboard.declarations)."""
    problems = check_terms(organization, actor, terms_acceptance)
    report = inspect_package(package, package_name, package_limits())
    problems += report.problems
    cost, cost_problems = parse_cost_report(cost_report, cost_report_name or "cost_report.json")
    problems += cost_problems
    derived = deciding = None
    if report.manifest is not None and report.method_card is not None:
        derived, deciding, audit_problems = audit_manifest(report.manifest, report.method_card)
        problems += audit_problems
    outcome = SubmissionOutcome(None, problems, report, derived, deciding)
    if problems:
        return outcome
    assert derived is not None  # no problems, so validate_manifest derived the class
    outcome.submission = _store(organization, actor, terms_acceptance, package, report, cost, derived, deciding,
                                development_data)
    return outcome


def _store(organization, submitter, acceptance, package, report: PackageReport, cost, derived: str,
           deciding: str | None, development_data: dict | None) -> MethodSubmission:
    card = report.method_card
    submission = MethodSubmission(
        organization=organization, submitter=submitter, terms_acceptance=acceptance,
        method_id=card["method_id"], method_name=card["name"][:200],
        declared_class=report.manifest["dependency_class"], derived_class=derived,
        deciding_dependency=(deciding or "")[:200], open_leaderboard_only=derived == "A2",
        package_name=report.filename[:255], package_sha256=report.sha256, package_size=report.size,
        files=[file.as_dict() for file in report.files], method_card=card, manifest=report.manifest,
        cost_report=cost, development_data=development_data,
    )
    package.seek(0)
    submission.package.save(report.filename, File(package), save=False)
    try:
        with transaction.atomic():
            submission.save()
            record_change(submission, submitter, "", State.SUBMITTED, "")
            if not declared_dependency_ids(submission):
                # Nothing for a reviewer to sign off: the class audit is the whole manifest audit.
                record_change(submission, submitter, State.SUBMITTED, State.MANIFEST_AUDITED,
                               f"Derived class {derived}" + (" — open leaderboard only (A2)" if derived == "A2"
                                                             else ""))
                submission.state = State.MANIFEST_AUDITED
                submission.save(update_fields=["state"])
    except BaseException:
        submission.package.storage.delete(submission.package.name)
        raise
    return submission


@dataclass
class RevisionOutcome:
    """What `revise_package` did: the revised submission, or every problem found and nothing changed."""

    submission: MethodSubmission | None
    problems: list[FieldProblem] = field(default_factory=list)


def revise_package(*, actor: User, submission: MethodSubmission, package: IO[bytes],
                   package_name: str) -> RevisionOutcome:
    """The submitter replaces the package before the manifest audit (a reviewer found a licence or source to
    correct): checked as a new submission's package is, of the same method. Every sign-off given on the earlier
    manifest is stale once the manifest changes (`current_sign_offs`). On any problem nothing changes."""
    if submission.submitter_id != actor.pk:
        raise NotAllowed(_("Only the submitter revises the package."))
    if submission.state != State.SUBMITTED:
        raise TransitionRefused(_("Its manifest is already audited (state “%(state)s”): a corrected method is a new "
                                  "submission.") % {"state": state_label(submission.state)}, "package")
    report = inspect_package(package, package_name, package_limits())
    problems = list(report.problems)
    derived = deciding = None
    if report.manifest is not None and report.method_card is not None:
        derived, deciding, audit_problems = audit_manifest(report.manifest, report.method_card)
        problems += audit_problems
        if not problems and report.method_card["method_id"] != submission.method_id:
            problems.append(FieldProblem("method_card.method_id", _(
                '"%(method_id)s" differs from this submission\'s method "%(submission_method)s"; another method is a '
                "new submission") % {"method_id": report.method_card["method_id"],
                                     "submission_method": submission.method_id}))
    if problems:
        return RevisionOutcome(None, problems)
    assert derived is not None  # no problems, so validate_manifest derived the class
    return RevisionOutcome(_store_revision(actor, submission, package, report, derived, deciding))


def _store_revision(actor: User, submission: MethodSubmission, package: IO[bytes], report: PackageReport,
                    derived: str, deciding: str | None) -> MethodSubmission:
    storage = submission.package.storage
    earlier_name = submission.package.name
    package.seek(0)
    new_name = storage.save(submission.package.field.generate_filename(submission, report.filename), File(package))
    try:
        with transaction.atomic():
            locked = MethodSubmission.objects.select_for_update(of=("self",)).select_related("organization").get(
                pk=submission.pk)
            if locked.state != State.SUBMITTED:
                raise TransitionRefused(_("Its manifest was audited meanwhile: a corrected method is a new "
                                          "submission."), "package")
            before = locked.package_sha256
            stale = DependencySignOff.objects.filter(submission=locked,
                                                     manifest_sha256=manifest_digest(locked.manifest)).count()
            card = report.method_card
            locked.package = new_name
            locked.package_name = report.filename[:255]
            locked.package_sha256, locked.package_size = report.sha256, report.size
            locked.files = [file.as_dict() for file in report.files]
            locked.method_card, locked.manifest, locked.method_name = card, report.manifest, card["name"][:200]
            locked.declared_class, locked.derived_class = report.manifest["dependency_class"], derived
            locked.deciding_dependency, locked.open_leaderboard_only = (deciding or "")[:200], derived == "A2"
            locked.updated_at = timezone.now()
            locked.save()
            record_event(AuditAction.PACKAGE_REVISED, actor=actor, organization=locked.organization, obj=locked,
                         details={"submission": str(locked.public_id), "method_id": locked.method_id,
                                  "before": before, "after": locked.package_sha256, "stale_sign_offs": stale})
            if not declared_dependency_ids(locked):
                record_change(locked, actor, State.SUBMITTED, State.MANIFEST_AUDITED, f"Derived class {derived}")
                locked.state = State.MANIFEST_AUDITED
                locked.save(update_fields=["state"])
    except BaseException:
        storage.delete(new_name)
        raise
    transaction.on_commit(lambda: storage.delete(earlier_name))
    return locked
