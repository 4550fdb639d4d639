"""Holding and checking the method (benchmark specification §8.2, §8.6): the dependencies its manifest declares,
reviewers' sign-offs on the manifest as it is, A2 rights holders' permissions, and downloads of the package by
governance staff with the second factor proven."""


from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from common.errors import ErrorKind
from corpus.services import document_problem
from leaderboard.methods import dependency_class_of
from leaderboard.selectors import conflicts_of
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require
from organizations.selectors import mfa_enabled

from ..models import DependencySignOff, MethodSubmission, RightsHolderPermission
from ..selectors import current_sign_offs, manifest_digest
from .errors import NotAllowed, SubmissionError, TransitionRefused
from .states import State, refuse, state_label

# A sign-off's comment and a permission's notes are kept whole up to this length.
COMMENT_MAX_LENGTH = 4000


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
