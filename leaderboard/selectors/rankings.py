"""How listed cards rank: the cards of a filter with the scores they are shown with, one row per method, setup and
segment, the rows of a page, their rank clusters and how many rows each ranking has."""

import numpy as np
from django.db import connection
from django.db.models import (
    BooleanField,
    CharField,
    Count,
    ExpressionWrapper,
    F,
    FilteredRelation,
    Q,
    QuerySet,
    Value,
)
from django.db.models.functions import Cast, Coalesce, Concat

from corpus.models import DatasetVersion, Entry

from .. import ranking
from ..models import RunCard
from .caching import cached_under
from .listing import listed_cards, ranked_cards, setup_key, unverified_last, versions_of_pair
from .query import DEFAULT_STANDARD, RANKINGS, STANDARDS, LeaderboardQuery, filters_key

# Never needed for a row, and large: carrying them through the ranking's sort spills it to disk.
LARGE_FIELDS = ("raw", "method_config", "dataset_version__envelope", "method__card", "method__manifest",
                "chrf_statistics")
DOMAIN_METRICS = ("composite", "chrf_plus_plus", "exact_match_rate", "fst_acceptance_rate", "semantic_score",
                  "cost_adjusted")


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


def other_standard(user, query: LeaderboardQuery) -> tuple[str, int] | None:
    """When a ranking is empty: the other standard and how many listed cards it ranks (standards are never mixed,
    so a visitor of the default standard/1 ranking learns where legacy-composite cards are), or None."""
    other = next(standard for standard in STANDARDS if standard != query.standard)
    count = listed_cards(user).filter(scoring_standard=other).count()
    return (other, count) if count else None


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
