"""Decisions that show: a rejection or revocation in force on the leaderboard and the card page, approval
against the gate's recommendation only with a confirmation and a reason, and the submitting developer told
the outcome with the aggregates only."""

import pytest
from django.core import mail

from organizations.models import AuditEvent
from review import services
from review.gate import GatePolicy, evaluate_gate
from review.models import Campaign, Decision, Rating, SpeakerExclusion
from review.selectors import campaign_aggregate

from .conftest import SECRET_MARK, shared_fixture
from .review_setup import OUTPUT_MARK, open_campaign, rate_everything

pytestmark = pytest.mark.django_db

# These cards are legacy-composite ones (make_card's default); standard/1 is the default ranking.
LEGACY_BOARD = "/leaderboard/?standard=legacy-composite"
LEGACY_API = "/api/v1/leaderboard/?standard=legacy-composite"

AWAITING = '<span class="badge provisional">provisional — awaiting community review</span>'
REASON = "The elders read every output aloud and found them right for teaching."


@shared_fixture
def card(public_card):
    """Its row is on the public (cached) leaderboard."""
    return public_card


@shared_fixture
def thin_campaign(card, governance_user, pool):
    """Twelve items, all rated excellent: too few rated items for a pass (insufficient evidence)."""
    campaign = open_campaign(card, governance_user, pool, sample_size=12)
    rate_everything(campaign, lambda a: "excellent")
    return campaign


def decide(campaign, actor, outcome, rationale=REASON, **options):
    return services.record_decision(campaign=campaign, actor=actor, outcome=outcome, rationale=rationale, **options)


def test_approving_against_a_non_pass_recommendation_needs_a_confirmation_and_a_reason(thin_campaign,
                                                                                      governance_user):
    with pytest.raises(services.ReviewError) as unconfirmed:
        decide(thin_campaign, governance_user, "approve")
    assert unconfirmed.value.field == "against_recommendation"
    assert "“Insufficient evidence”, not a pass" in str(unconfirmed.value)
    with pytest.raises(services.ReviewError) as terse:
        decide(thin_campaign, governance_user, "approve", rationale="We like it.", against_recommendation=True)
    assert terse.value.field == "rationale" and "at least 40 characters" in str(terse.value)
    assert not Decision.objects.exists()
    decision = decide(thin_campaign, governance_user, "approve", against_recommendation=True)
    assert decision.recommendation["outcome"] == "insufficient_evidence"
    event = AuditEvent.objects.get(action="review.decision")
    assert event.details["against_recommendation"] is True
    assert event.details["recommendation"] == "insufficient_evidence"


def test_a_rejection_needs_no_confirmation_whatever_the_recommendation(thin_campaign, governance_user):
    assert decide(thin_campaign, governance_user, "reject", rationale="Not now.").outcome == "reject"


def test_a_pass_is_approved_without_confirmation(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=40)
    rate_everything(campaign, lambda a: "excellent")
    decision = decide(campaign, governance_user, "approve", rationale="Fine.")
    assert decision.recommendation["outcome"] == "pass"
    assert AuditEvent.objects.get(action="review.decision").details["against_recommendation"] is False


def test_the_decision_page_asks_for_the_confirmation_when_the_gate_does_not_recommend_a_pass(
        client, thin_campaign, governance_user):
    client.force_login(governance_user)
    url = f"/review/campaigns/{thin_campaign.public_id}/decision/"
    page = client.get(url).content.decode()
    assert 'name="against_recommendation"' in page and "against the gate&#x27;s recommendation" in page
    refused = client.post(url, {"outcome": "approve", "rationale": REASON})
    assert refused.status_code == 400 and not thin_campaign.decisions.exists()
    assert "To approve all the same, confirm" in refused.content.decode()
    accepted = client.post(url, {"outcome": "approve", "rationale": REASON, "against_recommendation": "on"})
    assert accepted.status_code == 302 and thin_campaign.decisions.get().outcome == "approve"


def test_the_decision_page_offers_no_confirmation_for_a_pass(client, card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=40)
    rate_everything(campaign, lambda a: "excellent")
    client.force_login(governance_user)
    assert 'name="against_recommendation"' not in client.get(
        f"/review/campaigns/{campaign.public_id}/decision/").content.decode()


def test_the_decision_page_says_an_approval_of_a_card_not_on_gold_standard_alone_validates_nothing(
        client, card, thin_campaign, governance_user):
    """Approving a mixed card records the approval but leaves its tier: the page says so before anyone decides."""
    from leaderboard.models import RunCard

    client.force_login(governance_user)
    url = f"/review/campaigns/{thin_campaign.public_id}/decision/"
    assert card.segment == "gold_standard" and 'id="decision-tier-note"' not in client.get(url).content.decode()
    RunCard.objects.filter(pk=card.pk).update(segment="mixed")
    page = client.get(url).content.decode()
    assert 'id="decision-tier-note"' in page and "<strong>mixed</strong>" in page
    decide(thin_campaign, governance_user, "approve", against_recommendation=True)
    card.refresh_from_db()
    assert card.community_validated_at is None


def leaderboard_row(client, card):
    rows = client.get(LEGACY_API).json()["results"]
    return next(row for row in rows if row["id"] == str(card.public_id))


def test_a_rejection_in_force_shows_on_the_leaderboard_and_the_card_page_never_as_awaiting_review(
        client, card, thin_campaign, governance_user):
    before = leaderboard_row(client, card)
    assert before["quality_tier_provisional"] is True and before["community_review"] is None
    assert AWAITING in client.get(LEGACY_BOARD).content.decode()
    decision = decide(thin_campaign, governance_user, "reject", rationale="Several outputs change the meaning.")
    row = leaderboard_row(client, card)
    assert row["community_review"]["outcome"] == "not_approved" and row["quality_tier_provisional"] is False
    assert row["community_review"]["decided_at"].startswith(decision.decided_at.date().isoformat())
    shown = f"community review: not approved, {decision.decided_at.day} "
    for page in (client.get(LEGACY_BOARD), client.get(f"/leaderboard/cards/{card.public_id}/")):
        html = page.content.decode()
        assert page.status_code == 200 and shown in html and AWAITING not in html


def test_a_revoked_approval_shows_as_not_approved(client, card, thin_campaign, governance_user):
    decide(thin_campaign, governance_user, "approve", against_recommendation=True)
    card.refresh_from_db()
    assert card.verification_tier == "Community Validated"
    assert leaderboard_row(client, card)["community_review"]["outcome"] == "approved"
    assert "community review: approved, " in client.get(f"/leaderboard/cards/{card.public_id}/").content.decode()
    decide(thin_campaign, governance_user, "revoke", rationale="Elders found a cultural problem later.")
    card.refresh_from_db()
    assert (card.community_review, card.verification_tier) == ("revoke", "Self-benchmarked")
    row = leaderboard_row(client, card)
    assert row["community_review"]["outcome"] == "not_approved" and not row["quality_tier_provisional"]
    assert "community review: not approved" in client.get(LEGACY_BOARD).content.decode()


def test_the_latest_decision_over_all_campaigns_is_the_one_shown(client, card, thin_campaign, governance_user, pool):
    decide(thin_campaign, governance_user, "reject", rationale="Not yet.")
    second = open_campaign(card, governance_user, pool, sample_size=40, seed=9)
    rate_everything(second, lambda a: "excellent")
    decide(second, governance_user, "approve", rationale="Fine after the second round.")
    assert leaderboard_row(client, card)["community_review"]["outcome"] == "approved"


def test_the_submitting_developer_is_told_the_outcome_with_the_aggregates_only(
        card, thin_campaign, governance_user, eager_tasks, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        decide(thin_campaign, governance_user, "reject", rationale="Outputs SECRETTEXT change the meaning.")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [card.submitted_by.email]
    assert "Community review of your run card: not approved" in message.subject
    assert "did not approve it" in message.body and "items rated: 12 of 12" in message.body
    assert "4 speakers" in message.body and "usable share: 1.00" in message.body
    assert f"/leaderboard/cards/{card.public_id}/" in message.body
    # Never an item (sources, references, outputs) and never governance staff's own words.
    for leaked in (SECRET_MARK, OUTPUT_MARK, "change the meaning"):
        assert leaked not in message.body


def test_the_notice_is_in_the_developers_language(card, thin_campaign, governance_user, eager_tasks,
                                                  django_capture_on_commit_callbacks):
    card.submitted_by.interface_language = "fr-ca"
    card.submitted_by.save(update_fields=["interface_language"])
    with django_capture_on_commit_callbacks(execute=True):
        decide(thin_campaign, governance_user, "approve", against_recommendation=True)
    message = mail.outbox[0]
    assert "approuvée" in message.subject and "éléments évalués" in message.body


def test_the_decision_page_shows_each_speakers_usable_rate_and_offset(client, card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=30)
    lenient = pool[0]
    rate_everything(campaign, lambda a: "excellent" if a.speaker_id == lenient.pk else "gist")
    client.force_login(governance_user)
    html = " ".join(client.get(f"/review/campaigns/{campaign.public_id}/decision/").content.decode().split())
    assert "Rated usable" in html and "Offset from the others" in html
    assert "+2.00 steps" in html and "(more lenient)" in html


def test_governance_leaves_a_flagged_speaker_out_with_a_reason_and_sees_the_recommendation_both_ways(
        client, card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=40)
    harsh = pool[0]
    rate_everything(campaign, lambda a: "reject" if a.speaker_id == harsh.pk else "excellent")
    client.force_login(governance_user)
    url = f"/review/campaigns/{campaign.public_id}/decision/"
    exclusion_url = f"/review/campaigns/{campaign.public_id}/speakers/{harsh.pk}/exclusion/"
    before = campaign_aggregate(campaign)
    assert harsh.pk in {s.speaker_id for s in before.speakers if s.flagged}
    refused = client.post(exclusion_url, {"reason": "  "}, follow=True)
    assert "Write why this speaker" in refused.content.decode() and not SpeakerExclusion.objects.exists()
    client.post(exclusion_url, {"reason": "Rated every output reject, control items included."})
    exclusion = SpeakerExclusion.objects.get()
    assert (exclusion.speaker, exclusion.excluded_by, exclusion.included_at) == (harsh, governance_user, None)
    event = AuditEvent.objects.get(action="review.speaker_excluded")
    # Each item harsh rated goes to the one speaker of the pool who never held it: coverage is restored.
    harsh_items = Rating.objects.filter(speaker=harsh, assignment__item__is_control=False,
                                        assignment__is_repeat=False).count()
    assert event.details == {"speaker": harsh.email, "reason": "Rated every output reject, control items included.",
                             "released": 0, "reassigned": harsh_items}
    after = campaign_aggregate(campaign)
    assert harsh.pk not in {s.speaker_id for s in after.speakers}
    assert after.campaign.rating_count < before.campaign.rating_count
    every = campaign_aggregate(campaign, every_speaker=True)
    assert every.campaign.rating_count == before.campaign.rating_count
    html = " ".join(client.get(url).content.decode().split())
    assert "These figures leave out the ratings of:" in html and "Rated every output reject" in html
    assert "With every speaker's ratings the recommendation would be" in html
    assert "Count again" in html, "the speaker stays in the speakers' table, marked as left out"
    decision = decide(campaign, governance_user, "reject", rationale="Not yet.")
    assert AuditEvent.objects.get(action="review.decision").details["excluded_speakers"] == [harsh.email]
    assert decision.recommendation["outcome"] == evaluate_gate(after, GatePolicy()).outcome
    with pytest.raises(services.ReviewError):
        services.include_speaker(actor=governance_user, campaign=campaign, speaker=harsh)


def test_counting_a_speaker_again_restores_the_figures_and_keeps_the_record(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=30)
    rate_everything(campaign, lambda a: "gist" if a.speaker_id == pool[1].pk else "acceptable")
    whole = campaign_aggregate(campaign)
    services.exclude_speaker(actor=governance_user, campaign=campaign, speaker=pool[1], reason="Misread the scale.")
    assert campaign_aggregate(campaign) != whole
    with pytest.raises(services.ReviewError) as twice:
        services.exclude_speaker(actor=governance_user, campaign=campaign, speaker=pool[1], reason="Again.")
    assert "already left out" in str(twice.value)
    services.include_speaker(actor=governance_user, campaign=campaign, speaker=pool[1])
    assert campaign_aggregate(campaign) == whole
    assert SpeakerExclusion.objects.get().included_by == governance_user
    assert AuditEvent.objects.filter(action="review.speaker_included").count() == 1


def test_only_governance_staff_leave_speakers_out(client, card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=12)
    rate_everything(campaign)
    with pytest.raises(services.NotAllowed):
        services.exclude_speaker(actor=pool[1], campaign=campaign, speaker=pool[0], reason="Mine are better.")
    client.force_login(pool[1])
    answer = client.post(f"/review/campaigns/{campaign.public_id}/speakers/{pool[0].pk}/exclusion/",
                         {"reason": "Mine are better."})
    assert answer.status_code in (403, 404) and not SpeakerExclusion.objects.exists()


def test_the_decision_page_reads_the_campaigns_ratings_once_whatever_their_number(
        client, card, governance_user, pool, django_assert_max_num_queries):
    """The evidence's state (the cache key of the figures), who rated and how many ratings need attention come from
    one grouped pass over the ratings: at 30,000 ratings each pass took PostgreSQL about 20 ms. The page's query
    count is the same for 12 and 40 rated items, and its list of ratings needing attention counts them right."""
    client.force_login(governance_user)
    counts = []
    for size, seed in ((12, 1), (40, 2)):
        campaign = open_campaign(card, governance_user, pool, sample_size=size, seed=seed)
        rate_everything(campaign, lambda a: "gist")
        noted = list(campaign.assignments.filter(state="rated").values_list("pk", flat=True)[:3])
        Rating.objects.filter(assignment_id__in=noted).update(comment="a word on the spelling")
        with django_assert_max_num_queries(28) as captured:
            page = client.get(f"/review/campaigns/{campaign.public_id}/decision/")
        assert page.status_code == 200
        counts.append(len(captured.captured_queries))
        passes = [q["sql"] for q in captured.captured_queries
                  if 'FROM "review_rating"' in q["sql"] and "GROUP BY" in q["sql"]]
        assert len(passes) == 1, passes
        assert not any(q["sql"].startswith('SELECT COUNT(*)') and '"review_rating"' in q["sql"]
                       for q in captured.captured_queries), "the flagged ratings are counted in the same pass"
        assert page.context["attention"].paginator.count == 3
    assert counts[0] == counts[1]


@pytest.mark.parametrize("reason, message", [
    ("resume\x00now", "The reason contains a NUL character"),
    ("x" * 501, "The reason is limited to 500 characters (it has 501)."),
])
def test_a_reason_the_audit_log_cannot_keep_is_refused_naming_it_and_nothing_changes(
        client, card, governance_user, pool, reason, message):
    """The audit log keeps a reason for ever: a NUL character (which PostgreSQL refuses: it was a server error) or
    more than 500 characters are refused with a message, the campaign's status and figures untouched."""
    campaign = open_campaign(card, governance_user, pool, sample_size=20)
    harsh = pool[0]
    rate_everything(campaign, lambda a: "reject" if a.speaker_id == harsh.pk else "excellent")
    client.force_login(governance_user)
    events = AuditEvent.objects.count()
    paused = client.post(f"/review/campaigns/{campaign.public_id}/status/", {"status": "paused", "reason": reason},
                         follow=True)
    assert paused.status_code == 200 and message in paused.content.decode()
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.OPEN
    left_out = client.post(f"/review/campaigns/{campaign.public_id}/speakers/{harsh.pk}/exclusion/",
                           {"reason": reason}, follow=True)
    assert left_out.status_code == 200 and message in left_out.content.decode()
    assert not SpeakerExclusion.objects.exists() and AuditEvent.objects.count() == events
