"""What a leaderboard view shows, for the page and the API alike: the dataset version it is of, and the pages of
its rankings, computed once per state stamp for everyone who sees the public listing."""

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q

from corpus.label_selectors import labels_by_version
from corpus.language_pairs import version_pair_key
from corpus.models import DatasetVersion
from languages.selectors import language_cache_key

from ..models import RunCard
from .caching import READ_STAMP, cached_under, public_stamp
from .listing import ranked_cards
from .query import RANKINGS, STANDARDS, LeaderboardQuery, filters_key
from .rankings import clustered, rank_clusters, ranked_rows, view_counts
from .rows import row_view, tier_bands


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


@dataclass(frozen=True)
class LeaderboardPage:
    rows: list[dict[str, Any]]
    page: Page
    # What the page's rendered ranking may be cached under (it names the active language: the rendering is
    # translated, the rows are not); None: not to be cached.
    cache_key: str | None


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
