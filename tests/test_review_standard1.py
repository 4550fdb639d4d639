"""standard/1 cards (no composite; chrF++ is the headline) go through review like legacy ones: the organization
sets the chrF++ from which such a card is ready for review, and ownership transfer rests on the community's
approval at the gate (legacy-composite cards keep composite ≥ 0.70)."""

import pytest

from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard.services import submit_run_card
from organizations.models import AuditEvent
from review import services
from review.models import GatePolicy
from review.selectors import review_trigger, transfer_eligible

from .cards import body, make_card
from .conftest import corpus_bytes
from .review_setup import (
    consent_to_everything,
    gold_entries,
    rate_everything,
    sandbox_operator,
    settings_for,
    speakers,
)

pytestmark = pytest.mark.django_db


def standard1_card(organization, governance_user, *, exact=True):
    """A gold-standard standard/1 card: every output the reference (chrF++ 100) or every output garbled."""
    version = import_corpus(data=corpus_bytes(gold_entries(60)), organization=organization, actor=None).version
    consent_to_everything(version.dataset, governance_user)
    entries = list(Entry.objects.filter(version=version).order_by("position"))
    predict = (lambda e: e.reference) if exact else (lambda e: f"zz {e.entry_id}")
    card = make_card(version, entries, predict=predict, scoring_standard="standard/1")
    return submit_run_card(body=body(card), actor=sandbox_operator(organization))


def set_trigger(organization, governance_user, value):
    services.set_gate_policy(organization=organization, actor=governance_user, values={"standard1_min_chrf": value})


def open_on(card, governance_user, pool, **overrides):
    return services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, **overrides))


def test_without_a_trigger_a_standard1_card_needs_a_written_reason(steward, governance_user):
    card = standard1_card(steward, governance_user)
    assert (card.scoring_standard, card.composite) == ("standard/1", None)
    with pytest.raises(services.ReviewError) as refused:
        open_on(card, governance_user, speakers(steward, 3))
    assert refused.value.field == "below_threshold_reason"
    assert str(refused.value) == (
        "This standard/1 card has corpus chrF++ 100.0, and your organization has set no chrF++ from which such "
        "cards are ready for review: write why it should be reviewed, or set the trigger on the gate "
        "thresholds page.")
    campaign = open_on(card, governance_user, speakers(steward, 3), below_threshold_reason="The elders asked.")
    assert campaign.below_threshold_reason == "The elders asked."


def test_a_standard1_card_at_or_above_the_trigger_opens_without_a_reason(steward, governance_user):
    card = standard1_card(steward, governance_user)
    set_trigger(steward, governance_user, 100.0)
    assert review_trigger(card, GatePolicy.objects.get(organization=steward)).met
    assert open_on(card, governance_user, speakers(steward, 3)).below_threshold_reason == ""


def test_a_standard1_card_under_the_trigger_needs_a_reason(steward, governance_user):
    card = standard1_card(steward, governance_user, exact=False)
    set_trigger(steward, governance_user, 45.0)
    with pytest.raises(services.ReviewError) as refused:
        open_on(card, governance_user, speakers(steward, 3))
    assert refused.value.field == "below_threshold_reason"
    assert f"corpus chrF++ {card.chrf_plus_plus:.1f}, under your organization's trigger of 45.0" in str(refused.value)


def test_a_legacy_card_keeps_the_composite_trigger(steward, governance_user):
    from .review_setup import gold_card

    set_trigger(steward, governance_user, 0.0)
    below = gold_card(steward, governance_user, composite=0.6)
    trigger = review_trigger(below, GatePolicy.objects.get(organization=steward))
    assert not trigger.met and "composite 0.60, under the Deployable threshold of 0.70" in trigger.message
    assert review_trigger(gold_card(steward, governance_user, composite=0.8), None).met


def test_an_approved_standard1_gold_card_is_eligible_for_transfer_a_low_legacy_one_is_not(steward, governance_user):
    from .review_setup import gold_card

    pool = speakers(steward, 4)
    modern = standard1_card(steward, governance_user)
    set_trigger(steward, governance_user, 50.0)
    campaign = open_on(modern, governance_user, pool, sample_size=40)
    rate_everything(campaign, lambda a: "excellent")
    assert not transfer_eligible(modern)
    services.record_decision(campaign=campaign, actor=governance_user, outcome="approve", rationale="Usable.")
    modern.refresh_from_db()
    assert modern.verification_tier == "Community Validated" and transfer_eligible(modern)

    legacy = gold_card(steward, governance_user, composite=0.6)
    low = open_on(legacy, governance_user, pool, sample_size=40, below_threshold_reason="Worth a look.")
    rate_everything(low, lambda a: "excellent")
    services.record_decision(campaign=low, actor=governance_user, outcome="approve", rationale="Usable.")
    legacy.refresh_from_db()
    assert legacy.verification_tier == "Community Validated" and not transfer_eligible(legacy)


@pytest.mark.parametrize("value, message", [
    ("120", "Enter a chrF++ between 0 and 100, or leave it empty."),
    ("-1", "Enter a chrF++ between 0 and 100, or leave it empty."),
    ("lots", "Enter a number."),
])
def test_the_trigger_is_checked_on_the_policy_page(client, steward, governance_user, value, message):
    client.force_login(governance_user)
    form = {"require_complete_coverage": "on", "min_usable_lower_bound": "0.7", "min_tier_usable_share": "0.5",
            "max_reject_share": "0.1", "min_ac1": "0.6", "min_rated_items": "30", "min_distinct_speakers": "3"}
    refused = client.post(f"/review/orgs/{steward.slug}/gate/", {**form, "standard1_min_chrf": value})
    assert refused.status_code == 400 and message in refused.content.decode()
    assert not GatePolicy.objects.filter(organization=steward).exists()
    saved = client.post(f"/review/orgs/{steward.slug}/gate/", {**form, "standard1_min_chrf": "52.5"})
    assert saved.status_code == 302
    assert GatePolicy.objects.get(organization=steward).standard1_min_chrf == 52.5
    assert AuditEvent.objects.get(action="gate_policy.changed").details["standard1_min_chrf"] == 52.5
    cleared = client.post(f"/review/orgs/{steward.slug}/gate/", {**form, "standard1_min_chrf": ""})
    assert cleared.status_code == 302 and GatePolicy.objects.get(organization=steward).standard1_min_chrf is None


def test_the_service_refuses_a_trigger_out_of_range(steward, governance_user):
    with pytest.raises(services.ReviewError) as refused:
        set_trigger(steward, governance_user, 100.5)
    assert refused.value.field == "standard1_min_chrf"
