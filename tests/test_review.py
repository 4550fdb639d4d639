"""Review campaigns: opening, sampling, assignment, ratings that are never lost or doubled, decisions."""

import threading
import uuid
from collections import Counter

import pytest
from django.db import connection

from leaderboard.models import RunCard
from organizations.models import AuditEvent
from review import services
from review.models import Assignment, Campaign, Decision, Item, Rating
from review.selectors import campaign_aggregate, transfer_eligible

from .review_setup import gold_card, open_campaign, rate_everything, settings_for, speakers, submit

pytestmark = pytest.mark.django_db

OVERRIDE_REASON = "The panel found it usable, and the community approves it regardless."


def test_a_campaign_samples_by_difficulty_tier_and_records_the_strata(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=20)
    assert campaign.status == Campaign.Status.OPEN
    population = Counter(card.results.values_list("entry__difficulty", flat=True))
    recorded = {s["difficulty"]: (s["population"], s["allocated"]) for s in campaign.strata}
    assert {tier: pop for tier, (pop, _) in recorded.items()} == dict(population)
    sampled = Counter(Item.objects.filter(campaign=campaign, is_control=False).values_list("difficulty", flat=True))
    assert {tier: allocated for tier, (_, allocated) in recorded.items()} == dict(sampled)
    assert sum(sampled.values()) == 20
    assert min(sampled.values()) >= 2, "every tier present, entries without difficulty included, is sampled"
    assert None in sampled


def test_the_same_seed_draws_the_same_sample(card, governance_user, pool):
    first = open_campaign(card, governance_user, pool, seed=7)
    second = open_campaign(card, governance_user, pool, seed=7)
    third = open_campaign(card, governance_user, pool, seed=8)

    def sample(campaign):
        return sorted(campaign.items.values_list("result_id", flat=True))

    assert sample(first) == sample(second)
    assert sample(first) != sample(third)


def test_each_item_goes_to_distinct_speakers_with_balanced_load(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=20, ratings_per_item=3)
    per_item = Counter(Assignment.objects.filter(campaign=campaign).values_list("item_id", flat=True))
    assert set(per_item.values()) == {3}
    pairs = list(Assignment.objects.filter(campaign=campaign).values_list("item_id", "speaker_id"))
    assert len(pairs) == len(set(pairs)), "no speaker gets the same item twice"
    load = Counter(Assignment.objects.filter(campaign=campaign).values_list("speaker_id", flat=True))
    assert max(load.values()) - min(load.values()) <= 1
    orders = {speaker.pk: list(Assignment.objects.filter(campaign=campaign, speaker=speaker)
                               .order_by("position").values_list("item_id", flat=True)) for speaker in pool}
    assert len({tuple(sorted(items)) and tuple(items) for items in orders.values()}) == len(pool), \
        "each speaker has their own order"


def test_control_items_come_from_outside_the_sample_and_go_to_every_speaker(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=20, control_count=3)
    controls = Item.objects.filter(campaign=campaign, is_control=True)
    sampled = set(Item.objects.filter(campaign=campaign, is_control=False).values_list("entry_id", flat=True))
    assert controls.count() == 3
    assert not set(controls.values_list("entry_id", flat=True)) & sampled
    for control in controls:
        assert control.candidate == control.entry.reference
        assert control.assignments.count() == len(pool)


def test_opening_below_the_deployable_threshold_needs_a_reason_which_is_recorded(steward, governance_user, pool):
    low = gold_card(steward, governance_user, count=30, composite=0.55)
    with pytest.raises(services.ReviewError) as refused:
        open_campaign(low, governance_user, pool, sample_size=10)
    assert refused.value.field == "below_threshold_reason" and "0.55" in str(refused.value)
    assert not Campaign.objects.exists()
    campaign = open_campaign(low, governance_user, pool, sample_size=10,
                             below_threshold_reason="Speakers asked to see why it scores low.")
    event = AuditEvent.objects.get(action="campaign.opened", object_id=str(campaign.pk))
    assert event.details["below_threshold_reason"] == "Speakers asked to see why it scores low."


@pytest.mark.parametrize("overrides, field", [
    ({"sample_size": 0}, "sample_size"),
    ({"sample_size": 61}, "sample_size"),
    ({"ratings_per_item": 5}, "speakers"),
    ({"ratings_per_item": 11}, "ratings_per_item"),
    ({"control_count": 3, "show_reference": True}, "control_count"),
    ({"control_count": 50}, "control_count"),
    ({"title": "  "}, "title"),
])
def test_bad_settings_are_refused_naming_the_field_and_store_nothing(card, governance_user, pool, overrides, field):
    with pytest.raises(services.ReviewError) as refused:
        open_campaign(card, governance_user, pool, **overrides)
    assert refused.value.field == field
    assert not Campaign.objects.exists() and not Item.objects.exists()


def test_every_field_problem_is_named_at_once(client, card, governance_user, pool):
    """A form with four mistakes is corrected in one go: the service names each field's problem, in the form's
    order, and the page shows each beside its field; nothing is stored."""
    from datetime import timedelta

    from django.utils import timezone

    with pytest.raises(services.SettingsRefused) as refused:
        open_campaign(card, governance_user, pool, speaker_title=f"Round of {card.model_slug}", sample_size=999,
                      ratings_per_item=5, deadline=timezone.now() - timedelta(days=1))
    assert [field for field, _ in refused.value.problems] == ["speaker_title", "sample_size", "speakers", "deadline"]
    assert refused.value.field == "speaker_title" and not Campaign.objects.exists()

    client.force_login(governance_user)
    answer = client.post(f"/review/campaigns/new/{card.public_id}/", {
        "title": "Spring", "speaker_title": f"Round of {card.model_slug}", "sample_size": "999",
        "ratings_per_item": "3", "seed": "1", "control_count": "0", "speakers": [user.pk for user in pool],
        "deadline": "2020-01-01T10:00"})
    form = answer.context["form"]
    assert answer.status_code == 400 and not Campaign.objects.exists()
    assert set(form.errors) == {"speaker_title", "sample_size", "deadline"}, form.errors


def test_only_the_stewards_governance_staff_open_campaigns_with_their_own_speakers(card, governance_user, curator,
                                                                                  pool, outsider):
    with pytest.raises(services.NotAllowed):
        open_campaign(card, curator, pool)
    with pytest.raises(services.ReviewError) as refused:
        open_campaign(card, governance_user, [*pool, outsider])
    assert refused.value.field == "speakers"


def test_a_resent_submission_stores_one_rating(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool)
    assignment = Assignment.objects.filter(campaign=campaign).first()
    client_id = uuid.uuid4()
    first, created = submit(assignment, "gist", client_id)
    again, created_again = submit(assignment, "gist", client_id)
    assert created and not created_again and first.pk == again.pk
    assert Rating.objects.filter(assignment=assignment).count() == 1


def test_changing_a_rating_keeps_the_history_and_undo_gives_the_item_back(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool)
    assignment = Assignment.objects.filter(campaign=campaign).first()
    submit(assignment, "gist")
    submit(assignment, "excellent", comment="better on second reading")
    history = list(Rating.objects.filter(assignment=assignment).order_by("created_at"))
    assert [(r.value, r.is_current) for r in history] == [("gist", False), ("excellent", True)]
    undone = services.undo_last_rating(campaign=campaign, actor=assignment.speaker)
    assert undone.pk == assignment.pk
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.OPEN
    assert Rating.objects.filter(assignment=assignment).count() == 2
    assert not Rating.objects.filter(assignment=assignment, is_current=True).exists()
    assert Rating.objects.get(value="excellent").withdrawn_at is not None


def test_cant_judge_hands_the_item_to_another_speaker(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, ratings_per_item=3)
    assignment = Assignment.objects.filter(campaign=campaign).first()
    submit(assignment, "cannot_judge", comment="I do not know this medical term")
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.SKIPPED
    holders = list(Assignment.objects.filter(item=assignment.item).values_list("speaker_id", "state"))
    assert len(holders) == 4 and len({speaker for speaker, _ in holders}) == 4


def test_a_speaker_who_leaves_has_their_unrated_items_reassigned(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=12, ratings_per_item=2)
    leaving = pool[0]
    rated = Assignment.objects.filter(campaign=campaign, speaker=leaving).first()
    submit(rated, "excellent")
    open_items = set(Assignment.objects.filter(campaign=campaign, speaker=leaving, state="open")
                     .values_list("item_id", flat=True))
    moved = services.remove_speaker(campaign=campaign, user=leaving, actor=governance_user)
    assert moved == len(open_items) > 0
    assert not Assignment.objects.filter(campaign=campaign, speaker=leaving, state="open").exists()
    assert Rating.objects.filter(assignment=rated, is_current=True).exists(), "their ratings stay"
    for item_id in open_items:
        active = Assignment.objects.filter(item_id=item_id, state__in=["open", "rated"])
        assert active.count() == 2 and leaving.pk not in active.values_list("speaker_id", flat=True)
    assert AuditEvent.objects.filter(action="campaign.speaker_removed").exists()


def test_a_paused_or_closed_campaign_takes_no_rating(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool)
    assignment = Assignment.objects.filter(campaign=campaign).first()
    services.set_campaign_status(
        campaign=campaign,
        actor=governance_user,
        status="paused",
        reason="speakers' meeting first",
    )
    with pytest.raises(services.ReviewError):
        submit(assignment, "gist")
    services.set_campaign_status(campaign=campaign, actor=governance_user, status="open")
    submit(assignment, "gist")
    services.set_campaign_status(campaign=campaign, actor=governance_user, status="closed")
    with pytest.raises(services.ReviewError):
        submit(assignment, "excellent")
    with pytest.raises(services.ReviewError):
        services.set_campaign_status(campaign=campaign, actor=governance_user, status="open")
    actions = list(AuditEvent.objects.filter(action__startswith="campaign.").values_list("action", flat=True))
    assert {"campaign.paused", "campaign.resumed", "campaign.closed"} <= set(actions)


def test_an_approval_on_gold_standard_makes_the_card_community_validated_and_a_revocation_undoes_it(
        card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=10)
    rate_everything(campaign, lambda a: "excellent")
    with pytest.raises(services.ReviewError) as refused:
        services.record_decision(campaign=campaign, actor=governance_user, outcome="approve", rationale="   ")
    assert refused.value.field == "rationale"
    decision = services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="approve",
        rationale="The speakers found it excellent, though fewer than the policy asks.",
        against_recommendation=True,
    )
    card.refresh_from_db()
    campaign.refresh_from_db()
    assert card.verification_tier == "Community Validated"
    assert campaign.status == Campaign.Status.CLOSED
    assert decision.recommendation["outcome"] in {"pass", "fail", "insufficient_evidence"}
    assert transfer_eligible(card)
    services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="revoke",
        rationale="Elders found a cultural problem later.",
    )
    card.refresh_from_db()
    assert card.verification_tier != "Community Validated" and not transfer_eligible(card)
    assert list(Decision.objects.filter(campaign=campaign).values_list("outcome", flat=True)) == ["revoke", "approve"]
    tiers = [e.details["tier"] for e in AuditEvent.objects.filter(action="verification_tier.changed").order_by("id")]
    assert tiers == ["Community Validated", card.verification_tier]
    assert AuditEvent.objects.filter(action="review.decision").count() == 2


def test_decisions_are_never_edited(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=10)
    decision = services.record_decision(
        campaign=campaign,
        actor=governance_user,
        outcome="reject",
        rationale="Too many errors.",
    )
    decision.rationale = "changed"
    with pytest.raises(PermissionError):
        decision.save()
    with pytest.raises(services.ReviewError):
        services.record_decision(
            campaign=campaign,
            actor=governance_user,
            outcome="revoke",
            rationale="nothing to revoke",
        )


def test_an_approval_of_a_development_card_changes_no_tier(public_version, governance_user, speaker, steward):
    from corpus.models import Entry
    from leaderboard.services import submit_run_card

    from .cards import body, make_card
    from .review_setup import consent_to_everything, sandbox_operator

    consent_to_everything(public_version.dataset, governance_user)
    entries = list(Entry.objects.filter(version=public_version, segment="development"))
    card = submit_run_card(body=body(make_card(public_version, entries)), actor=sandbox_operator(steward))
    pool = speakers(steward, 3)
    campaign = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, sample_size=1))
    services.record_decision(campaign=campaign, actor=governance_user, outcome="approve",
                             rationale=OVERRIDE_REASON, against_recommendation=True)
    card.refresh_from_db()
    assert card.community_validated_at is None and not transfer_eligible(card)


def test_aggregates_come_from_current_ratings_only(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=10, ratings_per_item=3)
    rate_everything(campaign, lambda a: "reject")
    first = Assignment.objects.filter(campaign=campaign).order_by("pk").first()
    submit(first, "excellent")
    aggregate = campaign_aggregate(campaign)
    assert aggregate.campaign.coverage == 1.0
    assert aggregate.campaign.distribution == {"reject": 29, "gist": 0, "acceptable": 0, "excellent": 1}


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_copies_of_one_submission_store_one_rating(steward, governance_user):
    if connection.vendor != "postgresql":
        pytest.skip("concurrency is proven on PostgreSQL (SQLite serialises every write)")
    card = gold_card(steward, governance_user, count=20)
    pool = speakers(steward, 3)
    campaign = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, sample_size=5))
    assignment = Assignment.objects.filter(campaign=campaign).select_related("speaker").first()
    client_id = uuid.uuid4()
    barrier = threading.Barrier(20)
    outcomes, errors = [], []

    def post():
        try:
            barrier.wait()
            outcomes.append(submit(assignment, "acceptable", client_id)[1])
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert outcomes.count(True) == 1 and outcomes.count(False) == 19
    assert Rating.objects.filter(client_id=client_id).count() == 1
    assert RunCard.objects.count() == 1


def test_a_speaker_removed_from_the_pool_no_longer_sees_or_rates_their_items(client, card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=8, ratings_per_item=2)
    leaving = pool[0]
    rated = Assignment.objects.filter(campaign=campaign, speaker=leaving).first()
    submit(rated, "gist")
    services.remove_speaker(campaign=campaign, user=leaving, actor=governance_user)
    client.force_login(leaving)
    assert client.get(f"/review/items/{rated.public_id}/").status_code == 404
    with pytest.raises(services.NotAllowed):
        submit(rated, "excellent")
    assert Rating.objects.get(assignment=rated, is_current=True).value == "gist"


def test_taking_back_a_skipped_item_releases_its_unrated_replacement(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=8, ratings_per_item=2)
    assignment = Assignment.objects.filter(campaign=campaign).first()

    def holders():
        return Assignment.objects.filter(item=assignment.item, state__in=["open", "rated"]).count()

    for _ in range(2):  # a pool of 4, 2 ratings per item: two other speakers can stand in
        submit(assignment, "cannot_judge")
        assert holders() == 2, "the replacement holds it"
        services.undo_last_rating(campaign=campaign, actor=assignment.speaker)
        assert holders() == 2, "taking it back releases the unrated replacement"
    submit(assignment, "acceptable")
    assert holders() == 2


def test_a_resent_submission_id_with_another_rating_is_refused(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool)
    assignment = Assignment.objects.filter(campaign=campaign).first()
    client_id = uuid.uuid4()
    submit(assignment, "gist", client_id)
    with pytest.raises(services.ReviewError) as refused:
        submit(assignment, "excellent", client_id)
    assert "already saved" in str(refused.value)
    assert Rating.objects.get(assignment=assignment).value == "gist"


def test_the_latest_decision_over_all_campaigns_of_a_card_is_in_force(card, governance_user, pool):
    first = open_campaign(card, governance_user, pool, sample_size=10)
    second = open_campaign(card, governance_user, pool, sample_size=10, seed=9)
    services.record_decision(
        campaign=first,
        actor=governance_user,
        outcome="approve",
        rationale="First panel approves, on fewer items than the policy asks.",
        against_recommendation=True,
    )
    card.refresh_from_db()
    assert card.verification_tier == "Community Validated" and transfer_eligible(card)
    services.record_decision(
        campaign=second,
        actor=governance_user,
        outcome="reject",
        rationale="Second panel found cultural problems.",
    )
    card.refresh_from_db()
    assert card.verification_tier != "Community Validated" and not transfer_eligible(card)


def test_a_closed_campaigns_pool_no_longer_changes(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=8, ratings_per_item=2)
    services.set_campaign_status(campaign=campaign, actor=governance_user, status="closed")
    with pytest.raises(services.ReviewError):
        services.remove_speaker(campaign=campaign, user=pool[0], actor=governance_user)
    assert not Assignment.objects.filter(campaign=campaign, state="released").exists()


def test_removing_from_a_closed_campaign_tells_nothing_of_which_accounts_exist(client, card, governance_user, pool,
                                                                               outsider):
    campaign = open_campaign(card, governance_user, pool, sample_size=8, ratings_per_item=2)
    services.set_campaign_status(campaign=campaign, actor=governance_user, status="closed")
    client.force_login(governance_user)
    url = f"/review/campaigns/{campaign.public_id}/speakers/"
    existing = client.post(url, {"remove": str(outsider.pk)}, follow=True)
    missing = client.post(url, {"remove": "987654"}, follow=True)
    messages = [[str(message) for message in answer.context["messages"]] for answer in (existing, missing)]
    assert messages[0] == messages[1] and existing.status_code == missing.status_code


def test_ratings_exports_are_audited(client, card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=4, ratings_per_item=2)
    client.force_login(governance_user)
    assert client.get(f"/review/campaigns/{campaign.public_id}/ratings.csv").status_code == 200
    event = AuditEvent.objects.get(action="review.ratings_exported")
    assert event.details == {"format": "csv", "ratings": 0} and event.actor == governance_user


def test_removing_a_speaker_costs_the_same_queries_whatever_they_held(card, governance_user, pool,
                                                                       django_assert_max_num_queries):
    small = open_campaign(card, governance_user, pool, sample_size=4, ratings_per_item=2)
    large = open_campaign(card, governance_user, pool, sample_size=40, ratings_per_item=2, seed=5)
    for campaign in (small, large):
        with django_assert_max_num_queries(25):
            services.remove_speaker(campaign=campaign, user=pool[0], actor=governance_user)
    assert set(Counter(Assignment.objects.filter(campaign=large, state__in=["open", "rated"])
                       .values_list("item_id", flat=True)).values()) == {2}


@pytest.mark.django_db(transaction=True)
def test_two_cant_judge_answers_on_one_item_at_once_give_it_to_two_different_speakers(steward, governance_user):
    if connection.vendor != "postgresql":
        pytest.skip("concurrency is proven on PostgreSQL (SQLite serialises every write)")
    card = gold_card(steward, governance_user, count=20)
    pool = speakers(steward, 5)
    campaign = services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=5, ratings_per_item=2),
    )
    item = Item.objects.filter(campaign=campaign).first()
    holders = list(Assignment.objects.filter(item=item).select_related("speaker"))
    barrier = threading.Barrier(len(holders))
    errors = []

    def skip(assignment):
        try:
            barrier.wait()
            submit(assignment, "cannot_judge")
        except Exception as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=skip, args=(assignment,)) for assignment in holders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    stand_ins = Assignment.objects.filter(item=item, state="open")
    assert stand_ins.count() == 2 and len(set(stand_ins.values_list("speaker_id", flat=True))) == 2


def test_leaving_a_speaker_out_gives_their_items_to_the_rest_of_the_pool_at_once(card, governance_user, pool):
    campaign = open_campaign(card, governance_user, pool, sample_size=12, ratings_per_item=3)
    left_out = pool[0]
    mine = list(Assignment.objects.filter(campaign=campaign, speaker=left_out, state="open",
                                          item__is_control=False, is_repeat=False).select_related("speaker"))
    for assignment in mine[:4]:
        submit(assignment, "excellent")
    rated_items = {assignment.item_id for assignment in mine[:4]}
    open_items = {assignment.item_id for assignment in mine[4:]}
    services.exclude_speaker(campaign=campaign, actor=governance_user, speaker=left_out,
                             reason="Rated every output excellent without reading it.")

    assert not Assignment.objects.filter(campaign=campaign, speaker=left_out, state="open").exists()
    for item in rated_items | open_items:
        holders = Assignment.objects.filter(campaign=campaign, item_id=item, state__in=["open", "rated"]).exclude(
            speaker=left_out)
        assert holders.count() == 3, "each item is back to three speakers whose ratings count"
    event = AuditEvent.objects.get(action="review.speaker_excluded")
    assert event.details["released"] == len(open_items) and event.details["reassigned"] == len(rated_items | open_items)
    # While left out, the speaker gets nothing new when another speaker skips an item.
    other = Assignment.objects.filter(campaign=campaign, state="open").exclude(speaker=left_out).select_related(
        "speaker").first()
    submit(other, "cannot_judge")
    assert not Assignment.objects.filter(campaign=campaign, speaker=left_out, state="open").exists()
