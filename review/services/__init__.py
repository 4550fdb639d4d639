"""Every write of the review app, one module per domain: campaigns, ratings, the pool, decisions and
exclusions, speakers' rights, a campaign's own pay rate (pay policies, payments and credit choices are the
ledger's: ledger.services). Inside review, import from the domain module; the names below are
the ones other apps, scripts and tests use."""

from .campaigns import (
    INLINE_ASSIGNMENT_LIMIT,
    REASON_LIMIT,
    CampaignSettings,
    open_campaign,
    prepare_campaign,
    record_ratings_export,
    set_campaign_status,
    set_rating_examples,
    with_repeats,
)
from .decisions import exclude_speaker, include_speaker, record_decision, set_gate_policy, update_community_review
from .errors import NotAllowed, ReviewError, SettingsRefused
from .figures import FIGURES_REQUESTED_PER_VIEW, refresh_summary, request_fresh_figures
from .pay import set_campaign_rate
from .pool import (
    NOT_IN_POOL,
    add_speaker,
    items_short_of_ratings,
    leave_pool,
    remove_speaker,
    speaker_in_conflict,
    speaker_left_organization,
    speaker_unqualified,
)
from .rating import RATING_VALUES, SET_ASSIGNMENT_STATE, Submission, record_rating, undo_last_rating
from .speaker_rights import withdraw_ratings

__all__ = [
    "CampaignSettings", "FIGURES_REQUESTED_PER_VIEW", "INLINE_ASSIGNMENT_LIMIT", "NOT_IN_POOL", "NotAllowed",
    "RATING_VALUES", "REASON_LIMIT", "ReviewError", "SET_ASSIGNMENT_STATE", "SettingsRefused", "Submission",
    "add_speaker",
    "exclude_speaker", "include_speaker", "items_short_of_ratings", "leave_pool", "open_campaign",
    "prepare_campaign", "record_decision", "record_rating", "record_ratings_export",
    "refresh_summary", "remove_speaker", "request_fresh_figures", "set_campaign_rate", "set_campaign_status",
    "set_gate_policy", "set_rating_examples", "speaker_in_conflict",
    "speaker_left_organization", "speaker_unqualified", "undo_last_rating", "update_community_review", "with_repeats",
    "withdraw_ratings",
]
