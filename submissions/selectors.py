"""Reads with rules for terms, method submissions and ownership transfers.

Who sees a submission: its submitter, and the governance staff of the organization it was submitted
to; everybody else gets None (pages answer 404, so nobody learns that it exists). The submitter sees
the gold run card's aggregate scores only (`submission_scores`): never its per-entry results, and so
never a gold source, reference or output (SPEC §2 principle 3).
"""

import json
import uuid
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import partial
from typing import Any

from django.core.cache import cache
from django.db.models import Q, QuerySet
from django.utils.translation import gettext_lazy

from corpus.language_pairs import pair_key, version_pair_key
from corpus.models import DatasetVersion
from corpus.selectors import visible_datasets
from corpus.validation import JsonObjectReader
from leaderboard.methods import DEPENDENCY_CLASSES, dependency_class_of
from leaderboard.models import Method, RunCard
from leaderboard.selectors import listed_cards
from leaderboard.services import CARD_DECODER
from leaderboard.verification import quality_tier
from organizations.models import Organization
from organizations.permissions import organization_manage
from organizations.selectors import governance_org_ids

from .models import (
    MethodSubmission,
    OwnershipTransfer,
    ParticipationTerms,
    SubmissionEvent,
    SubmissionState,
    TermsAcceptance,
)
from .services import TRANSITIONS, latest_terms

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
    return latest_terms(organization)


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
        "composite": card.composite,
        "quality_tier": quality_tier(card.composite),
        "chrf_plus_plus": card.chrf_plus_plus,
        "exact_match_rate": card.exact_match_rate,
        "fst_acceptance_rate": card.fst_acceptance_rate,
        "semantic_score": card.semantic_score,
        "cost_per_entry_usd": card.cost_per_entry_usd,
        "avg_latency_seconds": card.avg_latency_seconds,
        "verification_tier": card.verification_tier,
    }


def dependency_rows(submission: MethodSubmission) -> list[dict]:
    """Each declared dependency with the class it contributes (the leaderboard's own derivation)."""
    rows = []
    for dependency in submission.manifest.get("dependencies", []):
        rows.append({
            "id": dependency.get("id"), "kind": dependency.get("kind"), "access": dependency.get("access"),
            "license": dependency.get("license"), "class": dependency_class_of(dependency),
            "deciding": dependency.get("id") == submission.deciding_dependency,
        })
    return rows


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


# --- The upstream harness's install read (`GET /supabase/rest/v1/run_cards`, docs/run-cards.md) -------------------

# The columns of upstream's run_cards rows that this app serves, each from the stored card (its `run_card`
# object, without per-entry rows) or the card's columns here. Scores are the ones stored and shown here.
HARNESS_SCORE_COLUMNS = {
    "chrf_plus_plus": "chrf_plus_plus", "exact_match_rate": "exact_match_rate",
    "fst_acceptance_rate": "fst_acceptance_rate", "semantic_score": "semantic_score",
    "composite_score": "composite", "cost_per_entry_usd": "cost_per_entry_usd",
    "avg_latency_seconds": "avg_latency_seconds",
}
HARNESS_CARD_SCORES = ("equivalent_match_rate", "comet_score", "qe_score", "morphological_accuracy",
                       "morph_coverage", "ter", "length_ratio", "tokens_per_second", "entries_per_minute",
                       "median_latency_seconds", "p95_latency_seconds", "code_switching_rate", "hallucination_rate",
                       "terminology_adherence", "style_consistency_rate")
HARNESS_COLUMNS = (
    "id", "submitter", "submitted_at", "trust", "verification_tier", "model_slug", "condition", "dataset_id",
    "dataset_version", "language_pair", "harness_version", "chrf_plus_plus", "chrf_ci_lower", "chrf_ci_upper",
    "corpus_bleu", "exact_match_rate", "exact_match_ci_lower", "exact_match_ci_upper", "fst_acceptance_rate",
    "semantic_score", "composite_score", "quality_tier", "scoring_standard", "fingerprint_hash", "method_class",
    "api_provider", "run_timestamp", "batch_size", "temperature", "max_tokens", "total_cost_usd",
    "cost_per_entry_usd", "elapsed_seconds", "avg_latency_seconds", "corpus_size", "corpus_license",
    "corpus_attribution", *HARNESS_CARD_SCORES, "run_card",
)
TRUSTED_TIERS = ("GDS Verified", "Community Validated")
CARD_WITHOUT_RESULTS_SECONDS = 24 * 3600


class HarnessQueryError(ValueError):
    """A query the install read cannot answer; `code` is PostgREST's for it."""

    def __init__(self, code: str, message: str, hint: str | None = None):
        super().__init__(message)
        self.code, self.message, self.hint = code, message, hint


@dataclass
class HarnessQuery:
    """PostgREST's query parameters as the harness sends them: `select`, `order` (`column.desc.nullslast`, several
    separated by commas), `column=eq.value` filters, `limit` and `offset`."""

    columns: tuple[str, ...] = HARNESS_COLUMNS
    order: list[tuple[str, bool, bool]] = dataclass_field(default_factory=list)
    equal: dict[str, str] = dataclass_field(default_factory=dict)
    limit: int = 1000
    offset: int = 0

    @classmethod
    def from_params(cls, params) -> "HarnessQuery":
        query = cls()
        for name, value in params.items():
            if name == "select":
                wanted = [column.strip() for column in value.split(",") if column.strip()]
                if "*" in wanted:
                    continue
                query.columns = tuple(known_column(column) for column in wanted)
            elif name == "order":
                query.order = [order_term(term) for term in value.split(",") if term.strip()]
            elif name in ("limit", "offset"):
                if not value.isdigit():
                    raise HarnessQueryError("PGRST103", f"{name} must be a whole number, found {value[:40]!r}")
                setattr(query, name, min(int(value), 1000) if name == "limit" else int(value))
            else:
                known_column(name)
                if not value.startswith("eq."):
                    raise HarnessQueryError("PGRST100", f"{name}={value[:60]}: only the eq. operator is supported "
                                            "here", hint=f"{name}=eq.<value>")
                query.equal[name] = value[3:]
        return query


def known_column(name: str) -> str:
    if name not in HARNESS_COLUMNS:
        raise HarnessQueryError("42703", f"column run_cards.{name[:60]} does not exist",
                                hint="columns: " + ", ".join(HARNESS_COLUMNS))
    return name


def order_term(term: str) -> tuple[str, bool, bool]:
    """(column, descending, nulls last) of `column[.asc|.desc][.nullsfirst|.nullslast]` (PostgreSQL's default
    puts nulls last ascending and first descending)."""
    column, *modifiers = term.strip().split(".")
    known_column(column)
    if column == "run_card" or any(m not in ("asc", "desc", "nullsfirst", "nullslast") for m in modifiers):
        raise HarnessQueryError("PGRST100", f"order={term[:60]}: expected column.asc|desc[.nullsfirst|nullslast]")
    descending = "desc" in modifiers
    nulls_last = "nullslast" in modifiers or ("nullsfirst" not in modifiers and not descending)
    return column, descending, nulls_last


def card_without_results(card: RunCard) -> str:
    """The stored card's text without its per-entry rows (which upstream's rows never carry, and which for a
    secret card must not be served), every other member verbatim — `method_config` byte for byte. Cached: a
    stored card never changes."""
    key = f"harness-card:{card.public_id}"
    text = cache.get(key)
    if text is None:
        raw = RunCard.objects.values_list("raw", flat=True).get(pk=card.pk).encode("utf-8")
        reader = JsonObjectReader(raw, CARD_DECODER)
        members = []
        for name in reader.names():
            if name == "results":
                reader.skip()
            else:
                members.append(f"{json.dumps(name, ensure_ascii=False)}: {reader.value_text()}")
        text = "{" + ", ".join(members) + "}"
        cache.set(key, text, CARD_WITHOUT_RESULTS_SECONDS)
    return text


def submitter_label(card: RunCard) -> str:
    user = card.submitted_by
    if not user.is_active and not user.has_usable_password():
        return "anonymous"
    return user.get_full_name() or "anonymous"


def harness_row(card: RunCard, card_text: str) -> dict[str, Any]:
    """One card as an upstream run_cards row (publish.build_run_card_row's columns)."""
    content = json.loads(card_text)
    scores = content.get("scores") if isinstance(content.get("scores"), dict) else {}
    totals = content.get("totals") if isinstance(content.get("totals"), dict) else {}
    dataset = content.get("dataset") if isinstance(content.get("dataset"), dict) else {}
    found = scores.get("confidence_intervals")
    intervals: dict = found if isinstance(found, dict) else {}

    def interval(name: str, bound: str):
        value = intervals.get(name)
        return value.get(bound) if isinstance(value, dict) else None

    method = card.method
    row: dict[str, Any] = {
        "id": str(card.public_id),
        "submitter": submitter_label(card),
        "submitted_at": card.submitted_at.isoformat(),
        "trust": "verified" if card.verification_tier in TRUSTED_TIERS else "unverified",
        "verification_tier": card.verification_tier,
        "model_slug": card.model_slug,
        "condition": card.condition,
        "dataset_id": card.dataset_version.dataset.identifier,
        "dataset_version": card.dataset_version.version,
        "language_pair": dataset.get("language_pair") if isinstance(dataset.get("language_pair"), str)
        else card.dataset_version.language_pair,
        "harness_version": card.harness_version,
        "chrf_ci_lower": interval("corpus_chrf", "ci_lower"),
        "chrf_ci_upper": interval("corpus_chrf", "ci_upper"),
        "corpus_bleu": content.get("corpus_bleu", scores.get("corpus_bleu")),
        "exact_match_ci_lower": interval("exact_match_rate", "ci_lower"),
        "exact_match_ci_upper": interval("exact_match_rate", "ci_upper"),
        "quality_tier": scores.get("quality_tier"),
        "scoring_standard": card.scoring_standard,
        # The fingerprint stored here: over the hash everyone is shown (docs/run-cards.md, "Fingerprint").
        "fingerprint_hash": card.fingerprint,
        "method_class": method.method_class if method else None,
        "api_provider": content.get("api_provider"),
        "run_timestamp": content.get("timestamp"),
        "batch_size": card.batch_size,
        "temperature": card.temperature,
        "max_tokens": content.get("max_tokens"),
        "total_cost_usd": totals.get("total_cost_usd"),
        "elapsed_seconds": content.get("elapsed_seconds"),
        "corpus_size": card.result_count,
        "corpus_license": content.get("corpus_license"),
        "corpus_attribution": content.get("corpus_attribution"),
        **{column: getattr(card, field) for column, field in HARNESS_SCORE_COLUMNS.items()},
        **{name: scores.get(name) for name in HARNESS_CARD_SCORES},
    }
    return row


def harness_cards(user, query: HarnessQuery) -> QuerySet[RunCard]:
    """The cards the install read lists: those the leaderboard lists to this reader (every standard)."""
    cards = listed_cards(user).select_related("method", "dataset_version__dataset", "submitted_by").defer(
        "raw", "discrepancies")
    if "id" in query.equal:
        try:
            cards = cards.filter(public_id=uuid.UUID(query.equal["id"]))
        except ValueError:
            return cards.none()
    if "language_pair" in query.equal:
        wanted = pair_key(query.equal["language_pair"]) or query.equal["language_pair"]
        versions = [pk for pk, pair, source, target in DatasetVersion.objects.values_list(
            "pk", "language_pair", "source_language", "target_language")
            if version_pair_key(pair, source, target) == wanted]
        cards = cards.filter(dataset_version__in=versions)
    return cards


def harness_rows(user, query: HarnessQuery) -> list[tuple[dict[str, Any], str | None]]:
    """(row, card text or None) of each listed card, filtered, ordered and cut as asked; the card's text only
    when `run_card` is selected, to be written into the answer verbatim."""
    rows = []
    for card in harness_cards(user, query):
        card_text = card_without_results(card)
        row = harness_row(card, card_text)
        if all(str(row.get(name)) == value for name, value in query.equal.items()
               if name not in ("id", "language_pair")):
            rows.append((row, card_text))
    for column, descending, nulls_last in reversed(query.order):
        present = [item for item in rows if item[0].get(column) is not None]
        missing = [item for item in rows if item[0].get(column) is None]
        present.sort(key=partial(sort_key, column), reverse=descending)
        rows = present + missing if nulls_last else missing + present
    rows = rows[query.offset:query.offset + query.limit]
    return [({name: row.get(name) for name in query.columns if name != "run_card"},
             text if "run_card" in query.columns else None) for row, text in rows]


def sort_key(column: str, item: tuple[dict[str, Any], str | None]) -> tuple:
    """Numbers before text, each in its own order (a column holds one kind)."""
    value = item[0][column]
    return (0, value) if isinstance(value, (int, float)) and not isinstance(value, bool) else (1, str(value))


def unknown_datasets(user, rows: list) -> list[str]:
    """The ids of harness `datasets` rows that name no dataset this reader may see (datasets are imported by
    curators here, never created by a publication)."""
    named = [str(row.get("id") or "") for row in rows if isinstance(row, dict)]
    if len(named) != len(rows):
        return ["(a row that is not an object)"]
    known = set(visible_datasets(user).filter(identifier__in=named).values_list("identifier", flat=True))
    return [name for name in named if name not in known]
