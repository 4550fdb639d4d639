"""Every read of the leaderboard that has a rule, one module per domain: the filters (`query`), which cards are
listed and ranked (`listing`), the state stamp and what is cached under it (`caching`), how cards rank
(`rankings`), a row as shown (`rows`), a view's rankings and their pages (`pages`), one card's page (`run_cards`),
disqualifications (`moderation`) and conflicts of interest (`conflicts`). Inside the package, import from the
domain module; the names below are the ones the app's views, other apps, scripts and tests use."""

from .caching import LEADERBOARD_CACHE_SECONDS, leaderboard_stamp, public_stamp, shares_public_view, whole_answer_key
from .conflicts import conflicts_of, own_conflict
from .listing import disqualified, listed_cards, setup_key, unverified_last, versions_of_pair
from .moderation import active_disqualification
from .pages import leaderboard_page, ranking_counts, ranking_sections, ranking_view
from .query import RANKINGS, SCOPES, SORTS, STANDARDS, LeaderboardQuery
from .rankings import other_standard
from .rows import bands_of, row_view
from .run_cards import same_setup_cards, shown_results, visible_card, visible_results, withdrawn_card

__all__ = [
    "LEADERBOARD_CACHE_SECONDS", "RANKINGS", "SCOPES", "SORTS", "STANDARDS", "LeaderboardQuery",
    "active_disqualification", "bands_of", "conflicts_of", "disqualified", "leaderboard_page", "leaderboard_stamp",
    "listed_cards", "other_standard", "own_conflict", "public_stamp", "ranking_counts", "ranking_sections",
    "ranking_view", "row_view", "same_setup_cards", "setup_key", "shares_public_view", "shown_results",
    "unverified_last", "versions_of_pair", "visible_card", "visible_results", "whole_answer_key", "withdrawn_card",
]
