"""Reads with rules: which run cards are listed, how they rank, whose per-entry results show."""

import functools
import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Count,
    ExpressionWrapper,
    F,
    FilteredRelation,
    IntegerField,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Cast, Coalesce, Concat, NullIf
from django.utils.translation import gettext

from common.compiled import CompiledQuery
from corpus.label_selectors import labels_by_version
from corpus.language_pairs import pair_key, version_pair_key
from corpus.models import ConsentUse, DatasetVersion, Entry
from corpus.selectors import (
    Withdrawal,
    consent_filter,
    mt_output_visibility,
    shown_entries,
    visible_datasets,
    withdrawal,
)
from languages.selectors import language_cache_key
from organizations.selectors import governance_org_ids, secret_reader_org_ids

from . import ranking
from .models import (
    ConflictDeclaration,
    Disqualification,
    LeaderboardState,
    Method,
    RunCard,
    RunCardResult,
    TierBands,
)
from .verification import DEFAULT_TIER_BANDS, quality_tier

# The default first: standard/1 is what the harness scores every new run by; legacy-composite cards rank apart.
STANDARDS = {"standard/1": "chrf_plus_plus", "legacy-composite": "composite"}
DEFAULT_STANDARD = "standard/1"
SORTS = ("primary", "cost_adjusted")
# Benchmark specification §6.4, §2.3, §9.5: the official ranking is of gold_standard/held_out cards, which only the
# steward's governance staff submit (they run the methods on the secret entries); the open ranking is of
# development/diagnostic cards, which anyone submits.
RANKINGS = ("official", "open")
# A ranking is of one dataset version (of one language pair); across versions or pairs only when asked for.
SCOPES = ("version", "pair", "all")
# The state stamp not handed to a read: it reads it itself (public_stamp).
READ_STAMP: Any = object()
# Never needed for a row, and large: carrying them through the ranking's sort spills it to disk.
LARGE_FIELDS = ("raw", "method_config", "dataset_version__envelope", "method__card", "method__manifest",
                "chrf_statistics")
DOMAIN_METRICS = ("composite", "chrf_plus_plus", "exact_match_rate", "fst_acceptance_rate", "semantic_score",
                  "cost_adjusted")


@dataclass
class LeaderboardQuery:
    """Validated filters; `errors` names each bad parameter and what it accepts."""

    standard: str = DEFAULT_STANDARD
    language_pair: str = ""
    dataset: str = ""
    version: str = ""
    segment: str = ""
    domain: str = ""
    sort: str = "primary"
    ranking: str = ""
    scope: str = "version"
    # Whether the standard was asked for: the page shows every standard's ranking that has rows otherwise.
    standard_given: bool = False
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_params(cls, params) -> "LeaderboardQuery":
        from corpus.models import Domain, Segment

        def text(name: str) -> str:
            return (params.get(name) or "").strip()[:100]

        query = cls(language_pair=text("language_pair"), dataset=text("dataset"), version=text("version"),
                    segment=text("segment"), domain=text("domain"), ranking=text("ranking"),
                    scope=text("scope") or "version", standard_given=bool(text("standard")))
        query.standard = (params.get("standard") or DEFAULT_STANDARD).strip()
        query.sort = (params.get("sort") or "primary").strip()
        if query.ranking and query.ranking not in RANKINGS:
            query.errors["ranking"] = gettext("unknown ranking; expected one of: %(values)s") % {
                "values": ", ".join(RANKINGS)}
        if query.scope not in SCOPES:
            query.errors["scope"] = gettext("unknown scope; expected one of: %(values)s") % {
                "values": ", ".join(SCOPES)}
        elif query.scope == "pair" and not query.language_pair:
            query.errors["scope"] = gettext("a ranking across the versions of a pair needs the language_pair")
        if query.standard not in STANDARDS:
            query.errors["standard"] = gettext("unknown standard; expected one of: %(values)s") % {
                "values": ", ".join(STANDARDS)}
        if query.sort not in SORTS:
            query.errors["sort"] = gettext("unknown sort; expected one of: %(values)s") % {"values": ", ".join(SORTS)}
        if query.segment and query.segment not in [*Segment.values, "mixed"]:
            query.errors["segment"] = gettext("unknown segment; expected one of: %(values)s") % {
                "values": ", ".join([*Segment.values, "mixed"])}
        if query.domain and query.domain not in Domain.values:
            query.errors["domain"] = gettext("unknown domain; expected one of: %(values)s") % {
                "values": ", ".join(Domain.values)}
        if query.language_pair and pair_key(query.language_pair) is None:
            query.errors["language_pair"] = gettext(
                "not a language pair; expected source and target languages such as: %(values)s") % {
                "values": "eng>crk, EN→CRK, en-CA -> crk"}
        return query

    @property
    def pair(self) -> str | None:
        """The language pair's key (corpus.language_pairs.pair_key), however it was written."""
        return pair_key(self.language_pair) if self.language_pair else None

    def but(self, **changes) -> "LeaderboardQuery":
        return replace(self, **changes)


def evaluation_consented(user, dataset_path: str = "dataset_version__dataset") -> Q:
    """Cards (rows reaching their dataset through `dataset_path`) of datasets whose community consents to
    evaluation; the steward's governance staff also see their withdrawn ones (marked `withdrawn`), to manage them.
    Nothing is deleted either way."""
    consented = consent_filter(ConsentUse.EVALUATION, dataset_path)
    governed = governance_org_ids(user)
    if governed:
        consented |= Q(**{f"{dataset_path}__organization_id__in": governed})
    return consented


def unverified_last() -> Case:
    """1 for a card published without its per-entry rows, 0 for a verified one: ordered by it first, a claim
    nothing could recompute never comes before a verified score (the leaderboard, the harness's install read)."""
    return Case(When(status=RunCard.Status.UNVERIFIED, then=Value(1)), default=Value(0), output_field=IntegerField())


# Ready cards, and cards published without their per-entry rows (shown with their own scores, marked).
LISTED_STATUSES = (RunCard.Status.READY, RunCard.Status.UNVERIFIED)


def listed_cards(user) -> QuerySet[RunCard]:
    """Verified-and-processed cards of datasets the user may see and whose community consents to
    evaluation (governance staff: their own withdrawn ones too); class X methods are never listed."""
    # Visibility, consent and class X are decided over the few versions and methods, in subqueries PostgreSQL runs
    # once: checked card by card, they cost more than the ranking itself at 10,000 cards.
    versions = DatasetVersion.objects.filter(dataset__in=visible_datasets(user)).filter(
        evaluation_consented(user, "dataset")).values("pk")
    cards = RunCard.objects.filter(status__in=LISTED_STATUSES, dataset_version_id__in=versions).exclude(
        method_id__in=Method.objects.filter(dependency_class="X").values("pk"))
    if governance_org_ids(user):
        cards = cards.annotate(evaluation_withdrawn=ExpressionWrapper(
            ~consent_filter(ConsentUse.EVALUATION, "dataset_version__dataset"), output_field=BooleanField()))
    return cards


def versions_of_pair(key: str) -> list[int]:
    """Versions whose language pair reads as `key`, however each was written (`EN→CRK`, `eng>crk`, its source and
    target languages): the spellings differ, so the comparison is made here, over the versions' three columns."""
    return [pk for pk, pair, source, target in DatasetVersion.objects.values_list(
        "pk", "language_pair", "source_language", "target_language") if version_pair_key(pair, source, target) == key]


def setup_key():
    """The leaderboard's grouping key: the fingerprint verification chose (`setup_fingerprint`), or, for a card
    verified before it was stored, the public v1 fingerprint."""
    return Coalesce(NullIf(F("setup_fingerprint"), Value("")), F("fingerprint"), output_field=CharField())


def disqualified() -> ExpressionWrapper:
    """A card disqualified itself, or through its method (benchmark specification §9.2), and not lifted since. Two
    uncorrelated subqueries (the disqualifications in force are few), never a check per card."""
    active = Disqualification.objects.filter(lifted_at__isnull=True)
    return ExpressionWrapper(Q(pk__in=active.filter(run_card_id__isnull=False).values("run_card_id"))
                             # A method-less card is not disqualified: false, never NULL (negated, NULL drops it).
                             | Q(method_id__isnull=False,
                                 method_id__in=active.filter(method_id__isnull=False).values("method_id")),
                             output_field=BooleanField())


def ranked_cards(user) -> QuerySet[RunCard]:
    """The cards rankings are made of: the listed ones that are not disqualified (those stay reachable at their
    pages, marked, and in the install read as `trust = disqualified`)."""
    return listed_cards(user).exclude(disqualified())


def scored_cards(user, query: LeaderboardQuery) -> QuerySet[RunCard]:
    """The cards a ranking is made of, each with the scores it is shown with (`shown_*`: the whole card's, or one
    domain's) and a score in the standard's primary metric; not yet one per group (`leaderboard`)."""
    cards = view_cards(user, query).filter(scoring_standard=query.standard)
    if query.ranking:
        cards = cards.filter(is_secret=query.ranking == "official")
    return cards.filter(**{f"shown_{STANDARDS[query.standard]}__isnull": False})


def view_cards(user, query: LeaderboardQuery) -> QuerySet[RunCard]:
    """The cards of every ranking the filters other than `ranking` and `standard` allow, with their shown scores."""
    cards = ranked_cards(user)
    if query.pair:
        cards = cards.filter(dataset_version_id__in=versions_of_pair(query.pair))
    if query.dataset or query.version:
        # The version ids first (one subquery): joined to every card, the names cost a lookup per card.
        versions = DatasetVersion.objects.all()
        if query.dataset:
            versions = versions.filter(dataset__identifier=query.dataset)
        if query.version:
            versions = versions.filter(version=query.version)
        cards = cards.filter(dataset_version_id__in=versions.values("pk"))
    if query.segment:
        cards = cards.filter(segment=query.segment)
    if query.domain:
        cards = cards.annotate(
            in_domain=FilteredRelation("domain_scores", condition=Q(domain_scores__domain=query.domain))
        )
        cards = cards.filter(in_domain__isnull=False).annotate(
            domain_count=F("in_domain__result_count"), ranked_domain=Value(query.domain),
            **{f"shown_{name}": F(f"in_domain__{name}") for name in DOMAIN_METRICS},
        )
    else:
        shown = {name: F(name) for name in DOMAIN_METRICS} | {
            # Verification's leaderboard values: the claimed score, or the recomputed one when they disagree.
            "chrf_plus_plus": Coalesce(F("leaderboard_chrf_plus_plus"), F("chrf_plus_plus")),
            "composite": Coalesce(F("leaderboard_composite"), F("composite")),
            # Against the stored references; a card without per-entry rows has only its claim.
            "exact_match_rate": Coalesce(F("recomputed_exact_match_rate"), F("exact_match_rate"))}
        cards = cards.annotate(domain_count=F("result_count"), ranked_domain=Value(""),
                               **{f"shown_{name}": value for name, value in shown.items()})
    return cards


def leaderboard(user, query: LeaderboardQuery, start: int = 0, stop: int | None = None) -> list[tuple[int, int]]:
    """The rows ranked `start` to `stop` (all when None) as (card id, cards in its group): one row per method, setup
    and segment (its best card), ranked by the standard's primary metric — the claimed value, or the recomputed one
    when the claim disagrees with the card's results — or by that metric over one domain's entries when a domain is
    chosen. A claim nothing could recompute (a card without per-entry rows) never outranks a verified score.
    `query.ranking` keeps the official (secret-segment) or the open cards; `query` is taken as it is:
    `ranking_view` is what gives a ranking its one dataset version.

    Plain SQL around the ORM's selection of the cards, which keeps every visibility rule: the ORM's window filter
    sorts every card once more inside its subquery and selects every annotation; this sorts narrow rows once to
    rank inside the groups and once (its first rows only) to rank the groups."""
    metric = f"shown_{STANDARDS[query.standard]}"
    cards = scored_cards(user, query).annotate(
        ranked_id=F("pk"), ranked_method=F("method_id"), ranked_setup=setup_key(), ranked_segment=F("segment"),
        ranked_unverified=unverified_last(), ranked_score=F(metric), ranked_cost=F("shown_cost_adjusted"),
        ranked_at=F("submitted_at"),
    ).values("ranked_id", "ranked_method", "ranked_setup", "ranked_segment", "ranked_unverified", "ranked_score",
             "ranked_cost", "ranked_at").order_by()
    sql, params = cards.query.sql_with_params()
    cost = "ranked_cost DESC NULLS LAST, " if query.sort == "cost_adjusted" else ""
    group = "PARTITION BY ranked_method, ranked_setup, ranked_segment"
    ranked = (
        "SELECT ranked_id, group_size FROM (SELECT ranked_id, ranked_unverified, ranked_score, ranked_cost, ranked_at, "
        f"ROW_NUMBER() OVER ({group} ORDER BY ranked_unverified, ranked_score DESC NULLS LAST, ranked_at) AS place, "
        f"COUNT(*) OVER ({group}) AS group_size FROM ({sql}) AS cards) AS best WHERE place = 1 "
        f"ORDER BY ranked_unverified, {cost}ranked_score DESC NULLS LAST, ranked_at, ranked_id"
    )
    if stop is not None:
        ranked += " LIMIT %s"
        params = (*params, stop - start)
    if start:
        ranked += " OFFSET %s"
        params = (*params, start)
    with connection.cursor() as cursor:
        cursor.execute(ranked, params)
        return [(card_id, group_size) for card_id, group_size in cursor.fetchall()]


def ranked_rows(user, query: LeaderboardQuery, start: int, stop: int) -> list[RunCard]:
    """The cards ranked `start` to `stop`, each with the scores it is shown with, its group's size and whether its
    method is Community Validated: ranked on narrow rows (`leaderboard`), then the page's cards read whole by id."""
    ranked = leaderboard(user, query, start, stop)
    validated_methods = RunCard.objects.filter(method_id__isnull=False, community_validated_at__isnull=False).values(
        "method_id")
    cards = scored_cards(user, query).filter(pk__in=[card_id for card_id, _ in ranked]).annotate(
        method_validated=ExpressionWrapper(Q(method_id__in=validated_methods), output_field=BooleanField()),
    ).select_related("method", "dataset_version__dataset").defer(*LARGE_FIELDS).in_bulk()
    rows: list[RunCard] = []
    for card_id, group_size in ranked:
        card = cards[card_id]
        setattr(card, "group_size", group_size)  # noqa: B010 (an annotation row_view reads, not a field)
        rows.append(card)
    return rows


@dataclass(frozen=True)
class VersionChoice:
    """A dataset version some ranking is of, with how many of its cards are verified against the stored corpus."""

    dataset: str
    version: str
    language_pair: str
    pair: str
    verified: int
    cards: int

    @property
    def label(self) -> str:
        return f"{self.language_pair} · {self.dataset} {self.version}"


@dataclass(frozen=True)
class RankingView:
    """What a leaderboard shows: `query` with its one dataset version filled in (scope `version`), whether that
    version was picked because nothing named one (`picked`), and the versions there are to choose from."""

    query: LeaderboardQuery
    picked: bool
    choices: list[VersionChoice]

    @property
    def chosen(self) -> VersionChoice | None:
        return next((choice for choice in self.choices if (choice.dataset, choice.version)
                     == (self.query.dataset, self.query.version)), None) if self.query.scope == "version" else None


def version_choices(user, stamp: str | None = READ_STAMP) -> list[VersionChoice]:
    """Every dataset version with a card in some ranking, the one with the most verified cards first (then the most
    cards, then the newest): one grouped query, cached under the state stamp for everyone who sees the public
    listing."""
    def compute() -> list[VersionChoice]:
        # Grouped by the version's id alone, its names read after: grouped by them, every card joins its version.
        counts = {row["dataset_version_id"]: row for row in ranked_cards(user).values("dataset_version_id").annotate(
            verified=Count("pk", filter=Q(status=RunCard.Status.READY, corpus_mismatches=0)),
            cards=Count("pk")).order_by()}
        versions = DatasetVersion.objects.filter(pk__in=counts).select_related("dataset").only(
            "dataset__identifier", "version", "language_pair", "source_language", "target_language", "imported_at")
        ordered = sorted(versions, key=lambda version: (-counts[version.pk]["verified"], -counts[version.pk]["cards"],
                                                        -version.imported_at.timestamp(), version.pk))
        return [VersionChoice(version.dataset.identifier, version.version, version.language_pair,
                              version_pair_key(version.language_pair, version.source_language,
                                               version.target_language) or "",
                              counts[version.pk]["verified"], counts[version.pk]["cards"]) for version in ordered]

    if stamp is READ_STAMP:
        stamp = public_stamp(user)
    return cached_under(stamp, "versions", compute)


def ranking_view(user, query: LeaderboardQuery, stamp: str | None = READ_STAMP) -> RankingView:
    """The dataset version a ranking is of. Scope `version` (the default): the one named by `dataset` and `version`,
    or — when they do not name one — the version with the most verified cards among those the other filters
    (pair, dataset, version) allow, so that a first visitor lands on a ranking with rows whenever cards exist.
    Scopes `pair` and `all` (rankings across versions or pairs) are only ever asked for, never picked."""
    choices = version_choices(user, stamp)
    if query.scope != "version" or (query.dataset and query.version):
        return RankingView(query, False, choices)
    allowed = [choice for choice in choices
               if (not query.pair or choice.pair == query.pair)
               and (not query.dataset or choice.dataset == query.dataset)
               and (not query.version or choice.version == query.version)]
    if not allowed:
        return RankingView(query, False, choices)
    # The version is of the pair asked for (if any): its rankings need no second reading of the pair.
    return RankingView(query.but(dataset=allowed[0].dataset, version=allowed[0].version, language_pair=""), True,
                       choices)


def clustered(query: LeaderboardQuery) -> bool:
    """Rank clusters are of a chrF++ ranking: the legacy composite's inputs are plugin aggregates no bootstrap of
    the entries reproduces, and a cost-adjusted order is not chrF++'s."""
    return STANDARDS[query.standard] == "chrf_plus_plus" and query.sort == "primary"


def rank_clusters(user, query: LeaderboardQuery, upto: int) -> dict[str, int]:
    """Row id → rank cluster (ranking.rank_clusters) of the first `upto` rows of this filter's ranking, in rank order:
    a row's cluster depends on every row above it, and on nothing below, so a page needs only the rows down to its
    last (a first page at 10,000 cards costs 50 paired bootstraps, not 10,000). One query reads the rows' per-entry
    statistics (a domain filter adds one for that domain's entries); nothing of them leaves this function but the
    cluster numbers."""
    if not clustered(query):
        return {}
    order = [card_id for card_id, _ in leaderboard(user, query, 0, upto)]
    read = {card_id: (public_id, version, blob) for card_id, public_id, version, blob in RunCard.objects.filter(
        pk__in=order).values_list("pk", "public_id", "dataset_version_id", "chrf_statistics")}
    ranked = [read[card_id] for card_id in order]
    only = None
    if query.domain:
        only = np.fromiter(Entry.objects.filter(version_id__in={version for _, version, _ in ranked},
                                                domain=query.domain).values_list("pk", flat=True), dtype=np.int64)
    clusters = ranking.rank_clusters([ranking.unpack_statistics(blob) for _, _, blob in ranked], only)
    return {str(public_id): cluster for (public_id, _, _), cluster in zip(ranked, clusters, strict=True)
            if cluster is not None}


def whole_answer_key(kind: str, address: str) -> str | None:
    """The cache key of a whole answer (the page, the API's JSON) shared by everyone who sees what a visitor sees:
    under the state stamp (leaderboard_page says why never stale), per interface language and address; None
    before the stamp exists."""
    stamp = leaderboard_stamp()
    if stamp is None:
        return None
    return f"leaderboard-{kind}:{stamp}:{language_cache_key()}:{hashlib.sha256(address.encode()).hexdigest()[:32]}"


def other_standard(user, query: LeaderboardQuery) -> tuple[str, int] | None:
    """When a ranking is empty: the other standard and how many listed cards it ranks (standards are never mixed,
    so a visitor of the default standard/1 ranking learns where legacy-composite cards are), or None."""
    other = next(standard for standard in STANDARDS if standard != query.standard)
    count = listed_cards(user).filter(scoring_standard=other).count()
    return (other, count) if count else None


# Entries under an older stamp are never read again; they only wait to expire.
LEADERBOARD_CACHE_SECONDS = 600


def shares_public_view(user) -> bool:
    """Whether `user` sees exactly what an anonymous visitor sees on the leaderboard: no role that widens it
    (curators and governance staff also see their own unpublished or withdrawn datasets' cards). One cached
    answer serves all of them."""
    return not secret_reader_org_ids(user) and not governance_org_ids(user)


# Read on every view of the leaderboard, page or API, before anything else: compiled once (common.compiled).
_STAMP = CompiledQuery(lambda: LeaderboardState.objects.filter(pk=1).order_by().values_list("stamp"))


def leaderboard_stamp() -> str | None:
    """The state stamp (None when its row is missing, e.g. after a flush: then nothing is cached)."""
    row = _STAMP.first()
    return None if row is None else row[0]


@dataclass(frozen=True)
class LeaderboardPage:
    rows: list[dict[str, Any]]
    page: Page
    # What the page's rendered ranking may be cached under (it names the active language: the rendering is
    # translated, the rows are not); None: not to be cached.
    cache_key: str | None


def filters_key(query: LeaderboardQuery) -> str:
    return hashlib.sha256(json.dumps({k: v for k, v in asdict(query).items() if k != "errors"},
                                     sort_keys=True).encode()).hexdigest()[:32]


def cached_under(stamp: str | None, name: str, compute: Callable[[], Any]) -> Any:
    """`compute()`, cached under the state stamp (never when there is none: the reader sees more than the public)."""
    if stamp is None:
        return compute()
    key = f"leaderboard:{stamp}:{name}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, LEADERBOARD_CACHE_SECONDS)
    return value


def row_counts(user, query: LeaderboardQuery) -> dict[tuple[str, str], int]:
    """(ranking, standard) → how many rows `leaderboard` gives each ranking of `query`'s filters: one per group
    (method, setup, segment) with a score in its standard's metric. One grouped query for the four, none of
    them ranking the cards inside a group."""
    group = Concat(Coalesce(Cast("method_id", CharField()), Value("")), Value("|"), setup_key(), Value("|"),
                   F("segment"), output_field=CharField())
    scored = Q()
    for standard, metric in STANDARDS.items():
        scored |= Q(scoring_standard=standard, **{f"shown_{metric}__isnull": False})
    counted = {(is_secret, standard): rows for is_secret, standard, rows in view_cards(user, query).filter(
        scored).values("is_secret", "scoring_standard").annotate(rows=Count(group, distinct=True)).order_by(
        ).values_list("is_secret", "scoring_standard", "rows")}
    return {(kind, standard): counted.get((kind == "official", standard), 0)
            for kind in RANKINGS for standard in STANDARDS}


def view_counts(user, query: LeaderboardQuery, stamp: str | None) -> dict[tuple[str, str], int]:
    """`row_counts`, cached under the state stamp."""
    return cached_under(stamp, f"{filters_key(query.but(ranking='', standard=DEFAULT_STANDARD))}:counts",
                        lambda: row_counts(user, query))


def public_stamp(user) -> str | None:
    """The state stamp answers are cached under for `user` (None: nothing is cached for them); read once per
    request and handed to each ranking a page shows."""
    return leaderboard_stamp() if shares_public_view(user) else None


def leaderboard_page(user, query: LeaderboardQuery, number, *, per_page: int = 50, strict: bool = False,
                     stamp: str | None = READ_STAMP, count: int | None = None) -> LeaderboardPage:
    """One page of ranked rows and its `Page` (for the pager), for the page and the API alike.

    For everyone who `shares_public_view`, the count and each page's rows are cached under the leaderboard's
    state stamp, read first: a write that changes the listing changes the stamp in its own transaction, so no
    answer computed before it is served after it (`cache_key` carries the stamp for the rendered ranking).
    `strict` raises `InvalidPage` for a page that does not exist (the API's 404) instead of showing the nearest
    one. `count`: the ranking's rows when the caller has them (`view_counts`)."""
    if stamp is READ_STAMP:
        stamp = public_stamp(user)
    filters = filters_key(query)

    def cached(name: str, compute: Callable[[], Any]) -> Any:
        return cached_under(stamp, f"{filters}:{name}", compute)

    if count is None and query.ranking:
        count = view_counts(user, query, stamp)[(query.ranking, query.standard)]
    elif count is None:
        # Both rankings at once: a group is of one segment, so of one ranking.
        count = sum(rows for (_, standard), rows in view_counts(user, query, stamp).items()
                    if standard == query.standard)
    paginator = Paginator(range(count), per_page)
    page = paginator.page(number) if strict else paginator.get_page(number)
    offset = (page.number - 1) * per_page
    name = f"rows:{per_page}:{page.number}"
    # Of the ranking down to this page's last row, and only when a page's rows are computed.
    clusters = functools.cache(lambda: cached(f"clusters:{offset + per_page}",
                                              lambda: rank_clusters(user, query, offset + per_page)))

    def rows_of_page() -> list[dict[str, Any]]:
        bands = tier_bands()
        cards = ranked_rows(user, query, offset, offset + per_page)
        labels = labels_by_version({card.dataset_version_id: card.dataset_version.dataset_id for card in cards})
        return [row_view(card, offset + index, clusters().get(str(card.public_id)) if clustered(query) else None,
                         bands=bands, labels=labels.get(card.dataset_version_id, []))
                for index, card in enumerate(cards, 1)]

    rows = cached(name, rows_of_page) if paginator.count else []
    return LeaderboardPage(rows, page, None if stamp is None else f"{stamp}:{language_cache_key()}:{filters}:{name}")


@dataclass(frozen=True)
class RankingSection:
    """One ranking of a view: official or open, of one scoring standard."""

    query: LeaderboardQuery
    ranked: LeaderboardPage

    @property
    def count(self) -> int:
        return self.ranked.page.paginator.count


# Rows a ranking shows when several are on one page (each links to itself alone, paged).
SECTION_ROWS = 20


def ranking_sections(user, view: RankingView, number, *, per_page: int = 50,
                     stamp: str | None = READ_STAMP) -> list[RankingSection]:
    """The rankings a view shows, official before open and standard/1 before legacy-composite: the one asked for
    (ranking and standard both given), paged; otherwise each that has rows, its first SECTION_ROWS rows."""
    rankings = [view.query.ranking] if view.query.ranking else list(RANKINGS)
    standards = [view.query.standard] if view.query.standard_given else list(STANDARDS)
    single = len(rankings) * len(standards) == 1
    counts = ranking_counts(user, view, stamp)
    sections = []
    for kind in rankings:
        for standard in standards:
            if not (counts[(kind, standard)] or single):
                continue
            query = view.query.but(ranking=kind, standard=standard)
            sections.append(RankingSection(query, leaderboard_page(
                user, query, number if single else 1, per_page=per_page if single else SECTION_ROWS, stamp=stamp,
                count=counts[(kind, standard)])))
    return sections


def ranking_counts(user, view: RankingView, stamp: str | None) -> dict[tuple[str, str], int]:
    """(ranking, standard) → rows of each ranking of the view."""
    return view_counts(user, view.query, stamp)


NOT_APPROVED = ("reject", "revoke")


def community_review(card: RunCard) -> dict[str, Any] | None:
    """The community's decision in force on the card: `approved` or `not_approved` (a rejection, or an approval
    revoked) with its date, and how many of the ratings it was taken on their speakers withdrew since (the evidence
    changed after the decision); None while it was never decided."""
    if not card.community_review:
        return None
    return {"outcome": "not_approved" if card.community_review in NOT_APPROVED else "approved",
            "decided_at": card.community_reviewed_at,
            "ratings_withdrawn_since": card.community_review_withdrawn}


def recomputed_score(card: RunCard) -> dict[str, Any] | None:
    """The ranking score's claim and the value results[] give, when they disagree and the row shows the recomputed
    one; None otherwise."""
    if not card.primary_recomputed:
        return None
    if card.scoring_standard == "legacy-composite":
        return {"metric": "composite", "claimed": card.composite, "recomputed": card.leaderboard_composite}
    return {"metric": "chrf_plus_plus", "claimed": card.chrf_plus_plus, "recomputed": card.leaderboard_chrf_plus_plus}


BandsByPair = dict[tuple[int, str], dict[str, float]]


def tier_bands() -> BandsByPair:
    """(steward organization id, pair key) → the quality-tier bands its governance staff set for that pair; pairs not
    in it use the default bands (benchmark specification §5)."""
    return {(organization_id, pair): {"emerging": emerging, "functional": functional, "deployable": deployable,
                                      "fluent": fluent}
            for organization_id, pair, emerging, functional, deployable, fluent in TierBands.objects.values_list(
                "organization_id", "language_pair", "emerging", "functional", "deployable", "fluent")}


def bands_of(version: DatasetVersion, bands: BandsByPair | None = None) -> dict[str, float]:
    """The quality-tier bands that apply to cards on `version`: its steward's for its language pair, else the
    default ones. `bands`: tier_bands(), when many versions are looked up at once."""
    pair = version_pair_key(version.language_pair, version.source_language, version.target_language) or ""
    key = (version.dataset.organization_id, pair)
    if bands is None:
        found = TierBands.objects.filter(organization_id=key[0], language_pair=pair).first()
        return found.bounds() if found is not None else DEFAULT_TIER_BANDS
    return bands.get(key, DEFAULT_TIER_BANDS)


def review_badge(card: RunCard, tier: str | None, validated: bool) -> str | None:
    """The one community-review badge a row carries: `validated` (the method passed community review), `approved` or
    `not_approved` (the decision in force on this card), `provisional` (a Deployable or Fluent tier nobody decided on
    yet: "provisional — awaiting community review"), or None."""
    if validated:
        return "validated"
    if card.community_review:
        return "not_approved" if card.community_review in NOT_APPROVED else "approved"
    return "provisional" if tier in ("Deployable", "Fluent") else None


def row_view(card: RunCard, rank: int | None, cluster: int | None = None, *,
             bands: BandsByPair | None = None, labels: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The columns of SPEC §7 for one leaderboard row, with standard/1's interval, signature and rank cluster.
    With a domain filter the scores are that domain's, recomputed: the whole card's interval and claims do not
    apply to them. The quality tier is read with the bands of the card's pair (`bands`: tier_bands())."""
    whole_card = not getattr(card, "ranked_domain", "")
    composite = getattr(card, "shown_composite", card.leaderboard_composite
                        if card.leaderboard_composite is not None else card.composite)
    tier = quality_tier(composite, bands_of(card.dataset_version, bands))
    # Provisional until the method (any of its cards) is Community Validated.
    validated = card.verification_tier == "Community Validated" or getattr(card, "method_validated", False)
    badge = review_badge(card, tier, validated)
    method = card.method
    return {
        "rank": rank,
        "id": str(card.public_id),
        "method": method.name if method else f"{card.model_slug} · {card.condition}",
        "method_class": method.method_class if method else None,
        "dependency_class": method.dependency_class if method and method.dependency_class else None,
        "external_dependency": bool(method and method.dependency_class == "A2"),
        "model": card.model_id or card.model_slug,
        "configuration": None if method else {
            "model": card.model_slug, "condition": card.condition, "temperature": card.temperature,
            "tools_enabled": card.tools_enabled, "system_prompt_sha256": card.system_prompt_sha256[:12],
        },
        "composite": composite,
        "chrf_plus_plus": getattr(card, "shown_chrf_plus_plus", card.leaderboard_chrf_plus_plus
                                  if card.leaderboard_chrf_plus_plus is not None else card.chrf_plus_plus),
        "chrf_ci": {"lower": card.chrf_ci_lower, "upper": card.chrf_ci_upper, "source": card.chrf_ci_source}
        if whole_card and card.chrf_ci_lower is not None and card.chrf_ci_upper is not None else None,
        "sacrebleu_signature": card.chrf_signature or None,
        "recomputed_score": recomputed_score(card) if whole_card else None,
        "rank_cluster": cluster,
        "fst_acceptance_rate": getattr(card, "shown_fst_acceptance_rate", card.fst_acceptance_rate),
        "exact_match_rate": getattr(card, "shown_exact_match_rate", card.recomputed_exact_match_rate
                                    if card.recomputed_exact_match_rate is not None else card.exact_match_rate),
        "semantic_score": getattr(card, "shown_semantic_score", card.semantic_score),
        "cost_per_entry_usd": card.cost_per_entry_usd,
        "avg_latency_seconds": card.avg_latency_seconds,
        "cost_adjusted": getattr(card, "shown_cost_adjusted", card.cost_adjusted),
        "quality_tier": tier,
        # One badge: "provisional — awaiting community review" ends once governance decided, either way.
        "review_badge": badge,
        "quality_tier_provisional": badge == "provisional",
        "community_review": community_review(card),
        "verification_tier": card.verification_tier,
        "scoring_standard": card.scoring_standard,
        "dataset": card.dataset_version.dataset.identifier,
        "dataset_version": card.dataset_version.version,
        "language_pair": card.dataset_version.language_pair,
        "ranking": "official" if card.is_secret else "open",
        "segment": card.segment,
        "entries_scored": getattr(card, "domain_count", card.result_count),
        "cards_in_group": getattr(card, "group_size", 1),
        "discrepancy_count": len(card.discrepancies),
        "date": card.timestamp,
        "withdrawn": getattr(card, "evaluation_withdrawn", False),
        # Published without its per-entry rows: its scores are its own claims, nothing recomputed them.
        "unverified": card.status == RunCard.Status.UNVERIFIED,
        # Scored against the stored corpus, but some of its rows' texts are not the stored ones: never verified.
        "corpus_mismatches": card.corpus_mismatches,
        # The card's declaration of the development entries its method used (None: it declares nothing).
        "development_data": card.development_data,
        "verified_against_corpus": card.matches_corpus,
        # The Local Contexts labels and notices of its data (corpus.label_selectors.labels_by_version).
        "labels": labels or [],
    }


def visible_card(user, public_id) -> RunCard | None:
    """A listed card, or one of the user's own cards still verifying or failed, while its dataset's
    community consents to evaluation."""
    return listed_cards(user).select_related("method", "dataset_version__dataset__organization").filter(
        public_id=public_id).first() or RunCard.objects.filter(evaluation_consented(user)).filter(
        public_id=public_id, submitted_by=user.pk if user.is_authenticated else None).first()


def withdrawn_card(public_id) -> Withdrawal | None:
    """A card hidden only because its community revoked consent (to evaluation or to public release): the
    `corpus.selectors.withdrawal` of its dataset, for a clear "withdrawn" answer (410) instead of a bare 404.
    Cards of datasets that were never public stay a plain 404."""
    card = RunCard.objects.filter(public_id=public_id).exclude(method__dependency_class="X").select_related(
        "dataset_version__dataset__organization").first()
    return withdrawal(card.dataset_version.dataset if card is not None else None,
                      uses=(ConsentUse.EVALUATION, ConsentUse.PUBLIC_RELEASE))


def shown_results(user, results: Iterable[RunCardResult], *, where: str) -> list[RunCardResult]:
    """Results as a response shows them, with the audit event of the secret entries among them recorded in the
    same call (`corpus.selectors.shown_entries`)."""
    shown = list(results)
    shown_entries(user, (result.entry for result in shown), where=where)
    return shown


def visible_results(user, card: RunCard) -> QuerySet[RunCardResult]:
    return card.results.filter(mt_output_visibility(user)).select_related("entry__version__dataset").order_by(
        "position")


def same_setup_cards(user, card: RunCard) -> QuerySet[RunCard]:
    # A card whose method was deleted (SET_NULL) matches the other method-less cards, as `method_id=None` did
    same_method = Q(method__isnull=True) if card.method_id is None else Q(method_id=card.method_id)
    return listed_cards(user).filter(same_method).alias(setup=setup_key()).filter(
        setup=card.setup_fingerprint or card.fingerprint).exclude(pk=card.pk).defer("raw", "chrf_statistics").order_by(
        "-submitted_at")


def active_disqualification(*, run_card: RunCard | None = None, method=None) -> Disqualification | None:
    """The disqualification in force on a card (its own, or its method's) or on a method; None when there is none."""
    if run_card is not None:
        method = run_card.method
        targets = Q(run_card=run_card) | (Q(method=method) if method is not None else Q(pk__in=[]))
    elif method is not None:
        targets = Q(method=method)
    else:
        return None
    return (Disqualification.objects.filter(targets, lifted_at__isnull=True)
            .select_related("run_card", "method").order_by("-disqualified_at").first())


def disqualification_history(*, run_card: RunCard | None = None, method=None) -> QuerySet[Disqualification]:
    """Every disqualification of a card (and its method) or of a method, lifted or not, newest first."""
    if run_card is not None:
        targets = Q(run_card=run_card) | (Q(method_id=run_card.method_id) if run_card.method_id else Q(pk__in=[]))
    else:
        targets = Q(method=method)
    return Disqualification.objects.filter(targets).order_by("-disqualified_at")


# Conflicts of interest.

def conflicts_of(run_card: RunCard) -> dict[int, str]:
    """The accounts in conflict of interest with a run card, each with why (the first reason that applies): its
    submitter, its method's submitter, and whoever declared a conflict with the card or its method (declarations
    in force). Never in a review pool of the card; never the one who records its decision. Two queries."""
    declared = Q(run_card_id=run_card.pk)
    if run_card.method_id is not None:
        declared |= Q(method_id=run_card.method_id)
    reasons: dict[int, str] = {}
    for user_id, reason in (ConflictDeclaration.objects.filter(declared, withdrawn_at__isnull=True)
                            .order_by("declared_at", "pk").values_list("user_id", "reason")):
        reasons.setdefault(user_id, gettext("declared a conflict of interest (%(reason)s)") % {"reason": reason})
    if run_card.method_id is not None:
        author = Method.objects.filter(pk=run_card.method_id).values_list("submitted_by_id", flat=True).first()
        if author is not None:
            reasons[author] = gettext("submitted the run card's method")
    reasons[run_card.submitted_by_id] = gettext("submitted the run card")
    return reasons


def conflicted_account_ids(run_card: RunCard) -> set[int]:
    return set(conflicts_of(run_card))


def own_conflict(user, *, run_card: RunCard | None = None,
                 method: Method | None = None) -> ConflictDeclaration | None:
    """The signed-in user's declaration in force on the card or the method, if they made one."""
    if not user.is_authenticated:
        return None
    target: dict[str, Any] = {"run_card": run_card} if run_card is not None else {"method": method}
    return ConflictDeclaration.objects.filter(user=user, withdrawn_at__isnull=True, **target).first()
