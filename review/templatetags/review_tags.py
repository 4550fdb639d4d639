"""What review adds to pages of the layers below it (a run card's page), without those layers importing review:
the page includes a tag owned here."""

from django import template

from organizations.permissions import permitted

from ..selectors.campaigns import governed_campaigns
from ..selectors.decisions import transfer_eligible
from ..selectors.speaker_rights import review_credits

register = template.Library()


@register.inclusion_tag("review/card_panel.html")
def card_review_panel(user, card) -> dict:
    """For the steward's governance staff only: the card's review campaigns and whether one can be opened."""
    if not permitted(user, "campaign.open", card):
        return {"review": None}
    return {"card": card, "review": {
        "campaigns": governed_campaigns(user).filter(run_card=card), "can_open": card.status == "ready",
        "transfer_eligible": transfer_eligible(card),
    }}


@register.inclusion_tag("review/_credits.html")
def card_review_credits(card) -> dict:
    """The public line naming who reviewed a decided card: how many speakers of which community, and those who chose
    to be named (each speaker's credit choice, read at every view)."""
    return {"credits": review_credits(card) if card.community_review else None}
