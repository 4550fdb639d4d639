"""Reads with rules for terms, method submissions and ownership transfers.

Who sees a submission: its submitter, and the governance staff of the organization it was submitted
to; everybody else gets None (pages answer 404, so nobody learns that it exists). The submitter sees
the gold run card's aggregate scores only (`submission_scores`): never its per-entry results, and so
never a gold source, reference or output (SPEC §2 principle 3).
"""

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import partial
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.db.models import F, Q, QuerySet
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy

from corpus.language_pairs import pair_key, version_pair_key
from corpus.models import DatasetVersion
from corpus.selectors import public_download_hash, version_hash, visible_datasets
from corpus.validation import JsonObjectReader, NotStreamed
from leaderboard.card_json import unambiguous
from leaderboard.methods import DEPENDENCY_CLASSES, dependency_class_of
from leaderboard.models import Method, RunCard
from leaderboard.selectors import bands_of, disqualified, listed_cards, unverified_last
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
                if not re.fullmatch(r"[0-9]{1,9}", value):
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


# Members of a card pinning a hash kept from the public that the install read may serve: none of them is, or is
# computed over, the dataset's real hash (its seal and fingerprint object are).
SERVED_WHEN_HASH_HIDDEN = ("run_id", "harness_version", "timestamp", "model_slug", "model_id", "condition",
                           "temperature", "batch_size", "tools_enabled", "method_config", "method_card", "method",
                           "scores", "totals", "api_provider", "max_tokens")


def served_card_texts(cards: Sequence[RunCard]) -> dict[int, str]:
    """Stored card pk → the card as the install read serves it (served_card_text). Cached per stored card (which
    never changes); the texts not cached are read in one query, a few cards at a time."""
    keys = {card.pk: f"harness-card:{card.pk}" for card in cards}
    cached = cache.get_many(list(keys.values()))
    texts = {pk: cached[key] for pk, key in keys.items() if key in cached}
    missing = {card.pk: card for card in cards if card.pk not in texts}
    if missing:
        for pk, raw in RunCard.objects.filter(pk__in=list(missing)).values_list("pk", "raw").iterator(chunk_size=20):
            texts[pk] = served_card_text(missing[pk], raw)
        cache.set_many({keys[pk]: texts[pk] for pk in missing}, CARD_WITHOUT_RESULTS_SECONDS)
    return texts


def served_card_text(card: RunCard, raw: str) -> str:
    """The stored card as the install read serves it: without its per-entry rows (upstream's rows never carry
    them, and a secret card's must not be served), every other member verbatim — `method_config` byte for byte.
    A card pinning a hash kept from the public (docs/corpus.md, "Hashes") is served without its seal, fingerprint
    object and every member not known to be free of that hash; its `dataset.sha256` and `fingerprint` are the
    public ones. A card stored before repeated member names were refused is served as json.loads reads it (the last
    of each name), which is what its secret-text scan read (leaderboard.card_json.unambiguous)."""
    reader = JsonObjectReader(raw.encode("utf-8"), CARD_DECODER)
    members: dict[str, str] = {}
    try:
        for name in reader.names():
            if name == "results":
                reader.skip()
            else:
                members[name] = unambiguous(reader.value_text())
    except NotStreamed:
        stored = json.loads(raw)
        members = {name: json.dumps(value, ensure_ascii=False) for name, value in stored.items() if name != "results"}
    dataset = json.loads(members.get("dataset", "{}"))
    public = version_hash(AnonymousUser(), card.dataset_version).value
    if isinstance(dataset, dict) and dataset.get("sha256") not in (public, public_download_hash(card.dataset_version)):
        members = {name: value for name, value in members.items() if name in SERVED_WHEN_HASH_HIDDEN}
        members["dataset"] = json.dumps({**{k: v for k, v in dataset.items() if k in (
            "id", "version", "language_pair", "entry_count")}, "sha256": public}, ensure_ascii=False)
        members["fingerprint"] = json.dumps(card.fingerprint)
    return "{" + ", ".join(f"{json.dumps(name, ensure_ascii=False)}: {value}" for name, value in members.items()) + "}"


def submitter_label(card: RunCard) -> str:
    """The name the publisher gave with the card (the harness's `submitter` column), else "anonymous": an
    account's own name is never published, nor anything of an account that cannot sign in (the anonymous lane's,
    or one deleted)."""
    if not card.submitted_by.is_active:
        return "anonymous"
    intake = getattr(card, "harness_intake", None)
    given = intake.row.get("submitter") if intake is not None and isinstance(intake.row, dict) else None
    return given[:100] if isinstance(given, str) and given.strip() else "anonymous"


def object_of(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def trust(card: RunCard) -> str:
    """The harness's `trust` column: "disqualified" for a card out of every ranking (its own or its method's
    disqualification), "verified" for a card a maintainer reproduced or the community validated, else
    "unverified"."""
    if getattr(card, "is_disqualified", False):
        return "disqualified"
    return "verified" if card.verification_tier in TRUSTED_TIERS else "unverified"


def harness_row(card: RunCard, card_text: str | None) -> dict[str, Any]:
    """One card as an upstream run_cards row (publish.build_run_card_row's columns); the columns read from the card
    itself are null without its text."""
    content = object_of(json.loads(card_text) if card_text is not None else {})
    scores, totals, dataset = (object_of(content.get(name)) for name in ("scores", "totals", "dataset"))
    intervals = object_of(scores.get("confidence_intervals"))

    def interval(name: str, bound: str):
        value = intervals.get(name)
        return value.get(bound) if isinstance(value, dict) else None

    method = card.method
    return {
        "id": str(card.public_id),
        "submitter": submitter_label(card),
        "submitted_at": card.submitted_at.isoformat(),
        "trust": trust(card),
        "verification_tier": card.verification_tier,
        "model_slug": card.model_slug,
        "condition": card.condition,
        "dataset_id": card.dataset_version.dataset.identifier,
        "dataset_version": card.dataset_version.version,
        "language_pair": dataset.get("language_pair") if isinstance(dataset.get("language_pair"), str)
        else card.dataset_version.language_pair,
        "harness_version": card.harness_version,
        # The scores the leaderboard shows: recomputed where the card's claim is not what its rows give.
        "chrf_plus_plus": getattr(card, "shown_chrf", card.chrf_plus_plus),
        "chrf_ci_lower": card.chrf_ci_lower,
        "chrf_ci_upper": card.chrf_ci_upper,
        "corpus_bleu": content.get("corpus_bleu", scores.get("corpus_bleu")),
        # Against the stored references (NFC), as the leaderboard shows it; a card without rows has its claim only.
        "exact_match_rate": (card.recomputed_exact_match_rate if card.recomputed_exact_match_rate is not None
                             else card.exact_match_rate),
        "exact_match_ci_lower": interval("exact_match_rate", "ci_lower"),
        "exact_match_ci_upper": interval("exact_match_rate", "ci_upper"),
        "fst_acceptance_rate": card.fst_acceptance_rate,
        "semantic_score": card.semantic_score,
        "composite_score": getattr(card, "shown_composite", card.composite),
        "quality_tier": scores.get("quality_tier"),
        "scoring_standard": card.scoring_standard,
        # The fingerprint stored here: over the hash everyone is shown (docs/run-cards.md, "Fingerprint").
        "fingerprint_hash": card.fingerprint,
        "method_class": method.method_class if method else None,
        "api_provider": content.get("api_provider"),
        "run_timestamp": card.timestamp.isoformat(),
        "batch_size": card.batch_size,
        "temperature": card.temperature,
        "max_tokens": content.get("max_tokens"),
        "total_cost_usd": totals.get("total_cost_usd"),
        "cost_per_entry_usd": card.cost_per_entry_usd,
        "elapsed_seconds": content.get("elapsed_seconds"),
        "avg_latency_seconds": card.avg_latency_seconds,
        "corpus_size": card.result_count,
        "corpus_license": content.get("corpus_license"),
        "corpus_attribution": content.get("corpus_attribution"),
        **{name: scores.get(name) for name in HARNESS_CARD_SCORES},
    }


# Columns the database filters (eq.) and orders by, so that a page of the install read reads only its own cards.
DATABASE_COLUMNS = {
    "id": "public_id", "submitted_at": "submitted_at", "model_slug": "model_slug", "condition": "condition",
    "dataset_id": "dataset_version__dataset__identifier", "dataset_version": "dataset_version__version",
    "harness_version": "harness_version", "chrf_plus_plus": "shown_chrf", "composite_score": "shown_composite",
    "exact_match_rate": "exact_match_rate", "scoring_standard": "scoring_standard", "fingerprint_hash": "fingerprint",
    "run_timestamp": "timestamp", "temperature": "temperature", "batch_size": "batch_size",
    "cost_per_entry_usd": "cost_per_entry_usd", "avg_latency_seconds": "avg_latency_seconds",
    "corpus_size": "result_count", "fst_acceptance_rate": "fst_acceptance_rate", "semantic_score": "semantic_score",
}
TEXT_COLUMNS = ("model_slug", "condition", "dataset_id", "dataset_version", "harness_version", "scoring_standard",
                "fingerprint_hash")
# Without a filter or order the database can do, at most this many cards are read and sorted here.
UNINDEXED_READ_LIMIT = 2000


def harness_cards(user, query: HarnessQuery) -> QuerySet[RunCard]:
    """The cards the install read lists: those the leaderboard lists to this reader (every standard)."""
    cards = listed_cards(user).select_related("method", "dataset_version__dataset", "harness_intake",
                                              "submitted_by").defer(
        "raw", "discrepancies", "chrf_statistics").annotate(
        shown_chrf=Coalesce("leaderboard_chrf_plus_plus", "chrf_plus_plus"),
        shown_composite=Coalesce("leaderboard_composite", "composite"), is_disqualified=disqualified())
    for name, value in query.equal.items():
        if name == "id":
            try:
                cards = cards.filter(public_id=uuid.UUID(value))
            except ValueError:
                return cards.none()
        elif name == "language_pair":
            wanted = pair_key(value) or value
            versions = [pk for pk, pair, source, target in DatasetVersion.objects.values_list(
                "pk", "language_pair", "source_language", "target_language")
                if version_pair_key(pair, source, target) == wanted]
            cards = cards.filter(dataset_version__in=versions)
        elif name in TEXT_COLUMNS:
            cards = cards.filter(**{DATABASE_COLUMNS[name]: value})
    return cards


def harness_rows(user, query: HarnessQuery) -> list[tuple[dict[str, Any], str | None]]:
    """(row, card text or None) of each listed card, filtered, ordered and cut as asked; the card's text only
    when `run_card` is selected, to be written into the answer verbatim. Filters and orders the database can do are
    done there, with the page cut there too; any other is done here, on at most UNINDEXED_READ_LIMIT cards."""
    cards = harness_cards(user, query)
    in_python = [name for name in query.equal if name not in ("id", "language_pair", *TEXT_COLUMNS)]
    in_python += [column for column, _, _ in query.order if column not in DATABASE_COLUMNS]
    needs_text = "run_card" in query.columns or bool(set(query.columns) - set(DATABASE_COLUMNS) - {
        "submitter", "trust", "verification_tier", "language_pair", "method_class", "chrf_ci_lower",
        "chrf_ci_upper"}) or bool(in_python)
    if not in_python:
        ordering = [F(DATABASE_COLUMNS[column]).desc(nulls_last=nulls_last) if descending
                    else F(DATABASE_COLUMNS[column]).asc(nulls_last=nulls_last)
                    for column, descending, nulls_last in query.order]
        # As on the leaderboard, a claim nothing could recompute never comes before a verified score, and a
        # disqualified card comes after every other.
        page = list(cards.annotate(unverified=unverified_last())
                    .order_by("is_disqualified", "unverified", *ordering, "-submitted_at", "pk")
                    [query.offset:query.offset + query.limit])
        texts = served_card_texts(page) if needs_text else {}
        rows = [(harness_row(card, texts.get(card.pk)), texts.get(card.pk)) for card in page]
    else:
        rows, unverified = [], set()
        read = list(cards.order_by("-submitted_at", "pk")[:UNINDEXED_READ_LIMIT])
        texts = served_card_texts(read)
        for card in read:
            text = texts[card.pk]
            row = harness_row(card, text)
            if all(str(row.get(name)) == value for name, value in query.equal.items()
                   if name not in ("id", "language_pair", *TEXT_COLUMNS)):
                rows.append((row, text))
                if card.status == RunCard.Status.UNVERIFIED:
                    unverified.add(row["id"])
        for column, descending, nulls_last in reversed(query.order):
            present = [item for item in rows if item[0].get(column) is not None]
            missing = [item for item in rows if item[0].get(column) is None]
            present.sort(key=partial(sort_key, column), reverse=descending)
            rows = present + missing if nulls_last else missing + present
        rows.sort(key=lambda item: (item[0]["trust"] == "disqualified", item[0]["id"] in unverified))
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
