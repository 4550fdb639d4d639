"""How listed cards rank: the cards of a filter with the scores they are shown with, one row per method, setup and
segment, how many rows each ranking has, the cards of a page and their rank clusters."""

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import EmptyResultSet
from django.db import connection
from django.db.models import BooleanField, Case, ExpressionWrapper, F, FilteredRelation, Q, QuerySet, Value, When
from django.db.models.functions import Coalesce

from common.compiled import CompiledQuery
from corpus.models import DatasetVersion, Entry

from .. import ranking
from ..models import RunCard
from .caching import shares_public_view
from .listing import listed_cards, marked_withdrawn, ranked_cards, setup_key, unverified_last, versions_of_pair
from .query import STANDARDS, LeaderboardQuery

# Never needed for a row, and large: carrying them through the ranking's sort spills it to disk.
LARGE_FIELDS = ("raw", "method_config", "dataset_version__envelope", "method__card", "method__manifest",
                "chrf_statistics")
DOMAIN_METRICS = ("composite", "chrf_plus_plus", "exact_match_rate", "fst_acceptance_rate", "semantic_score",
                  "cost_adjusted")


def shown_scores(cards: QuerySet[RunCard], query: LeaderboardQuery) -> QuerySet[RunCard]:
    """`cards` with the scores each is shown with (`shown_*`): the whole card's, or those of the domain `query` names
    (cards without that domain's entries left out)."""
    if query.domain:
        cards = cards.annotate(
            in_domain=FilteredRelation("domain_scores", condition=Q(domain_scores__domain=query.domain))
        )
        return cards.filter(in_domain__isnull=False).annotate(
            domain_count=F("in_domain__result_count"), ranked_domain=Value(query.domain),
            **{f"shown_{name}": F(f"in_domain__{name}") for name in DOMAIN_METRICS},
        )
    shown = {name: F(name) for name in DOMAIN_METRICS} | {
        # Verification's leaderboard values: the claimed score, or the recomputed one when they disagree.
        "chrf_plus_plus": Coalesce(F("leaderboard_chrf_plus_plus"), F("chrf_plus_plus")),
        "composite": Coalesce(F("leaderboard_composite"), F("composite")),
        # Against the stored references; a card without per-entry rows has only its claim.
        "exact_match_rate": Coalesce(F("recomputed_exact_match_rate"), F("exact_match_rate"))}
    return cards.annotate(domain_count=F("result_count"), ranked_domain=Value(""),
                          **{f"shown_{name}": value for name, value in shown.items()})


@dataclass(frozen=True)
class Ranked:
    """Rows of one ranking from some place on, as (card id, cards in its group), and how many rows it has."""

    count: int
    rows: list[tuple[int, int]]


# (ranking, standard): which cards one ranking is of.
Kind = tuple[str, str]

# One ranking of the view's cards (the ORM's selection, `{cards}`, narrowed to the view's versions and segment,
# `{narrowed}`): the best card of each method, setup and segment, how many cards its group holds (its place and its
# size in one window, whose frame is the whole group: one pass), and how many rows the ranking has (over every row,
# before the LIMIT).
RANKING_SQL = (
    "SELECT ranked_id, group_size, COUNT(*) OVER () FROM (SELECT ranked_id, ranked_unverified, ranked_score, "
    "ranked_cost, ranked_at, ROW_NUMBER() OVER in_group AS place, COUNT(*) OVER in_group AS group_size "
    "FROM ({cards}) AS cards WHERE ranked_secret = %s AND ranked_standard = %s{narrowed} "
    "WINDOW in_group AS ({group} ORDER BY ranked_unverified, ranked_score DESC NULLS LAST, ranked_at "
    "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) AS best WHERE place = 1 "
    "ORDER BY ranked_unverified, {cost}ranked_score DESC NULLS LAST, ranked_at, ranked_id LIMIT %s OFFSET %s"
)


def group_partition() -> str:
    """The window of a group. Its setup first, in PostgreSQL's "C" collation: sorting by a byte-compared text first
    lets PostgreSQL compare the cards by a short prefix of it (abbreviated keys), and a group is the same group in
    any collation; a fifth of the ranking's time at 10,000 cards of as many setups."""
    setup = 'ranked_setup COLLATE "C"' if connection.vendor == "postgresql" else "ranked_setup"
    return f"PARTITION BY {setup}, ranked_method, ranked_segment"


def primary_score() -> Case:
    """The score a card is ranked by: its standard's primary metric, as shown (`shown_scores`)."""
    return Case(*[When(scoring_standard=standard, then=F(f"shown_{metric}")) for standard, metric in STANDARDS.items()])


def selection(user, query: LeaderboardQuery, standards: frozenset[str]) -> QuerySet:
    """The narrow rows the rankings of `standards` are made of, one per card ranked for `user` (`ranked_cards`: every
    visibility rule) that has a shown primary score: its id, version, the group's keys and what it is ranked by.
    Of the view's filters only the domain is here (it changes the scores shown); its versions and segment are
    `narrowed`, so that the public view's selection is one statement for every view (`selection_sql`)."""
    scored = Q()
    for standard in sorted(standards):
        scored |= Q(scoring_standard=standard, **{f"shown_{STANDARDS[standard]}__isnull": False})
    return shown_scores(ranked_cards(user), query).filter(scored).annotate(
        ranked_id=F("pk"), ranked_version=F("dataset_version_id"), ranked_secret=F("is_secret"),
        ranked_standard=F("scoring_standard"), ranked_method=F("method_id"), ranked_setup=setup_key(),
        ranked_segment=F("segment"), ranked_unverified=unverified_last(), ranked_score=primary_score(),
        ranked_cost=F("shown_cost_adjusted"), ranked_at=F("submitted_at"),
    ).values("ranked_id", "ranked_version", "ranked_secret", "ranked_standard", "ranked_method", "ranked_setup",
             "ranked_segment", "ranked_unverified", "ranked_score", "ranked_cost", "ranked_at").order_by()


def _public_selection(standards: frozenset[str]) -> CompiledQuery:
    """A function rather than a lambda in the comprehension below, so that each compiled query keeps its own set."""
    return CompiledQuery(lambda: selection(AnonymousUser(), LeaderboardQuery(), standards))


# The selection of everyone who shares the public view, for each set of standards a view's rankings may be of,
# compiled once per connection (common.compiled): building and compiling it cost about 4 ms of Python per cold
# request, a quarter of what PostgreSQL then spends ranking 10,000 cards. Like the version list's statement, it holds
# as long as `ranked_cards` depends on nothing of the moment or of the request but the reader's roles.
_PUBLIC_SELECTIONS = {frozenset(standards): _public_selection(frozenset(standards))
                      for size in range(1, len(STANDARDS) + 1) for standards in itertools.combinations(STANDARDS, size)}


def selection_sql(user, query: LeaderboardQuery, standards: frozenset[str]) -> tuple[str, Sequence]:
    """`selection`'s SQL and parameters: the compiled public one for whoever shares the public view (a domain's
    scores excepted), otherwise built for `user` and `query`."""
    if not query.domain and shares_public_view(user):
        return _PUBLIC_SELECTIONS[standards].sql()
    return selection(user, query, standards).query.sql_with_params()


def narrowed(query: LeaderboardQuery) -> tuple[str, list]:
    """The view's versions (its pair, dataset and version) and segment as conditions on a selection's columns, for
    the ranking's WHERE (each starting with AND; "" when the view has none). Raises EmptyResultSet when no version
    can pass (a language pair no version is of)."""
    conditions: list[str] = []
    params: list[Any] = []
    if query.pair or query.dataset or query.version:
        # The version ids first (one subquery): joined to every card, the names cost a lookup per card.
        versions = DatasetVersion.objects.all()
        if query.pair:
            versions = versions.filter(pk__in=versions_of_pair(query.pair))
        if query.dataset:
            versions = versions.filter(dataset__identifier=query.dataset)
        if query.version:
            versions = versions.filter(version=query.version)
        sql, version_params = versions.values("pk").query.sql_with_params()
        conditions.append(f"ranked_version IN ({sql})")
        params.extend(version_params)
    if query.segment:
        conditions.append("ranked_segment = %s")
        params.append(query.segment)
    return "".join(f" AND {condition}" for condition in conditions), params


def rankings(user, query: LeaderboardQuery, ranges: dict[Kind, tuple[int, int]]) -> dict[Kind, Ranked]:
    """Each ranking's rows from `start` to `stop` (`ranges`: (ranking, standard) → (start, stop)) and how many rows
    it has: one row per method, setup and segment (its best card), ranked by the standard's primary metric — the
    claimed value, or the recomputed one when the claim disagrees with the card's results — or by that metric over
    one domain's entries when a domain is chosen. A claim nothing could recompute (a card without per-entry rows)
    never outranks a verified score. `query` is taken as it is: `ranking_view` is what gives a ranking its one
    dataset version; its `ranking` and `standard` are those of `ranges`.

    Plain SQL around the ORM's selection of the cards (`selection`), which keeps every visibility rule and serves
    every ranking asked for: each ranking then sorts its narrow rows (ids, group keys, scores, read from the index
    `runcard_listed`) once to rank inside the groups and counts its rows in the same statement; only its first rows
    are sorted to rank the groups."""
    try:
        conditions, narrowing = narrowed(query)
        sql, params = selection_sql(user, query, frozenset(standard for _, standard in ranges))
    except EmptyResultSet:  # a filter no card can pass (a language pair no version is of)
        return {kind: Ranked(0, []) for kind in ranges}
    statement = RANKING_SQL.format(cards=sql, narrowed=conditions, group=group_partition(),
                                   cost="ranked_cost DESC NULLS LAST, " if query.sort == "cost_adjusted" else "")
    found = {}
    with connection.cursor() as cursor:
        def run(kind: Kind, start: int, stop: int) -> list[tuple[int, int, int]]:
            cursor.execute(statement, (*params, kind[0] == "official", kind[1], *narrowing, stop - start, start))
            return cursor.fetchall()

        for kind, (start, stop) in ranges.items():
            rows = run(kind, start, stop)
            # Past its last row: the count is read from its first.
            counted = rows or (run(kind, 0, 1) if start else [])
            found[kind] = Ranked(counted[0][2] if counted else 0, [(card_id, size) for card_id, size, _ in rows])
    return found


def page_cards(user, query: LeaderboardQuery, card_ids: list[int]) -> QuerySet[RunCard]:
    """The cards of `card_ids` whole (but for LARGE_FIELDS), each with the scores it is shown with, whether its
    method is Community Validated and (for governance staff) whether it is withdrawn."""
    validated_methods = RunCard.objects.filter(method_id__isnull=False, community_validated_at__isnull=False).values(
        "method_id")
    return marked_withdrawn(user, shown_scores(RunCard.objects.filter(pk__in=card_ids), query)).annotate(
        method_validated=ExpressionWrapper(Q(method_id__in=validated_methods), output_field=BooleanField()),
    ).select_related("method", "dataset_version__dataset").defer(*LARGE_FIELDS)


# The most rows a page reads whole: a page of the leaderboard or of the API (REST_FRAMEWORK's PAGE_SIZE).
PAGE_ROWS = 50

# The public view's cards of a page (no domain), compiled once per connection with a slot for each of PAGE_ROWS ids
# (a shorter page repeats its first id, which reads the card once): building and compiling `page_cards` cost
# about 1.5 ms of Python per cold request, more than PostgreSQL spends reading the cards.
_PUBLIC_PAGE_CARDS = CompiledQuery(lambda **card_ids: page_cards(AnonymousUser(), LeaderboardQuery(),
                                                                 list(card_ids.values())),
                                   **{f"card_{index}": int for index in range(PAGE_ROWS)})


def ranked_rows(user, query: LeaderboardQuery, ranked: list[tuple[int, int]]) -> list[RunCard]:
    """The cards of `ranked` rows (`rankings`), in their order, as `page_cards` reads them, each with its group's
    size: read whole by id, as `rankings` selected them through every visibility rule in the same request."""
    card_ids = [card_id for card_id, _ in ranked]
    if card_ids and len(card_ids) <= PAGE_ROWS and not query.domain and shares_public_view(user):
        padded = card_ids + card_ids[:1] * (PAGE_ROWS - len(card_ids))
        slots: dict[str, Any] = {f"card_{index}": card_id for index, card_id in enumerate(padded)}
        cards = {card.pk: card for card in _PUBLIC_PAGE_CARDS.objects(**slots)}
    else:
        cards = page_cards(user, query, card_ids).in_bulk()
    rows: list[RunCard] = []
    for card_id, group_size in ranked:
        card = cards[card_id]
        setattr(card, "group_size", group_size)  # noqa: B010 (an annotation row_view reads, not a field)
        rows.append(card)
    return rows


def clustered(query: LeaderboardQuery) -> bool:
    """Rank clusters are of a chrF++ ranking: the legacy composite's inputs are plugin aggregates no bootstrap of
    the entries reproduces, and a cost-adjusted order is not chrF++'s."""
    return STANDARDS[query.standard] == "chrf_plus_plus" and query.sort == "primary"


def rank_clusters(query: LeaderboardQuery, order: list[int]) -> dict[str, int]:
    """Row id → rank cluster (ranking.rank_clusters) of the ranking's first rows, `order` (card ids in rank order): a
    row's cluster depends on every row above it, and on nothing below, so a page needs only the rows down to its last
    (a first page at 10,000 cards costs 50 paired bootstraps, not 10,000). One query reads the rows' per-entry
    statistics (a domain filter adds one for that domain's entries); nothing of them leaves this function but the
    cluster numbers."""
    if not clustered(query):
        return {}
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


def other_standard(user, query: LeaderboardQuery) -> tuple[str, int] | None:
    """When a ranking is empty: the other standard and how many listed cards it ranks (standards are never mixed,
    so a visitor of the default standard/1 ranking learns where legacy-composite cards are), or None."""
    other = next(standard for standard in STANDARDS if standard != query.standard)
    count = listed_cards(user).filter(scoring_standard=other).count()
    return (other, count) if count else None
