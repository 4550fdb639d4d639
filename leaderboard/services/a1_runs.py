"""A1 runs on secret sources (benchmark specification §8.6): approved one by one, each approval used by one card."""

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from common.errors import ErrorKind, NotAllowed
from common.problems import FieldProblem
from corpus.models import SECRET_SEGMENTS, ConsentUse, DatasetVersion, Entry
from corpus.selectors import (
    has_consent,
)
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require

from ..models import (
    A1RunApproval,
    Method,
    RunCard,
)
from .errors import LeaderboardError, RunCardRejected
from .pinning import pins_public_download

# A1 runs on secret sources (benchmark specification §8.6; docs/corpus.md, "A1 runs on secret sources").

def check_a1_run(*, organization: Organization, dataset_version: DatasetVersion | None, segments: Any,
                 method_id: str) -> list[str]:
    """Refuse an approval that could not be given now (its proposal, and again its execution): a version the
    organization stewards, secret segments it holds entries in, and the community's active consent to A1 gateway
    disclosure. Returns the segments, sorted."""
    if dataset_version is None or dataset_version.dataset.organization_id != organization.pk:
        raise LeaderboardError(gettext("Choose a dataset version %(organization)s stewards.") % {
            "organization": organization.name}, "dataset_version")
    if not isinstance(segments, list) or not segments or any(segment not in SECRET_SEGMENTS for segment in segments):
        raise LeaderboardError(gettext("Choose the secret segments the run may disclose: gold_standard, held_out."),
                               "segments")
    segments = sorted(set(segments))
    held = set(Entry.objects.filter(version=dataset_version, segment__in=segments)
               .values_list("segment", flat=True).distinct())
    empty = [segment for segment in segments if segment not in held]
    if empty:
        raise LeaderboardError(gettext("%(dataset)s %(version)s holds no %(segment)s entries.") % {
            "dataset": dataset_version.dataset.identifier, "version": dataset_version.version,
            "segment": empty[0]}, "segments")
    if not (method_id or "").strip():
        raise LeaderboardError(gettext("Name the method whose run is approved."), "method_id")
    registered = Method.objects.filter(method_id=method_id).values_list("dependency_class", flat=True).first()
    if registered and registered != "A1":
        raise LeaderboardError(gettext("%(method)s is registered as class %(class)s; only class A1 runs are "
                                       "approved one by one.") % {"method": method_id, "class": registered},
                               "method_id")
    if not has_consent(dataset_version.dataset, ConsentUse.GATEWAY_DISCLOSURE):
        raise LeaderboardError(gettext("%(dataset)s's community has no active consent to A1 gateway disclosure: "
                                       "record it on the dataset's consent page before any A1 run on its secret "
                                       "sources is approved.") % {"dataset": dataset_version.dataset.identifier},
                               "dataset_version",
                               kind=ErrorKind.CONFLICT)
    return segments


@transaction.atomic
def approve_a1_run(*, actor: User, decision, dataset_version: DatasetVersion, segments: list[str], method_id: str,
                   submission: str | None = None, note: str = "") -> A1RunApproval:
    """Execute a decision approving one A1 run (`submissions.a1_run`): checked again, stored, audited."""
    require(actor, "dataset.govern", dataset_version.dataset, error=NotAllowed)
    segments = check_a1_run(organization=decision.organization, dataset_version=dataset_version, segments=segments,
                            method_id=method_id)
    approval = A1RunApproval.objects.create(dataset_version=dataset_version, segments=segments, method_id=method_id,
                                            submission=submission, decision=decision, note=(note or "").strip())
    record_event(AuditAction.A1_RUN_APPROVED, actor=actor, organization=decision.organization, obj=approval,
                 details={"dataset": dataset_version.dataset.identifier, "version": dataset_version.version,
                          "segments": segments, "method_id": method_id, "decision": str(decision.public_id),
                          **({"submission": submission} if submission else {})})
    return approval


def card_method_id(card: dict) -> str:
    """The method a card names: its method card's id, else its manifest's."""
    for member in ("method_card", "method"):
        value = card.get(member)
        if isinstance(value, dict) and isinstance(value.get("method_id"), str) and value["method_id"].strip():
            return value["method_id"].strip()
    return ""


def is_a1_card(card: dict, dependency_class: str | None) -> bool:
    """The card's method is class A1: derived from its embedded manifest, else the registered method's class."""
    method_id = card_method_id(card)
    if dependency_class is None and method_id:
        dependency_class = Method.objects.filter(method_id=method_id).values_list("dependency_class", flat=True).first()
    return dependency_class == "A1"


def refuse_a1_card_without_rows(card: dict, version: DatasetVersion, dependency_class: str | None) -> None:
    """A class A1 card published without its per-entry rows, against a version holding secret entries and not
    pinning its public download, may be a run on secret sources: it is accepted only with its rows, which show what
    it scored and take its A1 run approval (409)."""
    if (is_a1_card(card, dependency_class) and not pins_public_download(card, version)
            and Entry.objects.filter(version=version, segment__in=SECRET_SEGMENTS).exists()):
        raise RunCardRejected(ErrorKind.CONFLICT, [FieldProblem("results", (
            f"a class A1 run on {version.dataset.identifier} {version.version}, which holds secret entries, is "
            "published with its per-entry rows: they show which entries it scored, and a run on secret sources "
            "takes its own A1 run approval"))], detail="refused: an A1 card without its rows")


def a1_approval_for(card: dict, version: DatasetVersion, dependency_class: str | None,
                    segments: list[str]) -> A1RunApproval | None:
    """The unused approval a card of an A1 method on secret segments takes (locked), or None for any other card.
    Refuses (409) such a card without one, or once the community's consent to A1 gateway disclosure is gone: the
    run disclosed secret sources to a model provider, and its scores are not taken in."""
    secret = sorted(segment for segment in segments if segment in SECRET_SEGMENTS)
    method_id = card_method_id(card)
    if not secret or not is_a1_card(card, dependency_class):
        return None
    if not has_consent(version.dataset, ConsentUse.GATEWAY_DISCLOSURE):
        raise RunCardRejected(ErrorKind.CONFLICT, [FieldProblem("dataset.id", (
            f"{version.dataset.identifier!r}: its community has no active consent to A1 gateway disclosure; a class "
            "A1 run on its secret sources is not accepted"))], detail="refused: no consent to A1 gateway disclosure")
    for approval in (A1RunApproval.objects.select_for_update().filter(
            dataset_version=version, method_id=method_id, run_card__isnull=True).order_by("approved_at", "pk")):
        if set(secret) <= set(approval.segments):
            return approval
    raise RunCardRejected(ErrorKind.CONFLICT, [FieldProblem("method.dependency_class", (
        f"a class A1 run of {method_id or 'this method'} on the {', '.join(secret)} entries of "
        f"{version.dataset.identifier} {version.version} discloses their sources to a model provider: each such run "
        "needs its own approval by the steward's governance staff (an A1 run approval), and none is left unused for "
        "it"))], detail="refused: no A1 run approval")


def use_a1_approval(approval: A1RunApproval, run_card: RunCard, actor: User) -> None:
    """The accepted card takes its approval: one approval, one run."""
    approval.run_card = run_card
    approval.used_at = timezone.now()
    approval.save(update_fields=["run_card", "used_at"])
    record_event(AuditAction.A1_RUN_USED, actor=actor, organization=run_card.dataset_version.dataset.organization,
                 obj=approval, details={"run_id": str(run_card.run_id), "method_id": approval.method_id,
                                        "segments": approval.segments})
