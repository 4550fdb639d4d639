"""Reads with rules for terms, method submissions and ownership transfers.

Who sees a submission: its submitter, and the governance staff of the organization it was submitted
to; everybody else gets None (pages answer 404, so nobody learns that it exists). The submitter sees
the gold run card's aggregate scores only (`submission_scores`): never its per-entry results, and so
never a gold source, reference or output (SPEC §2 principle 3). The upstream harness's reads are in
submissions/harness/selectors.py.
"""

import hashlib
import json
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy

from corpus.models import SECRET_SEGMENTS, DatasetVersion
from governance.models import Decision, DecisionState
from leaderboard.methods import DEPENDENCY_CLASSES, dependency_class_of
from leaderboard.models import A1RunApproval, Method, RunCard
from leaderboard.selectors import bands_of, listed_cards
from leaderboard.verification import quality_tier
from organizations.models import Organization
from organizations.permissions import organization_manage
from organizations.selectors import governance_org_ids

from .models import (
    TRANSITIONS,
    DependencySignOff,
    MethodSubmission,
    OwnershipTransfer,
    ParticipationTerms,
    SubmissionEvent,
    SubmissionState,
    TermsAcceptance,
)

# The kind of decision approving one A1 run (registered in submissions.decisions), which a1_runs lists while open.
A1_RUN = "submissions.a1_run"

# What each dependency class means for a submission, shown beside the derived class.
CLASS_EXPLANATIONS = {
    "S": gettext_lazy("Self-contained: everything it needs is in the package, with the right to redistribute and "
                      "transfer it."),
    "O": gettext_lazy("Open external: its external artifacts are mirrored and pinned under licences that allow "
                      "redistribution and transfer."),
    "A1": gettext_lazy("Substitutable LLM inference through the gateway: any compatible endpoint can serve it."),
    "A2": gettext_lazy("Non-substitutable external API: accepted for the open leaderboard only, flagged “external "
                       "dependency”; it cannot be fully transferred to the community."),
}


def published_terms(organization: Organization) -> QuerySet[ParticipationTerms]:
    """Every published version, latest first (public: anyone may read the terms before submitting)."""
    return organization.participation_terms.select_related("published_by").order_by("-published_at", "-pk")


def current_terms(organization: Organization) -> ParticipationTerms | None:
    """The version in force, the latest published: the one a submitter must have accepted."""
    return ParticipationTerms.objects.filter(organization=organization).order_by("-published_at", "-pk").first()


def acceptance_of(user, terms: ParticipationTerms | None) -> TermsAcceptance | None:
    if terms is None or not user.is_authenticated:
        return None
    return TermsAcceptance.objects.filter(terms=terms, user=user).select_related("terms").first()


def accepted_versions(user, organization: Organization) -> set[int]:
    if not user.is_authenticated:
        return set()
    return set(TermsAcceptance.objects.filter(user=user, terms__organization=organization)
               .values_list("terms_id", flat=True))


def _with_list_columns(submissions: QuerySet[MethodSubmission]) -> QuerySet[MethodSubmission]:
    return submissions.select_related("organization", "submitter").defer("files", "method_card", "manifest",
                                                                         "cost_report")


def submissions_of(user) -> QuerySet[MethodSubmission]:
    """The user's own submissions, newest first."""
    if not user.is_authenticated:
        return MethodSubmission.objects.none()
    return _with_list_columns(MethodSubmission.objects.filter(submitter=user))


def governed_submissions(user, organization: Organization | None = None) -> QuerySet[MethodSubmission]:
    """Submissions to organizations where the user is governance staff (optionally one of them)."""
    submissions = MethodSubmission.objects.filter(organization_id__in=governance_org_ids(user))
    if organization is not None:
        submissions = submissions.filter(organization=organization)
    return _with_list_columns(submissions)


def visible_submission(user, public_id) -> MethodSubmission | None:
    """A submission for its submitter or its organization's governance staff; None for anyone else."""
    if not user.is_authenticated:
        return None
    return (MethodSubmission.objects.filter(Q(submitter=user) | Q(organization_id__in=governance_org_ids(user)))
            .filter(public_id=public_id)
            .select_related("organization", "submitter", "terms_acceptance__terms",
                            "run_card__dataset_version__dataset")
            .defer("run_card__raw", "run_card__method_config", "run_card__dataset_version__envelope")
            .first())


def is_staff_for(user, submission: MethodSubmission) -> bool:
    """The organization's governance staff, second factor proven: the permission `organization.manage`."""
    return organization_manage(user, submission.organization_id).allowed


def submission_history(submission: MethodSubmission) -> QuerySet[SubmissionEvent]:
    return submission.events.select_related("actor").order_by("created_at", "pk")


def shown_composite(card: RunCard) -> float | None:
    return card.leaderboard_composite if card.leaderboard_composite is not None else card.composite


def submission_scores(submission: MethodSubmission) -> dict | None:
    """The attached gold run card's aggregate scores — everything the submitter may know of it. Built
    from the card's columns only; `results` (sources, references, outputs) is never touched here."""
    card = submission.run_card
    if card is None:
        return None
    version = card.dataset_version
    return {
        "dataset": version.dataset.identifier,
        "dataset_version": version.version,
        "language_pair": version.language_pair,
        "segment": card.segment,
        "entries_scored": card.result_count,
        "scoring_standard": card.scoring_standard,
        # The scores the leaderboard shows: recomputed where the card's claim is not what its predictions give.
        "composite": shown_composite(card),
        "quality_tier": quality_tier(shown_composite(card), bands_of(version)),
        "chrf_plus_plus": (card.leaderboard_chrf_plus_plus if card.leaderboard_chrf_plus_plus is not None
                           else card.chrf_plus_plus),
        # Against the stored references (NFC), as the leaderboard shows it; a card without rows has its claim only.
        "exact_match_rate": (card.recomputed_exact_match_rate if card.recomputed_exact_match_rate is not None
                             else card.exact_match_rate),
        "fst_acceptance_rate": card.fst_acceptance_rate,
        "semantic_score": card.semantic_score,
        "cost_per_entry_usd": card.cost_per_entry_usd,
        "avg_latency_seconds": card.avg_latency_seconds,
        "verification_tier": card.verification_tier,
    }


def manifest_digest(manifest: Any) -> str:
    """SHA-256 of the manifest in canonical JSON (sorted keys, no spaces, UTF-8): what a sign-off was given on."""
    return hashlib.sha256(json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                          .encode("utf-8")).hexdigest()


def current_sign_offs(submission: MethodSubmission) -> dict[str, DependencySignOff]:
    """The sign-offs given on the manifest as it is now, by dependency id (earlier ones are stale)."""
    return {sign_off.dependency_id: sign_off for sign_off in DependencySignOff.objects.filter(
        submission=submission, manifest_sha256=manifest_digest(submission.manifest)).select_related("reviewer")}


def dependency_rows(submission: MethodSubmission) -> list[dict]:
    """Each declared dependency with the class it contributes (the leaderboard's own derivation), its reviewer's
    sign-off on the current manifest (None when missing), whether an earlier sign-off went stale with a manifest
    change, and for an A2 dependency the rights holder's permission (None when not recorded)."""
    signed = current_sign_offs(submission)
    stale = set(submission.sign_offs.exclude(manifest_sha256=manifest_digest(submission.manifest))
                .values_list("dependency_id", flat=True))
    permissions = {permission.dependency_id: permission
                   for permission in submission.rights_permissions.select_related("recorded_by")}
    rows = []
    for dependency in submission.manifest.get("dependencies", []):
        dependency_id = str(dependency.get("id"))
        dependency_class = dependency_class_of(dependency)
        rows.append({
            "id": dependency.get("id"), "kind": dependency.get("kind"), "access": dependency.get("access"),
            "license": dependency.get("license"), "source": dependency.get("source"), "pin": dependency.get("pin"),
            "class": dependency_class, "deciding": dependency.get("id") == submission.deciding_dependency,
            "sign_off": signed.get(dependency_id), "stale": dependency_id in stale and dependency_id not in signed,
            "a2": dependency_class == "A2", "permission": permissions.get(dependency_id),
        })
    return rows


def a1_run_versions(submission: MethodSubmission) -> QuerySet[DatasetVersion]:
    """The organization's dataset versions holding secret entries: where an A1 run may be approved."""
    return (DatasetVersion.objects.filter(dataset__organization_id=submission.organization_id,
                                          entries__segment__in=SECRET_SEGMENTS)
            .select_related("dataset").defer("envelope").distinct().order_by("dataset__identifier", "-pk"))


def a1_runs(submission: MethodSubmission) -> dict:
    """The A1 run approvals of the submission's method on the organization's data (each used by at most one run
    card), and the decisions proposing more that are still open."""
    approvals = (A1RunApproval.objects.filter(method_id=submission.method_id,
                                              dataset_version__dataset__organization_id=submission.organization_id)
                 .select_related("dataset_version__dataset", "run_card", "decision")
                 .defer("dataset_version__envelope", "run_card__raw", "run_card__method_config"))
    pending = Decision.objects.filter(organization_id=submission.organization_id, kind=A1_RUN,
                                      subject__startswith=f"a1_run:{submission.public_id}:",
                                      state=DecisionState.OPEN).order_by("-opened_at")
    return {"approvals": list(approvals), "pending": list(pending)}


def class_explanation(dependency_class: str) -> str:
    return str(CLASS_EXPLANATIONS.get(dependency_class, ""))


def next_states(submission: MethodSubmission) -> list[tuple[str, str]]:
    """The moves governance staff can ask for from here (each still checked by the service); the
    transfer has its own form."""
    return [(state, str(SubmissionState(state).label)) for state in TRANSITIONS[submission.state]
            if state != SubmissionState.OWNERSHIP_TRANSFERRED]


def attachable_run_cards(submission: MethodSubmission) -> QuerySet[RunCard]:
    """Verified gold_standard cards of the organization's datasets, not attached elsewhere, of this
    method or of no declared method: what the sandbox may have produced for this submission."""
    return (RunCard.objects.filter(status=RunCard.Status.READY, segment="gold_standard",
                                   dataset_version__dataset__organization_id=submission.organization_id)
            .filter(Q(method__isnull=True) | Q(method__method_id=submission.method_id))
            .exclude(method_submissions__isnull=False)
            .select_related("dataset_version__dataset")
            .defer("raw", "method_config", "dataset_version__envelope")
            .order_by("-submitted_at"))


def with_listed_cards(user, transfers: list[OwnershipTransfer]) -> list[OwnershipTransfer]:
    """Set each transfer's `listed_card`: its run card when the leaderboard lists that card for `user`
    (leaderboard.selectors.listed_cards), else None. A transfer record is public; the dataset id and scores
    of its card are only as public as the card."""
    listed = set(listed_cards(user).filter(pk__in=[transfer.run_card_id for transfer in transfers])
                 .values_list("pk", flat=True))
    for transfer in transfers:
        # A display attribute for the template, not a model field.
        transfer.listed_card = transfer.run_card if transfer.run_card_id in listed else None  # type: ignore[attr-defined]
    return transfers


def transfers_of_method(user, method_id: str) -> list[OwnershipTransfer]:
    """Ownership transfers are public records: they are shown on the method's page."""
    return with_listed_cards(user, list(
        OwnershipTransfer.objects.filter(method_id=method_id)
        .select_related("organization", "terms", "submission", "run_card__dataset_version__dataset")
        .defer("run_card__raw", "run_card__method_config", "run_card__dataset_version__envelope")
        .order_by("-recorded_at")))


def public_transfer(user, public_id) -> OwnershipTransfer | None:
    transfer = (OwnershipTransfer.objects.filter(public_id=public_id)
                .select_related("organization", "terms", "run_card__dataset_version__dataset", "submission")
                .defer("run_card__raw", "run_card__method_config", "run_card__dataset_version__envelope").first())
    return with_listed_cards(user, [transfer])[0] if transfer is not None else None


def method_page(user, method_id: str) -> dict | None:
    """What the method page shows: the leaderboard's method card (if registered), its run cards the
    user may see on the leaderboard, and its ownership transfers. None when there is nothing to show,
    or when the method is class X (never listed) and was never transferred."""
    method = Method.objects.filter(method_id=method_id).first()
    transfers = transfers_of_method(user, method_id)
    if method is None and not transfers:
        return None
    if method is not None and method.dependency_class == "X" and not transfers:
        return None
    cards = []
    if method is not None:
        cards = list(listed_cards(user).filter(method=method).select_related("dataset_version__dataset")
                     .defer("raw", "method_config", "dataset_version__envelope").order_by("-submitted_at")[:50])
    card = method.card if method is not None else transfers[0].submission.method_card
    dependency_class = (method.dependency_class if method is not None and method.dependency_class
                        else transfers[0].submission.derived_class if transfers else "")
    return {
        "method": method, "card": card, "name": method.name if method else transfers[0].method_name,
        "method_id": method_id, "dependency_class": dependency_class if dependency_class in DEPENDENCY_CLASSES else "",
        "run_cards": cards, "transfers": transfers,
    }
