"""Speakers' credits and withdrawals: how each is named, what they withdrew."""

from collections.abc import Sequence
from dataclasses import dataclass

from leaderboard.models import RunCard
from ledger.selectors import credited_names, speaker_labels
from organizations.models import Role
from organizations.selectors import role_holders

from ..models import (
    Campaign,
    Decision,
    RatingWithdrawal,
    SpeakerExclusion,
)
from .campaigns import LARGE_CARD_FIELDS
from .decisions import latest_decision
from .figures import SpeakerRatings, rating_summary

# Credit: who is named on a campaign's lists (where a speaker may choose how: ledger.selectors.credits_to_choose).


@dataclass(frozen=True)
class RatingSpeakers:
    """Who rated in a campaign (`rated`), and whose current ratings, other than "can't judge", count (`counting`,
    before any exclusion)."""

    rated: frozenset[int]
    counting: frozenset[int]


def rating_speakers(campaign: Campaign, summary: Sequence[SpeakerRatings] | None = None) -> RatingSpeakers:
    """Who rated, counted in `rating_summary`'s pass (`summary` when the caller has it already)."""
    summary = rating_summary(campaign) if summary is None else summary
    return RatingSpeakers(frozenset(row.speaker_id for row in summary),
                          frozenset(row.speaker_id for row in summary if row.counting))


def campaign_speaker_labels(campaign: Campaign, speakers: RatingSpeakers | None = None) -> dict[int, str]:
    """`speaker_labels` of everyone who was ever in the campaign's pool or rated in it."""
    rated = (speakers or rating_speakers(campaign)).rated
    ids = set(campaign.pool.values_list("user_id", flat=True)) | rated
    return speaker_labels(campaign.organization, sorted(ids))


@dataclass(frozen=True)
class ReviewCredits:
    """Who reviewed a card for the public: how many speakers, of which community, and the names of those who chose
    to be named."""

    organization: str
    speakers: int
    names: tuple[str, ...]

    @property
    def anonymous(self) -> int:
        return self.speakers - len(self.names)


def review_credits(run_card: RunCard) -> ReviewCredits | None:
    """`campaign_credits` of the campaign of the card's decision in force; None while the card was never decided."""
    decision = latest_decision(run_card)
    return None if decision is None else campaign_credits(decision.campaign)


def campaign_credits(campaign: Campaign, speakers: RatingSpeakers | None = None) -> ReviewCredits:
    """The speakers whose ratings count in the campaign (withdrawn ratings and speakers left out by governance
    staff do not), credited as each chose."""
    left_out = set(SpeakerExclusion.objects.filter(campaign=campaign, included_at__isnull=True)
                   .values_list("speaker_id", flat=True))
    speaker_ids = sorted((speakers or rating_speakers(campaign)).counting - left_out)
    names = sorted(name for name in credited_names(campaign.organization_id, speaker_ids).values() if name)
    return ReviewCredits(campaign.organization.name, len(speaker_ids), tuple(names))


def speaker_campaign_to_withdraw(user, public_id) -> Campaign | None:
    """A campaign where the user has ratings not yet withdrawn; None (404) otherwise, whoever else rated in it."""
    return (Campaign.objects.filter(public_id=public_id, assignments__ratings__speaker=user,
                                    assignments__ratings__withdrawal__isnull=True)
            .select_related("organization", "run_card__dataset_version").defer(*LARGE_CARD_FIELDS).distinct().first())


def has_withdrawn_from(user, public_id) -> bool:
    """Whether the user withdrew ratings of this campaign: a repeated withdrawal is answered as done, while a campaign
    they never rated in stays a 404 like any other."""
    return RatingWithdrawal.objects.filter(campaign__public_id=public_id, speaker=user).exists()


def withdrawals_of(campaign: Campaign) -> list[RatingWithdrawal]:
    return list(RatingWithdrawal.objects.filter(campaign=campaign).order_by("withdrawn_at", "pk"))


WithdrawalNotice = tuple[RatingWithdrawal, Decision | None, str, list[tuple[str, str]]]


def withdrawal_notice(withdrawal_pk: int) -> WithdrawalNotice | None:
    """What the withdrawal e-mail needs: the withdrawal, the campaign's decision in force when it was taken after
    that decision (else None), the speaker as credited, and the governance staff's addresses and languages."""
    withdrawal = (RatingWithdrawal.objects.select_related("campaign__organization").filter(pk=withdrawal_pk).first())
    if withdrawal is None:
        return None
    campaign = withdrawal.campaign
    decision = campaign.decisions.filter(decided_at__lt=withdrawal.withdrawn_at).first()
    speaker = campaign_speaker_labels(campaign)[withdrawal.speaker_id]
    recipients = list(role_holders(campaign.organization, Role.GOVERNANCE).filter(is_active=True)
                      .distinct().order_by("email").values_list("email", "interface_language"))
    return withdrawal, decision, speaker, recipients
