"""Writes for participation terms, method submissions and ownership transfer (SPEC §5, §6).

A submission moves through the states of `TRANSITIONS` only; every move is checked here, recorded in
the submission's history (`SubmissionEvent`) and appended to the audit log as
`submission.state_changed`. The moves that depend on the review app mirror it rather than decide:
approval and rejection after community review follow the decision in force, and the transfer follows
`review.selectors.decisions.transfer_eligible`. See docs/submissions.md.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import IO, Any

from django.conf import settings
from django.core.files import File
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.models import User
from common import errors
from common.errors import ApplicationError, ErrorKind
from common.problems import FieldProblem
from corpus.services import document_problem
from leaderboard.methods import (
    check_card_against_manifest,
    dependency_class_of,
    derive_method_class,
    validate_manifest,
    validate_method_card,
)
from leaderboard.models import RunCard
from leaderboard.selectors import conflicts_of
from leaderboard.verification import DEPLOYABLE_THRESHOLD
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require
from organizations.selectors import mfa_enabled
from review.models import Campaign, Decision
from review.selectors import decision_in_force, transfer_eligible

from .models import (
    DEVELOPER_KEEPS,
    GOVERNANCE_GETS,
    DependencySignOff,
    MethodSubmission,
    OwnershipTransfer,
    ParticipationTerms,
    RightsHolderPermission,
    SubmissionEvent,
    SubmissionState,
    TermsAcceptance,
)
from .packages import PackageLimits, PackageReport, inspect_package, parse_cost_report

State = SubmissionState
VERSION_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")

# Who may move a submission where. The move to manifest_audited is governance staff's once a reviewer signed off
# every dependency the manifest declares (`submit_method` makes it at once for a manifest that declares none);
# every other move is governance staff's too. Rejection is possible at every step before approval: before
# community review with a written reason (governance declines to evaluate), from review on only when the decision
# in force rejects (or revokes the approval). Rejected and ownership_transferred are terminal: a corrected method
# is a new submission.
TRANSITIONS: dict[str, tuple[str, ...]] = {
    State.SUBMITTED: (State.MANIFEST_AUDITED, State.REJECTED),
    State.MANIFEST_AUDITED: (State.AWAITING_SANDBOX, State.REJECTED),
    State.AWAITING_SANDBOX: (State.EVALUATED, State.REJECTED),
    State.EVALUATED: (State.IN_REVIEW, State.REJECTED),
    State.IN_REVIEW: (State.APPROVED, State.REJECTED),
    State.APPROVED: (State.OWNERSHIP_TRANSFERRED, State.REJECTED),
    State.REJECTED: (),
    State.OWNERSHIP_TRANSFERRED: (),
}
# States from which a rejection mirrors the review decision instead of needing a reason of its own.
REVIEWED_STATES = (State.IN_REVIEW, State.APPROVED)
# A sign-off's comment and a permission's notes are kept whole up to this length.
COMMENT_MAX_LENGTH = 4000


class SubmissionError(ApplicationError):
    """A refused action, with the form field at fault when there is one."""


class NotAllowed(SubmissionError, errors.NotAllowed):
    """The actor lacks the permission the action needs (views answer 404)."""


class TransitionRefused(SubmissionError):
    """A move the workflow does not allow from the current state, or whose condition is not met."""

    default_kind = ErrorKind.CONFLICT


@dataclass
class SubmissionOutcome:
    """What `submit_method` did: the stored submission, or every problem found and nothing stored."""

    submission: MethodSubmission | None
    problems: list[FieldProblem] = field(default_factory=list)
    report: PackageReport | None = None
    derived_class: str | None = None
    deciding_dependency: str | None = None


def state_label(state: str) -> str:
    return str(State(state).label) if state in State.values else state


def package_limits() -> PackageLimits:
    return PackageLimits(
        max_bytes=settings.SUBMISSION_MAX_BYTES,
        max_uncompressed_bytes=settings.SUBMISSION_MAX_UNCOMPRESSED_BYTES,
        max_members=settings.SUBMISSION_MAX_MEMBERS,
    )


# Participation terms.

def latest_terms(organization: Organization) -> ParticipationTerms | None:
    return ParticipationTerms.objects.filter(organization=organization).order_by("-published_at", "-pk").first()


@transaction.atomic
def publish_terms(*, actor: User, organization: Organization, version: str, text: str,
                  transfer_clause: str) -> ParticipationTerms:
    """Publish a new version (never an edit of an old one: acceptances point at the exact text)."""
    require(actor, "organization.govern", organization, error=NotAllowed)
    version = version.strip()
    if not VERSION_LABEL.match(version):
        raise SubmissionError(_("A version label is 1 to 40 letters, digits, dots, hyphens or underscores, "
                                "starting with a letter or digit (e.g. 1, 2026-1, 1.1)."), "version")
    if not text.strip():
        raise SubmissionError(_("Write the terms a submitter accepts."), "text")
    if not transfer_clause.strip():
        raise SubmissionError(_("The terms must include the ownership-transfer clause (SPEC §5)."),
                              "transfer_clause")
    if ParticipationTerms.objects.filter(organization=organization, version=version).exists():
        raise SubmissionError(_("Version %(version)s is already published; published terms are never edited, "
                                "publish a new version instead.") % {"version": version}, "version")
    terms = ParticipationTerms.objects.create(organization=organization, version=version, text=text.strip(),
                                              transfer_clause=transfer_clause.strip(), published_by=actor)
    record_event(AuditAction.TERMS_PUBLISHED, actor=actor, organization=organization, obj=terms,
                 details={"version": version})
    return terms


@transaction.atomic
def accept_terms(*, actor: User, terms: ParticipationTerms) -> TermsAcceptance:
    """Record that `actor` accepts this exact version; accepting it again changes nothing."""
    if not actor.is_authenticated:
        raise NotAllowed(_("Sign in to accept participation terms."))
    acceptance, created = TermsAcceptance.objects.get_or_create(terms=terms, user=actor)
    if created:
        record_event(AuditAction.TERMS_ACCEPTED, actor=actor, organization=terms.organization, obj=acceptance,
                     details={"version": terms.version, "user": actor.email})
    return acceptance


# Submitting.

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


def check_terms(organization: Organization, submitter, acceptance: TermsAcceptance | None) -> list[FieldProblem]:
    """The submitter must have accepted the organization's current terms version."""
    current = latest_terms(organization)
    if current is None:
        return [FieldProblem("terms", _("%(organization)s has not published participation terms yet; submissions "
                                        "open once it does") % {"organization": organization.name})]
    if acceptance is None or acceptance.user_id != submitter.pk or acceptance.terms.organization_id != organization.pk:
        return [FieldProblem("terms", _("accept %(organization)s's participation terms (version %(version)s) before "
                                        "submitting") % {
            "organization": organization.name, "version": current.version})]
    if acceptance.terms_id != current.pk:
        return [FieldProblem("terms", _("you accepted version %(accepted)s, which version %(current)s replaced; "
                                        "accept the current version") % {
            "accepted": acceptance.terms.version, "current": current.version})]
    return []


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
            _record_change(submission, submitter, "", State.SUBMITTED, "")
            if not declared_dependency_ids(submission):
                # Nothing for a reviewer to sign off: the class audit is the whole manifest audit.
                _record_change(submission, submitter, State.SUBMITTED, State.MANIFEST_AUDITED,
                               f"Derived class {derived}" + (" — open leaderboard only (A2)" if derived == "A2"
                                                             else ""))
                submission.state = State.MANIFEST_AUDITED
                submission.save(update_fields=["state"])
    except BaseException:
        submission.package.storage.delete(submission.package.name)
        raise
    return submission


def _record_change(submission: MethodSubmission, actor, from_state: str, to_state: str, note: str,
                   **details) -> SubmissionEvent:
    event = SubmissionEvent.objects.create(submission=submission, from_state=from_state, to_state=to_state,
                                           actor=actor, note=note)
    record_event(AuditAction.SUBMISSION_STATE_CHANGED,
                 actor=actor, organization=submission.organization, obj=submission,
                 details={"submission": str(submission.public_id), "method_id": submission.method_id,
                          "from": from_state, "to": to_state, **({"note": note} if note else {}), **details})
    return event


# The workflow.

def refuse(submission: MethodSubmission, to_state: str, reason: str = "") -> TransitionRefused:
    allowed = ", ".join(state_label(state) for state in TRANSITIONS.get(submission.state, ())) or _(
        "none (final state)")
    values = {"state": state_label(submission.state), "to_state": state_label(to_state), "reason": reason,
              "allowed": allowed}
    if reason:
        message = _('A submission in state "%(state)s" cannot move to "%(to_state)s". %(reason)s Allowed next: '
                    '%(allowed)s.') % values
    else:
        message = _('A submission in state "%(state)s" cannot move to "%(to_state)s". Allowed next: '
                    '%(allowed)s.') % values
    return TransitionRefused(message, "to_state")


def latest_campaign(run_card: RunCard):
    """The card's most recently opened review campaign, whose decision the submission mirrors."""
    return run_card.campaigns.order_by("-opened_at", "-pk").first()


def _check_run_card(submission: MethodSubmission, run_card: RunCard | None) -> None:
    if run_card is None:
        raise SubmissionError(_("Choose the gold_standard run card the sandbox produced."), "run_card")
    if run_card.status != RunCard.Status.READY:
        raise SubmissionError(_("That run card is not verified yet (or failed verification)."), "run_card")
    if run_card.segment != "gold_standard":
        raise SubmissionError(_("That run card scores the %(segment)s segment; a submission is evaluated on "
                                "gold_standard.") % {"segment": run_card.segment}, "run_card")
    if run_card.dataset_version.dataset.organization_id != submission.organization_id:
        raise SubmissionError(_("That run card scores a dataset %(organization)s does not steward.") % {
            "organization": submission.organization.name}, "run_card")
    if run_card.method is not None and run_card.method.method_id != submission.method_id:
        raise SubmissionError(_('That run card is of method "%(card_method)s", not "%(method)s".') % {
            "card_method": run_card.method.method_id, "method": submission.method_id}, "run_card")
    if MethodSubmission.objects.filter(run_card=run_card).exclude(pk=submission.pk).exists():
        raise SubmissionError(_("That run card is already attached to another submission."), "run_card")
    if submission.derived_class == "A1" and not hasattr(run_card, "a1_run_approval"):
        raise SubmissionError(_("That run card scores secret entries without an A1 run approval: a class A1 method's "
                                "run on secret sources needs its own approval, given before the run."), "run_card")


def _check_condition(submission: MethodSubmission, to_state: str, run_card: RunCard | None, note: str) -> None:
    """The condition each move needs; raises TransitionRefused (or SubmissionError for a bad field)."""
    if to_state == State.MANIFEST_AUDITED:
        missing = missing_sign_offs(submission)
        if missing:
            raise refuse(submission, to_state, _("Every declared dependency needs a reviewer's sign-off (licence and "
                                                 "source checked) on the current manifest; missing: %(missing)s.")
                         % {"missing": ", ".join(missing)})
    elif to_state == State.AWAITING_SANDBOX:
        refuse_without_rights_permissions(submission, to_state)
    elif to_state == State.EVALUATED:
        _check_run_card(submission, run_card)
    elif to_state == State.IN_REVIEW:
        if not Campaign.objects.filter(run_card=submission.run_card).exists():
            raise refuse(submission, to_state, _("Open a review campaign on its run card first."))
    elif to_state == State.APPROVED or (to_state == State.REJECTED and submission.state in REVIEWED_STATES):
        assert submission.run_card is not None  # in review and approved keep their run card (a DB constraint)
        campaign = latest_campaign(submission.run_card)
        decision = decision_in_force(campaign) if campaign is not None else None
        in_force = decision.outcome if decision is not None else None
        wanted = (Decision.Outcome.APPROVE,) if to_state == State.APPROVED else (Decision.Outcome.REJECT,
                                                                                 Decision.Outcome.REVOKE)
        if in_force not in wanted:
            reason = _("It mirrors the community review, and the decision in force is “%(outcome)s”.") % {
                "outcome": decision.get_outcome_display()} if decision else _(
                "It mirrors the community review, and the review campaign has no decision yet.")
            raise refuse(submission, to_state, reason)
    elif to_state == State.REJECTED and not note.strip():
        raise SubmissionError(_("Write why the submission is rejected; the submitter reads it."), "note")


def check_approval(submission: MethodSubmission) -> None:
    """Refuse an approval that could not happen now: the state must allow it and the review decision in force must
    approve (what a decision to approve checks when it is proposed, and again when it executes)."""
    if State.APPROVED not in TRANSITIONS.get(submission.state, ()):
        raise refuse(submission, State.APPROVED)
    _check_condition(submission, State.APPROVED, None, "")


def refuse_untransferable(submission: MethodSubmission) -> None:
    """Only an approved submission whose run card is eligible (SPEC §5) is transferred."""
    if submission.state != State.APPROVED:
        raise refuse(submission, State.OWNERSHIP_TRANSFERRED, _("Only an approved submission is transferred."))
    refuse_without_rights_permissions(submission, State.OWNERSHIP_TRANSFERRED)
    assert submission.run_card is not None  # an approved submission keeps its run card (a DB constraint)
    if not transfer_eligible(submission.run_card):
        raise refuse(submission, State.OWNERSHIP_TRANSFERRED,
                     _("Its run card is not eligible: a transfer needs a gold_standard card with an approval in force "
                       "at the review gate, and composite ≥ %(threshold)s for a legacy-composite card.")
                     % {"threshold": number_format(DEPLOYABLE_THRESHOLD, 2)})


def check_transfer(submission: MethodSubmission, developer_keeps: list[str], governance_gets: list[str]) -> None:
    """Refuse a transfer that could not be recorded now (proposal and execution of a transfer decision)."""
    refuse_untransferable(submission)
    if not [item for item in developer_keeps if item.strip()]:
        raise SubmissionError(_("List what the developer keeps (SPEC §5: attribution, publication, other pairs)."),
                              "developer_keeps")
    if not [item for item in governance_gets if item.strip()]:
        raise SubmissionError(_("List what the governance organization gets (SPEC §5)."), "governance_gets")


@transaction.atomic
def advance_submission(*, actor: User, submission: MethodSubmission, to_state: str, run_card: RunCard | None = None,
                       note: str = "") -> MethodSubmission:
    """Move a submission to `to_state` (governance staff of its organization only), checking the
    workflow table and the move's condition; the change is recorded and audited."""
    submission = (MethodSubmission.objects.select_for_update(of=("self",)).select_related("organization", "run_card")
                  .get(pk=submission.pk))
    require(actor, "organization.govern", submission.organization, error=NotAllowed)
    if to_state == State.OWNERSHIP_TRANSFERRED:
        raise refuse(submission, to_state,
                     _("Record the ownership transfer instead (it lists what each side keeps)."))
    if to_state not in TRANSITIONS.get(submission.state, ()):
        raise refuse(submission, to_state)
    _check_condition(submission, to_state, run_card, note)
    details = {}
    from_state = submission.state
    submission.state = to_state
    submission.updated_at = timezone.now()
    fields = ["state", "updated_at"]
    if to_state == State.EVALUATED:
        assert run_card is not None  # _check_run_card refused a missing one
        submission.run_card = run_card
        fields.append("run_card")
        details = {"run_id": str(run_card.run_id)}
    try:
        submission.save(update_fields=fields)
    except IntegrityError as error:  # a concurrent attach of the same run card
        raise SubmissionError(_("That run card is already attached to another submission."),
                              "run_card") from error
    _record_change(submission, actor, from_state, to_state, note.strip(), **details)
    return submission


@transaction.atomic
def record_ownership_transfer(*, actor: User, submission: MethodSubmission, developer_keeps: list[str] | None = None,
                              governance_gets: list[str] | None = None, notes: str = "") -> OwnershipTransfer:
    """Record the transfer of an approved, eligible method (SPEC §5) against the terms version its
    developer accepted, and move the submission to ownership_transferred."""
    submission = (MethodSubmission.objects.select_for_update(of=("self",))
                  .select_related("organization", "run_card", "terms_acceptance__terms").get(pk=submission.pk))
    require(actor, "organization.govern", submission.organization, error=NotAllowed)
    refuse_untransferable(submission)
    assert submission.run_card is not None  # an approved submission keeps its run card (a DB constraint)
    keeps = [item.strip() for item in (DEVELOPER_KEEPS if developer_keeps is None else developer_keeps) if item.strip()]
    gets = [item.strip() for item in (GOVERNANCE_GETS if governance_gets is None else governance_gets) if item.strip()]
    if not keeps:
        raise SubmissionError(_("List what the developer keeps (SPEC §5: attribution, publication, other pairs)."),
                              "developer_keeps")
    if not gets:
        raise SubmissionError(_("List what the governance organization gets (SPEC §5)."), "governance_gets")
    terms = submission.terms_acceptance.terms
    transfer = OwnershipTransfer.objects.create(
        submission=submission, method_id=submission.method_id, method_name=submission.method_name,
        organization=submission.organization, terms=terms, run_card=submission.run_card,
        developer_keeps=keeps, governance_gets=gets, notes=notes.strip(), recorded_by=actor,
    )
    from_state = submission.state
    submission.state = State.OWNERSHIP_TRANSFERRED
    submission.updated_at = timezone.now()
    submission.save(update_fields=["state", "updated_at"])
    _record_change(submission, actor, from_state, State.OWNERSHIP_TRANSFERRED, "", transfer=str(transfer.public_id))
    record_event(AuditAction.OWNERSHIP_TRANSFERRED,
                 actor=actor, organization=submission.organization, obj=transfer, details={
        "submission": str(submission.public_id), "method_id": submission.method_id,
        "terms_version": terms.version, "run_id": str(submission.run_card.run_id),
        "developer_keeps": keeps, "governance_gets": gets,
    })
    return transfer


# Holding and checking the method (benchmark specification §8.2, §8.6).

def manifest_digest(manifest: Any) -> str:
    """SHA-256 of the manifest in canonical JSON (sorted keys, no spaces, UTF-8): what a sign-off was given on."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


def _dependencies(submission: MethodSubmission) -> list[dict]:
    dependencies = submission.manifest.get("dependencies") if isinstance(submission.manifest, dict) else None
    return [dependency for dependency in dependencies or [] if isinstance(dependency, dict)]


def declared_dependency_ids(submission: MethodSubmission) -> list[str]:
    """The ids of the dependencies method.json declares, in its order."""
    return [str(dependency.get("id")) for dependency in _dependencies(submission)]


def a2_dependency_ids(submission: MethodSubmission) -> list[str]:
    """The non-substitutable external dependencies (class A2): each needs its rights holder's permission."""
    return [str(dependency.get("id")) for dependency in _dependencies(submission)
            if dependency_class_of(dependency) == "A2"]


def current_sign_offs(submission: MethodSubmission) -> dict[str, DependencySignOff]:
    """The sign-offs given on the manifest as it is now, by dependency id (earlier ones are stale)."""
    return {sign_off.dependency_id: sign_off for sign_off in DependencySignOff.objects.filter(
        submission=submission, manifest_sha256=manifest_digest(submission.manifest)).select_related("reviewer")}


def missing_sign_offs(submission: MethodSubmission) -> list[str]:
    signed = current_sign_offs(submission)
    return [dependency_id for dependency_id in declared_dependency_ids(submission) if dependency_id not in signed]


def missing_rights_permissions(submission: MethodSubmission) -> list[str]:
    recorded = set(submission.rights_permissions.values_list("dependency_id", flat=True))
    return [dependency_id for dependency_id in a2_dependency_ids(submission) if dependency_id not in recorded]


def refuse_without_rights_permissions(submission: MethodSubmission, to_state: str) -> None:
    """A2 dependencies enter the sandbox, and the method is transferred, only with their rights holders' recorded
    permission (benchmark specification §8.6)."""
    missing = missing_rights_permissions(submission)
    if missing:
        raise refuse(submission, to_state, _("A non-substitutable external dependency (class A2) needs its rights "
                                             "holder's permission, recorded with its document, before the method "
                                             "enters the sandbox or is transferred; missing for: %(missing)s.")
                     % {"missing": ", ".join(missing)})


def submission_conflicts(submission: MethodSubmission) -> dict[int, str]:
    """Its submitter, and everyone in conflict with its run card or method (declared, or its submitter): they neither
    sign its decisions nor sign off its dependencies."""
    reasons = conflicts_of(submission.run_card) if submission.run_card is not None else {}
    reasons[submission.submitter_id] = _("submitted the method")
    return reasons


def _require_proven_staff(actor: User, submission: MethodSubmission) -> None:
    """Governance staff of the submission's organization, in a session that proved its second factor (the rule
    decisions are signed under)."""
    require(actor, "organization.govern", submission.organization, error=NotAllowed)
    if not mfa_enabled(actor):
        raise NotAllowed(_("This needs a session that proved its second factor: sign in again with your "
                           "authenticator code (My account → Two-factor authentication)."))


def _written(value: str, field_name: str, limit: int = COMMENT_MAX_LENGTH) -> str:
    value = (value or "").strip()
    if len(value) > limit:
        raise SubmissionError(_("%(count)s characters; at most %(limit)s are kept.") % {
            "count": len(value), "limit": limit}, field_name)
    if "\x00" in value:
        raise SubmissionError(_("It holds a NUL character, which cannot be stored."), field_name)
    return value


@transaction.atomic
def record_package_download(*, actor: User, submission: MethodSubmission) -> None:
    """Governance staff take the package in hand: each download is an audit event, before a byte is served."""
    _require_proven_staff(actor, submission)
    record_event(AuditAction.PACKAGE_DOWNLOADED, actor=actor, organization=submission.organization, obj=submission,
                 details={"submission": str(submission.public_id), "method_id": submission.method_id,
                          "package": submission.package_name, "package_sha256": submission.package_sha256})


@transaction.atomic
def sign_off_dependency(*, actor: User, submission: MethodSubmission, dependency_id: str, license_checked: bool,
                        source_checked: bool, comment: str = "") -> DependencySignOff:
    """Record that a reviewer checked one declared dependency's licence and source, on the manifest as it is now.
    Before the manifest audit only; the submitter and members in conflict do not sign off."""
    submission = MethodSubmission.objects.select_for_update(of=("self",)).select_related(
        "organization", "run_card").get(pk=submission.pk)
    _require_proven_staff(actor, submission)
    conflicts = submission_conflicts(submission)
    if actor.pk in conflicts:
        raise NotAllowed(_("You may not sign off its dependencies: you %(reason)s.") % {"reason": conflicts[actor.pk]})
    if submission.state != State.SUBMITTED:
        raise TransitionRefused(_("Its manifest is already audited (state “%(state)s”): sign-offs are given before "
                                  "the audit.") % {"state": state_label(submission.state)}, "dependency_id")
    declared = declared_dependency_ids(submission)
    dependency_id = (dependency_id or "").strip()
    if dependency_id not in declared:
        raise SubmissionError(_("No dependency “%(dependency)s” in the manifest; expected one of: %(declared)s.") % {
            "dependency": dependency_id[:200], "declared": ", ".join(declared) or "—"}, "dependency_id")
    if license_checked is not True:
        raise SubmissionError(_("Check the dependency's licence before signing it off."), "license_checked")
    if source_checked is not True:
        raise SubmissionError(_("Check where the dependency comes from (its source and pin) before signing it off."),
                              "source_checked")
    comment = _written(comment, "comment")
    digest = manifest_digest(submission.manifest)
    existing = DependencySignOff.objects.filter(submission=submission, dependency_id=dependency_id,
                                                manifest_sha256=digest).select_related("reviewer").first()
    if existing is not None:
        raise SubmissionError(_("%(dependency)s is already signed off by %(reviewer)s on %(date)s.") % {
            "dependency": dependency_id, "reviewer": existing.reviewer.email,
            "date": f"{existing.signed_at:%Y-%m-%d}"}, "dependency_id", kind=ErrorKind.CONFLICT)
    sign_off = DependencySignOff.objects.create(
        submission=submission, dependency_id=dependency_id, manifest_sha256=digest, reviewer=actor,
        license_checked=True, source_checked=True, comment=comment)
    record_event(AuditAction.DEPENDENCY_SIGNED_OFF, actor=actor, organization=submission.organization, obj=submission,
                 details={"submission": str(submission.public_id), "method_id": submission.method_id,
                          "dependency": dependency_id, "manifest_sha256": digest,
                          **({"comment": comment} if comment else {})})
    return sign_off


@transaction.atomic
def record_rights_permission(*, actor: User, submission: MethodSubmission, dependency_id: str, rights_holder: str,
                             document: UploadedFile | None = None, document_reference: str = "",
                             notes: str = "") -> RightsHolderPermission:
    """Record the rights holder's permission for one A2 dependency, with its document (an upload, a reference, or
    both). Recorded once per dependency; nothing is stored on a refusal."""
    submission = MethodSubmission.objects.select_for_update(of=("self",)).select_related("organization").get(
        pk=submission.pk)
    _require_proven_staff(actor, submission)
    a2 = a2_dependency_ids(submission)
    dependency_id = (dependency_id or "").strip()
    if dependency_id not in a2:
        raise SubmissionError(_("“%(dependency)s” is not a non-substitutable external dependency (class A2) of this "
                                "method; expected one of: %(a2)s.") % {
            "dependency": dependency_id[:200], "a2": ", ".join(a2) or "—"}, "dependency_id")
    if submission.rights_permissions.filter(dependency_id=dependency_id).exists():
        raise SubmissionError(_("The permission for %(dependency)s is already recorded.") % {
            "dependency": dependency_id}, "dependency_id", kind=ErrorKind.CONFLICT)
    rights_holder = _written(rights_holder, "rights_holder", 300)
    if not rights_holder:
        raise SubmissionError(_("Name the rights holder who gave the permission."), "rights_holder")
    document_reference = _written(document_reference, "document_reference", 500)
    notes = _written(notes, "notes")
    if document is not None:
        problem = document_problem(document)
        if problem:
            raise SubmissionError(problem, "document")
    elif not document_reference:
        raise SubmissionError(_("Upload the permission's document or give a reference to it (URL or archive)."),
                              "document_reference")
    permission = RightsHolderPermission(submission=submission, dependency_id=dependency_id,
                                        rights_holder=rights_holder, document_reference=document_reference,
                                        notes=notes, recorded_by=actor)
    if document is not None:
        assert document.name is not None  # document_problem refuses a document without a name
        permission.document_name = document.name.rsplit("/", 1)[-1][:255]
        permission.document.save(document.name, document, save=False)
    try:
        permission.save()
    except BaseException:
        if permission.document:
            permission.document.storage.delete(permission.document.name)
        raise
    record_event(AuditAction.RIGHTS_PERMISSION_RECORDED, actor=actor, organization=submission.organization,
                 obj=submission, details={"submission": str(submission.public_id), "method_id": submission.method_id,
                                          "dependency": dependency_id, "rights_holder": rights_holder,
                                          "document": permission.document_name,
                                          "document_reference": document_reference})
    return permission


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
                _record_change(locked, actor, State.SUBMITTED, State.MANIFEST_AUDITED, f"Derived class {derived}")
                locked.state = State.MANIFEST_AUDITED
                locked.save(update_fields=["state"])
    except BaseException:
        storage.delete(new_name)
        raise
    transaction.on_commit(lambda: storage.delete(earlier_name))
    return locked
