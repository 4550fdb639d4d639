"""Every read of the review app that has a rule, one module per domain.

Who sees an item's texts: the speaker it is assigned to (`rating.speaker_assignment`, item by item — the one
exception SPEC §2 principle 3 makes to the corpus visibility rule for secret segments) and the steward's
governance staff (`campaigns.governed_campaign`). Speakers never see the method, model, scores or anyone else's
rating: nothing here hands a speaker page more than the item itself. Inside review, import from the domain module;
the names below are the ones other apps, scripts and tests use."""

from .campaigns import figures_stale, governed_campaigns, with_last_rating
from .decisions import (
    decision_in_force,
    excluded_speakers,
    gate_policy_for,
    ratings_withdrawn_since,
    review_trigger,
    shown_chrf,
    shown_composite,
    transfer_eligible,
)
from .figures import campaign_aggregate, campaign_observations, repeat_pairs, tier_populations
from .pay import Rate, campaign_rate, speaker_pay, timesheet
from .pool import speaks_for
from .rating import rating_examples, waiting_item_count
from .speaker_rights import campaign_credits

__all__ = [
    "Rate", "campaign_aggregate", "campaign_credits", "campaign_observations", "campaign_rate", "decision_in_force",
    "excluded_speakers", "figures_stale", "gate_policy_for", "governed_campaigns", "rating_examples",
    "ratings_withdrawn_since", "repeat_pairs", "review_trigger", "shown_chrf", "shown_composite", "speaker_pay",
    "speaks_for", "tier_populations", "timesheet", "transfer_eligible", "waiting_item_count", "with_last_rating",
]
