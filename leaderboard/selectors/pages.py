"""What a leaderboard view shows, for the page and the API alike: the dataset version it is of, and the pages of
its rankings, computed once per state stamp for everyone who sees the public listing."""

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.core.paginator import Page, Paginator
from django.db.models import Count, Q, QuerySet

from common.compiled import CompiledQuery
from corpus.label_selectors import labels_by_version
from corpus.language_pairs import version_pair_key
from corpus.models import DatasetVersion
from languages.selectors import language_cache_key

from ..models import RunCard
from .caching import READ_STAMP, cached_many, cached_under, public_stamp, store_many
from .listing import ranked_cards
from .query import RANKINGS, STANDARDS, LeaderboardQuery, filters_key
from .rankings import Kind, Ranked, clustered, rank_clusters, ranked_rows, rankings
from .rows import row_view, tier_bands


@dataclass(frozen=True)
class VersionChoice:
    """A dataset version some ranking is of, with how many of its cards are verified against the stored corpus, and
    the rankings ((ranking, standard) pairs) that have a card of it: the others have no row, whatever the filters."""

    dataset: str
    version: str
    language_pair: str
    pair: str
    verified: int
    cards: int
    rankings: frozenset[tuple[str, str]]

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

    @property
    def empty(self) -> frozenset[tuple[str, str]]:
        """The rankings with no card of the chosen version (none known without one)."""
        chosen = self.chosen
        return frozenset() if chosen is None else frozenset(KINDS) - chosen.rankings


# The rankings, in the order `version_rankings` counts each one's cards.
KINDS = tuple((kind, standard) for kind in RANKINGS for standard in STANDARDS)


def version_rankings(user) -> QuerySet:
    """(version id, verified cards, cards, then the cards of each ranking of KINDS) of every version with a ranked
    card, grouped by the version's id alone: its names are read after (grouped by them, every card joins its
    version)."""
    return ranked_cards(user).values("dataset_version_id").annotate(
        verified=Count("pk", filter=Q(status=RunCard.Status.READY, corpus_mismatches=0)), cards=Count("pk"),
        **{f"kind_{index}": Count("pk", filter=Q(is_secret=kind == "official", scoring_standard=standard))
           for index, (kind, standard) in enumerate(KINDS)},
    ).order_by().values_list("dataset_version_id", "verified", "cards",
                             *(f"kind_{index}" for index in range(len(KINDS))))


# What everyone who shares the public view reads: the same statement for all of them (`listed_cards` asks nothing
# of the moment or of the request beyond the reader's roles), compiled and prepared once per connection.
_PUBLIC_VERSION_RANKINGS = CompiledQuery(lambda: version_rankings(AnonymousUser()))


def version_choices(user, stamp: str | None = READ_STAMP) -> list[VersionChoice]:
    """Every dataset version with a card in some ranking, the one with the most verified cards first (then the most
    cards, then the newest): one grouped query, cached under the state stamp for everyone who sees the public
    listing."""
    if stamp is READ_STAMP:
        stamp = public_stamp(user)

    def compute() -> list[VersionChoice]:
        verified: dict[int, int] = {}
        cards: dict[int, int] = {}
        rankings: dict[int, frozenset[tuple[str, str]]] = {}
        # A stamp: the reader shares the public view.
        for version_id, verified_cards, all_cards, *kinds in (
                _PUBLIC_VERSION_RANKINGS.rows() if stamp is not None else version_rankings(user)):
            verified[version_id], cards[version_id] = verified_cards, all_cards
            rankings[version_id] = frozenset(kind for kind, count in zip(KINDS, kinds, strict=True) if count)
        versions = DatasetVersion.objects.filter(pk__in=cards).select_related("dataset").only(
            "dataset__identifier", "version", "language_pair", "source_language", "target_language", "imported_at")
        ordered = sorted(versions, key=lambda version: (-verified[version.pk], -cards[version.pk],
                                                        -version.imported_at.timestamp(), version.pk))
        return [VersionChoice(version.dataset.identifier, version.version, version.language_pair,
                              version_pair_key(version.language_pair, version.source_language,
                                               version.target_language) or "",
                              verified[version.pk], cards[version.pk], rankings[version.pk])
                for version in ordered]

    return cached_under(stamp, "version-choices", compute)


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


def guessed_page(number) -> int:
    """The page `number` names, before the ranking's count says whether it exists (the Paginator decides after)."""
    try:
        return max(int(number), 1)
    except (TypeError, ValueError):
        return 1


def page_range(query: LeaderboardQuery, number: int, per_page: int) -> tuple[int, int]:
    """The ranked rows page `number` needs: its own, or every row down to its last for a ranking with rank clusters
    (a row's cluster depends on every row above it)."""
    stop = number * per_page
    return (0 if clustered(query) else stop - per_page, stop)


@dataclass(frozen=True)
class ViewCounts:
    """How many rows each ranking of a view has (`counts`), with the ranked rows read for page `number` of those
    that had to be counted (`read`: `rankings` counts a ranking and reads a page of it in one statement)."""

    counts: dict[Kind, int]
    read: dict[Kind, Ranked]
    number: int
    per_page: int


def view_counts(user, query: LeaderboardQuery, kinds: list[Kind], number, *, per_page: int,
                stamp: str | None = READ_STAMP, empty: frozenset[Kind] = frozenset()) -> ViewCounts:
    """How many rows each ranking of `kinds` ((ranking, standard) pairs) of the view `query` has, cached under the
    state stamp; those the cache lacks are counted at once (`rankings`: one selection of the cards for all of them),
    reading their rows for page `number` as they are. `empty`: rankings known to have no card at all (their
    version's `VersionChoice.rankings`), counted without a query."""
    if stamp is READ_STAMP:
        stamp = public_stamp(user)
    keys = {kind: f"{filters_key(query.but(ranking=kind[0], standard=kind[1]))}:count" for kind in kinds}
    counts = {kind: 0 for kind in kinds if kind in empty} | cached_many(
        stamp, {kind: key for kind, key in keys.items() if kind not in empty})
    guess = guessed_page(number)
    missing = [kind for kind in kinds if kind not in counts]
    read = rankings(user, query, {kind: page_range(query.but(ranking=kind[0], standard=kind[1]), guess, per_page)
                                  for kind in missing}) if missing else {}
    counts |= {kind: ranked.count for kind, ranked in read.items()}
    store_many(stamp, {keys[kind]: counts[kind] for kind in missing})
    return ViewCounts({kind: counts[kind] for kind in kinds}, read, guess, per_page)


def leaderboard_page(user, query: LeaderboardQuery, number, *, per_page: int = 50, strict: bool = False,
                     stamp: str | None = READ_STAMP, counts: ViewCounts | None = None) -> LeaderboardPage:
    """Page `number` of the ranking `query` names (its `ranking` and `standard`) and its `Page` (for the pager), for
    the page and the API alike.

    For everyone who `shares_public_view`, the count and each page's rows are cached under the leaderboard's state
    stamp, read first: a write that changes the listing changes the stamp in its own transaction, so no answer
    computed before it is served after it (`cache_key` carries the stamp for the rendered ranking). `strict` raises
    `InvalidPage` for a page that does not exist (the API's 404) instead of showing the nearest one. `counts`: the
    view's (`view_counts`), when the caller has them; the rows they read are used when they are this page's."""
    if stamp is READ_STAMP:
        stamp = public_stamp(user)
    kind = (query.ranking, query.standard)
    if counts is None or kind not in counts.counts:
        counts = view_counts(user, query, [kind], number, per_page=per_page, stamp=stamp)
    paginator = Paginator(range(counts.counts[kind]), per_page)
    page = paginator.page(number) if strict else paginator.get_page(number)
    name = f"{filters_key(query)}:rows:{per_page}:{page.number}"

    def compute() -> list[dict[str, Any]]:
        ranked = counts.read.get(kind)
        if ranked is None or (counts.number, counts.per_page) != (page.number, per_page):
            ranked = rankings(user, query, {kind: page_range(query, page.number, per_page)})[kind]
        return rows_of_page(user, query, ranked, page)

    rows = cached_under(stamp, name, compute) if paginator.count else []
    return LeaderboardPage(rows, page, None if stamp is None else f"{stamp}:{language_cache_key()}:{name}")


def rows_of_page(user, query: LeaderboardQuery, ranked: Ranked, page: Page) -> list[dict[str, Any]]:
    """The rows of `page` as shown (`row_view`), from the ranked rows read for it (`page_range`)."""
    offset = page.start_index() - 1
    clusters = rank_clusters(query, [card_id for card_id, _ in ranked.rows])
    cards = ranked_rows(user, query, ranked.rows[offset:] if clustered(query) else ranked.rows)
    bands = tier_bands()
    labels = labels_by_version({card.dataset_version_id: card.dataset_version.dataset_id for card in cards})
    return [row_view(card, offset + index, clusters.get(str(card.public_id)) if clustered(query) else None,
                     bands=bands, labels=labels.get(card.dataset_version_id, []))
            for index, card in enumerate(cards, 1)]


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
    kinds = [(kind, standard) for kind in ([view.query.ranking] if view.query.ranking else RANKINGS)
             for standard in ([view.query.standard] if view.query.standard_given else STANDARDS)]
    single = len(kinds) == 1
    number, per_page = (number, per_page) if single else (1, SECTION_ROWS)
    counts = view_counts(user, view.query, kinds, number, per_page=per_page, stamp=stamp, empty=view.empty)
    return [RankingSection(query, leaderboard_page(user, query, number, per_page=per_page, stamp=stamp, counts=counts))
            for query in (view.query.but(ranking=kind, standard=standard) for kind, standard in kinds)
            if single or counts.counts[(query.ranking, query.standard)]]


def ranking_counts(user, view: RankingView, number, *, per_page: int, stamp: str | None) -> ViewCounts:
    """How many rows each of the view's four rankings has (the API names them all), with the rows read for page
    `number` of those counted now."""
    return view_counts(user, view.query, list(KINDS), number, per_page=per_page, stamp=stamp, empty=view.empty)
