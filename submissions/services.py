"""Writes for participation terms, method submissions and ownership transfer (SPEC §5, §6).

A submission moves through the states of `TRANSITIONS` only; every move is checked here, recorded in
the submission's history (`SubmissionEvent`) and appended to the audit log as
`submission.state_changed`. The moves that depend on the review app mirror it rather than decide:
approval and rejection after community review follow the decision in force, and the transfer follows
`review.selectors.decisions.transfer_eligible`. See docs/submissions.md.
"""

import re
from dataclasses import dataclass, field
from typing import IO, Any

from django.conf import settings
from django.core.files import File
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from accounts.models import User
from common import errors
from common.errors import ApplicationError, ErrorKind
from common.problems import FieldProblem
from leaderboard.methods import (
    check_card_against_manifest,
    derive_method_class,
    validate_manifest,
    validate_method_card,
)
from leaderboard.models import RunCard
from leaderboard.verification import DEPLOYABLE_THRESHOLD
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require
from review.models import Campaign, Decision
from review.selectors import decision_in_force, transfer_eligible

from .models import (
    DEVELOPER_KEEPS,
    GOVERNANCE_GETS,
    MethodSubmission,
    OwnershipTransfer,
    ParticipationTerms,
    SubmissionEvent,
    SubmissionState,
    TermsAcceptance,
)
from .packages import PackageLimits, PackageReport, inspect_package, parse_cost_report

State = SubmissionState
VERSION_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$")

# Who may move a submission where. The automatic audit (submitted → manifest_audited) happens inside
# `submit_method`; every other move is governance staff's. Rejection is possible at every step before
# approval: before community review with a written reason (governance declines to evaluate), from
# review on only when the decision in force rejects (or revokes the approval). Rejected and
# ownership_transferred are terminal: a corrected method is a new submission.
TRANSITIONS: dict[str, tuple[str, ...]] = {
    State.SUBMITTED: (State.MANIFEST_AUDITED,),
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
            _record_change(submission, submitter, State.SUBMITTED, State.MANIFEST_AUDITED,
                           f"Derived class {derived}" + (" — open leaderboard only (A2)" if derived == "A2" else ""))
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


def _check_condition(submission: MethodSubmission, to_state: str, run_card: RunCard | None, note: str) -> None:
    """The condition each move needs; raises TransitionRefused (or SubmissionError for a bad field)."""
    if to_state == State.EVALUATED:
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
    if to_state == State.MANIFEST_AUDITED:
        raise refuse(submission, to_state, _("The manifest audit happens when the package is submitted."))
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
