"""The submissions' kinds of decision (docs/governance.md): approving a method submission, transferring its
ownership and approving one run of a class A1 method on secret sources are taken by k of the organization's
governance staff. Registered with governance from `SubmissionsConfig.ready`; each executes through a service (this
app's, or the leaderboard's for the A1 run approval, which run-card intake consumes)."""

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop

from accounts.models import User
from common.sentences import Sentence
from corpus.models import DatasetVersion
from governance import kinds
from governance import services as governance
from leaderboard import services as leaderboard
from leaderboard.methods import dependency_class_of
from organizations.models import Organization

from . import services
from .models import DEVELOPER_KEEPS, GOVERNANCE_GETS, MethodSubmission
from .selectors import A1_RUN

APPROVE = "submissions.approve"
TRANSFER = "submissions.transfer"


def _submission(organization: Organization, payload: dict) -> MethodSubmission:
    found = (MethodSubmission.objects.select_related("organization", "run_card", "terms_acceptance__terms")
             .filter(organization=organization, public_id=payload.get("submission")).first())
    if found is None:
        raise services.SubmissionError(_("No such submission to %(organization)s.") % {
            "organization": organization.name}, "submission")
    return found


def submission_conflicts(organization: Organization, payload: dict) -> dict[int, str]:
    """Its submitter, and everyone in conflict with its run card or method (declared, or its submitter)."""
    submission = MethodSubmission.objects.select_related("run_card").filter(
        organization=organization, public_id=payload.get("submission")).first()
    if submission is None:
        return {}
    return services.submission_conflicts(submission)


def _url(payload: dict) -> str:
    return reverse("submissions:submission", args=[payload["submission"]])


def _check_approval(organization: Organization, payload: dict) -> None:
    services.check_approval(_submission(organization, payload))


def _execute_approval(decision, actor: User) -> Sentence:
    submission = _submission(decision.organization, decision.payload)
    services.advance_submission(actor=actor, submission=submission, to_state=services.State.APPROVED,
                                note=decision.payload.get("note", ""))
    return Sentence(gettext_noop("%(method)s is approved."), {"method": submission.method_name})


def _lines(value) -> list[str]:
    if isinstance(value, str):
        value = value.splitlines()
    return [str(item).strip() for item in value or [] if str(item).strip()]


def _check_transfer(organization: Organization, payload: dict) -> None:
    services.check_transfer(_submission(organization, payload), _lines(payload.get("developer_keeps")),
                            _lines(payload.get("governance_gets")))


def _execute_transfer(decision, actor: User) -> Sentence:
    submission = _submission(decision.organization, decision.payload)
    transfer = services.record_ownership_transfer(
        actor=actor, submission=submission, developer_keeps=_lines(decision.payload.get("developer_keeps")),
        governance_gets=_lines(decision.payload.get("governance_gets")), notes=decision.payload.get("notes", ""))
    return Sentence(gettext_noop("The transfer of %(method)s is recorded (%(transfer)s)."), {
        "method": transfer.method_name, "transfer": str(transfer.public_id)})


APPROVE_KIND = kinds.DecisionKind(
    name=APPROVE, label=gettext_lazy("Approve a method submission"),
    execute=_execute_approval, check=_check_approval, conflicts=submission_conflicts, url=_url,
    editable=("note",), field_labels={"note": gettext_lazy("Note for the submitter")},
    checks=(("review", gettext_lazy("I read the community review and its decision in force")),
            ("card", gettext_lazy("I read the run card and its scores")),
            ("manifest", gettext_lazy("I read the manifest audit and the dependencies"))),
    min_open_hours=24, expires_after_days=14)

TRANSFER_KIND = kinds.DecisionKind(
    name=TRANSFER, label=gettext_lazy("Record a method's ownership transfer"),
    execute=_execute_transfer, check=_check_transfer, conflicts=submission_conflicts, url=_url,
    editable=("developer_keeps", "governance_gets", "notes"),
    field_labels={"developer_keeps": gettext_lazy("What the developer keeps"),
                  "governance_gets": gettext_lazy("What the governance organization gets"),
                  "notes": gettext_lazy("Notes")},
    checks=(("terms", gettext_lazy("I read the terms version the developer accepted")),
            ("eligible", gettext_lazy("I checked the method is eligible (review approval in force)")),
            ("rights", gettext_lazy("I checked what each side keeps"))),
    min_open_hours=72, expires_after_days=30)


def _a1_version(organization: Organization, payload: dict) -> DatasetVersion | None:
    return DatasetVersion.objects.select_related("dataset").filter(
        pk=payload.get("dataset_version"), dataset__organization=organization).first()


# Where a run of a class A1 method may be approved: after the manifest audit, while the method is under evaluation or
# held by the community.
A1_RUN_STATES = (services.State.MANIFEST_AUDITED, services.State.AWAITING_SANDBOX, services.State.EVALUATED,
                 services.State.IN_REVIEW, services.State.APPROVED, services.State.OWNERSHIP_TRANSFERRED)


def _check_a1_run(organization: Organization, payload: dict) -> None:
    submission = _submission(organization, payload)
    if submission.derived_class != "A1":
        raise services.SubmissionError(_("%(method)s is class %(class)s: only runs of class A1 methods are approved "
                                         "one by one.") % {"method": submission.method_name,
                                                           "class": submission.derived_class}, "submission")
    if submission.state not in A1_RUN_STATES:
        raise services.TransitionRefused(_("A run is approved once the manifest is audited, and never for a rejected "
                                           "submission (state “%(state)s”).") % {
            "state": services.state_label(submission.state)}, "submission")
    leaderboard.check_a1_run(organization=organization, dataset_version=_a1_version(organization, payload),
                             segments=payload.get("segments"), method_id=submission.method_id)


def _execute_a1_run(decision, actor: User) -> Sentence:
    _check_a1_run(decision.organization, decision.payload)
    version = _a1_version(decision.organization, decision.payload)
    assert version is not None  # _check_a1_run refused a missing one
    approval = leaderboard.approve_a1_run(
        actor=actor, decision=decision, dataset_version=version, segments=decision.payload["segments"],
        method_id=decision.payload["method_id"], submission=decision.payload["submission"],
        note=decision.payload.get("note", ""))
    return Sentence(gettext_noop("One A1 run of %(method)s on %(segments)s of %(dataset)s %(version)s is approved."), {
        "method": approval.method_id, "segments": ", ".join(approval.segments),
        "dataset": version.dataset.identifier, "version": version.version})


A1_RUN_KIND = kinds.DecisionKind(
    name=A1_RUN, label=gettext_lazy("Approve one A1 run on secret sources"),
    execute=_execute_a1_run, check=_check_a1_run, conflicts=submission_conflicts, url=_url,
    editable=("note",), field_labels={"note": gettext_lazy("Note")},
    checks=(("consent", gettext_lazy("I read the community's consent to A1 gateway disclosure")),
            ("disclosure", gettext_lazy("I know which secret sources this run discloses, and to which model "
                                        "provider")),
            ("manifest", gettext_lazy("I read the manifest's gateway dependencies and their models"))),
    min_open_hours=24, expires_after_days=14)


def register() -> None:
    kinds.register(APPROVE_KIND)
    kinds.register(TRANSFER_KIND)
    kinds.register(A1_RUN_KIND)


def propose_approval(*, actor: User, submission: MethodSubmission, note: str = ""):
    """Approve a submission in review: at once where k = 1 (as before), otherwise a decision others sign."""
    payload = {"submission": str(submission.public_id), "method_id": submission.method_id,
               "method_name": submission.method_name, "package_sha256": submission.package_sha256,
               "derived_class": submission.derived_class,
               "run_id": str(submission.run_card.run_id) if submission.run_card is not None else None,
               "note": note.strip()}
    return governance.propose(actor=actor, organization=submission.organization, kind=APPROVE,
                              subject=f"submission:{submission.public_id}",
                              summary=Sentence(gettext_noop("Approve %(method)s"), {"method": submission.method_name}),
                              payload=payload)


def propose_transfer(*, actor: User, submission: MethodSubmission, developer_keeps: list[str] | None = None,
                     governance_gets: list[str] | None = None, notes: str = ""):
    """Record an ownership transfer: at once where k = 1 (as before), otherwise a decision others sign."""
    payload = {"submission": str(submission.public_id), "method_id": submission.method_id,
               "method_name": submission.method_name,
               "terms_version": submission.terms_acceptance.terms.version,
               "run_id": str(submission.run_card.run_id) if submission.run_card is not None else None,
               "developer_keeps": _lines(DEVELOPER_KEEPS if developer_keeps is None else developer_keeps),
               "governance_gets": _lines(GOVERNANCE_GETS if governance_gets is None else governance_gets),
               "notes": notes.strip()}
    return governance.propose(actor=actor, organization=submission.organization, kind=TRANSFER,
                              subject=f"submission:{submission.public_id}",
                              summary=Sentence(gettext_noop("Transfer the ownership of %(method)s"),
                                               {"method": submission.method_name}),
                              payload=payload)


def propose_a1_run(*, actor: User, submission: MethodSubmission, dataset_version: DatasetVersion | None,
                   segments: list[str], note: str = ""):
    """Approve one run of a class A1 method on secret segments: at once where k = 1, otherwise a decision others
    sign. The payload names what the run discloses, and to which gateway models."""
    gateway = [{"id": str(dependency.get("id")), "source": str(dependency.get("source") or "")}
               for dependency in submission.manifest.get("dependencies", [])
               if isinstance(dependency, dict) and dependency_class_of(dependency) == "A1"]
    payload = {"submission": str(submission.public_id), "method_id": submission.method_id,
               "method_name": submission.method_name, "package_sha256": submission.package_sha256,
               "dataset_version": dataset_version.pk if dataset_version is not None else None,
               "dataset": dataset_version.dataset.identifier if dataset_version is not None else None,
               "version": dataset_version.version if dataset_version is not None else None,
               "segments": sorted(set(segments)), "gateway": gateway, "note": note.strip()}
    return governance.propose(actor=actor, organization=submission.organization, kind=A1_RUN,
                              subject=f"a1_run:{submission.public_id}:{payload['dataset_version']}",
                              summary=Sentence(gettext_noop("Approve one A1 run of %(method)s on secret sources"),
                                               {"method": submission.method_name}), payload=payload)
