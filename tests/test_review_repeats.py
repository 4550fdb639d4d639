"""Repeated items: a campaign may show each speaker a few of their items a second time, later in their order, to
measure consistency; the second rating never counts in the figures and the repeat is never reassigned."""

import pytest

from review import services
from review.aggregation import ItemObservations, Observation, aggregate
from review.models import Assignment, Campaign, Rating
from review.selectors import campaign_aggregate, repeat_pairs
from review.services import with_repeats

from .review_setup import settings_for, speakers, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool_size() -> int:
    """Three speakers."""
    return 3


def open_with_repeats(card, governance_user, pool, repeats=3, **overrides):
    values = settings_for(pool, sample_size=12, repeat_count=repeats, **overrides)
    return services.open_campaign(run_card=card, actor=governance_user, values=values)


def test_the_second_showing_comes_half_the_list_later_and_controls_never_repeat():
    # Order 10..19 (20 is a control): the first 3 reviewed items come back 5 places later.
    order = [10, 11, 12, 20, 13, 14, 15, 16, 17, 18, 19]
    shown = with_repeats(order, 3, controls={20})
    assert [item for item, again in shown if again] == [10, 11, 12]
    assert len(shown) == len(order) + 3
    for item in (10, 11, 12):
        first = shown.index((item, False))
        assert shown.index((item, True)) - first >= 5
    assert with_repeats(order, 0, set()) == [(item, False) for item in order]
    # Never more than half of the reviewed items come back.
    assert sum(again for _, again in with_repeats([1, 2, 3], 20, set())) == 1


def test_each_speaker_gets_their_repeats_and_the_campaign_records_the_setting(card, governance_user, pool):
    campaign = open_with_repeats(card, governance_user, pool)
    assert campaign.repeat_count == 3
    for speaker in pool:
        mine = list(Assignment.objects.filter(campaign=campaign, speaker=speaker).order_by("position"))
        repeats = [a for a in mine if a.is_repeat]
        assert len(repeats) == 3
        for repeat in repeats:
            original = next(a for a in mine if a.item_id == repeat.item_id and not a.is_repeat)
            assert repeat.position > original.position
        assert len({a.position for a in mine}) == len(mine)


def rate_in_order(campaign, speaker, value_for):
    while (assignment := Assignment.objects.filter(campaign=campaign, speaker=speaker, state="open")
           .order_by("position").first()) is not None:
        submit(assignment, value_for(assignment))


def test_the_second_rating_never_counts_and_consistency_is_measured(card, governance_user, pool):
    campaign = open_with_repeats(card, governance_user, pool)
    flip = pool[0]
    for speaker in pool:
        # The first speaker answers the repeats the other way round: reject where they first said excellent.
        rate_in_order(campaign, speaker,
                      lambda a: "reject" if a.is_repeat and a.speaker_id == flip.pk else "excellent")
    result = campaign_aggregate(campaign)
    assert result.campaign.rating_count == 12 * 3, "the 9 repeat ratings are not in the figures"
    assert result.campaign.usable_share == 1.0 and result.campaign.coverage == 1.0
    by_speaker = {s.speaker_id: s for s in result.speakers}
    assert (by_speaker[flip.pk].repeat_pairs, by_speaker[flip.pk].repeat_same) == (3, 0)
    assert by_speaker[flip.pk].repeat_step_change == 3.0
    assert any("same usable / not-usable answer to only 0 of 3 items shown twice" in str(reason)
               for reason in by_speaker[flip.pk].reasons)
    steady = by_speaker[pool[1].pk]
    assert (steady.repeat_pairs, steady.repeat_same, steady.repeat_consistency) == (3, 3, 1.0)
    assert not any("shown twice" in str(reason) for reason in steady.reasons)
    assert len(repeat_pairs(campaign)) == 9 and repeat_pairs(campaign, without=[flip.pk]) != repeat_pairs(campaign)


def test_skipping_a_repeat_reassigns_nothing_and_leaving_releases_repeats_without_reassigning(
        card, governance_user, pool, steward):
    campaign = open_with_repeats(card, governance_user, pool)
    before = Assignment.objects.filter(campaign=campaign).count()
    repeat = Assignment.objects.filter(campaign=campaign, speaker=pool[0], is_repeat=True).first()
    submit(repeat, "cannot_judge")
    assert Assignment.objects.filter(campaign=campaign).count() == before
    extra = speakers(steward, 4)[-1]
    services.add_speaker(campaign=campaign, user=extra, actor=governance_user)
    open_repeats = Assignment.objects.filter(campaign=campaign, speaker=pool[1], is_repeat=True, state="open").count()
    open_items = Assignment.objects.filter(campaign=campaign, speaker=pool[1], is_repeat=False, state="open").count()
    moved = services.remove_speaker(actor=governance_user, campaign=campaign, user=pool[1])
    assert moved == open_items and open_repeats == 3
    assert not Assignment.objects.filter(campaign=campaign, is_repeat=True).exclude(
        speaker__in=pool).exists(), "a repeat is never given to another speaker"


@pytest.mark.parametrize("repeats", [-1, 21])
def test_the_setting_is_bounded(card, governance_user, pool, repeats):
    with pytest.raises(services.ReviewError) as refused:
        open_with_repeats(card, governance_user, pool, repeats=repeats)
    assert refused.value.field == "repeat_count" and not Campaign.objects.exists()


def test_the_campaign_form_offers_the_setting_and_names_a_bad_value(client, card, governance_user, pool):
    client.force_login(governance_user)
    url = f"/review/campaigns/new/{card.public_id}/"
    assert 'name="repeat_count"' in client.get(url).content.decode()
    form = {"title": "Twice", "sample_size": "12", "ratings_per_item": "3", "seed": "5", "control_count": "0",
            "speakers": [p.pk for p in pool], "below_threshold_reason": ""}
    refused = client.post(url, {**form, "repeat_count": "30"})
    assert refused.status_code == 400 and "less than or equal to 20" in refused.content.decode()
    assert client.post(url, {**form, "repeat_count": "2"}).status_code == 302
    assert Campaign.objects.get().repeat_count == 2
    assert Rating.objects.count() == 0


def test_aggregate_reads_repeats_only_for_consistency():
    items = [ItemObservations(1, 1, "", False, (Observation(1, "excellent"), Observation(2, "excellent")))]
    plain = aggregate(items, 2)
    with_pairs = aggregate(items, 2, repeats=[(1, "excellent", "gist"), (1, "excellent", "acceptable")])
    assert with_pairs.campaign == plain.campaign
    speaker = {s.speaker_id: s for s in with_pairs.speakers}[1]
    assert (speaker.repeat_pairs, speaker.repeat_same, speaker.repeat_step_change) == (2, 1, 1.5)


def test_the_decision_page_shows_each_speakers_consistency(client, card, governance_user, pool):
    campaign = open_with_repeats(card, governance_user, pool)
    for speaker in pool:
        rate_in_order(campaign, speaker, lambda a: "gist" if a.is_repeat and a.speaker_id == pool[0].pk
                      else "excellent")
    client.force_login(governance_user)
    html = " ".join(client.get(f"/review/campaigns/{campaign.public_id}/decision/").content.decode().split())
    assert "Same answer when shown twice" in html
    assert "0 of 3, 2.0 steps apart on average" in html and "3 of 3, 0.0 steps apart on average" in html


def test_the_ratings_export_marks_the_second_ratings(client, card, governance_user, pool):
    campaign = open_with_repeats(card, governance_user, pool, repeats=2)
    rate_in_order(campaign, pool[0], lambda a: "acceptable")
    client.force_login(governance_user)
    lines = client.get(f"/review/campaigns/{campaign.public_id}/ratings.csv").content.decode("utf-8-sig").splitlines()
    header = lines[0].split(",")
    column = header.index("shown_twice")
    marks = [line.split(",")[column] for line in lines[1:]]
    assert marks.count("True") == 2 and marks.count("False") == len(marks) - 2


def test_undoing_a_skipped_repeat_releases_nobody_elses_item(card, governance_user, pool):
    campaign = open_with_repeats(card, governance_user, pool)
    for assignment in Assignment.objects.filter(campaign=campaign, speaker=pool[0]).order_by("position"):
        submit(assignment, "cannot_judge" if assignment.is_repeat else "acceptable")
        if assignment.is_repeat:
            break  # the skipped repeat is the speaker's latest answer
    open_before = set(Assignment.objects.filter(campaign=campaign, state="open").values_list("pk", flat=True))
    undone = services.undo_last_rating(actor=pool[0], campaign=campaign)
    assert undone.is_repeat and undone.state == "open"
    assert open_before <= set(Assignment.objects.filter(campaign=campaign, state="open").values_list("pk", flat=True))


def test_taking_back_a_skipped_item_never_releases_the_own_repeat_or_an_earlier_showing(card, governance_user, pool):
    campaign = open_with_repeats(card, governance_user, pool)
    repeat = Assignment.objects.filter(campaign=campaign, speaker=pool[0], is_repeat=True).order_by("position").first()
    first = Assignment.objects.get(campaign=campaign, speaker=pool[0], item=repeat.item, is_repeat=False)
    submit(first, "cannot_judge")  # every speaker already holds the item: nobody can replace them
    submit(first, "excellent")     # taken back from the history
    repeat.refresh_from_db()
    assert repeat.state == "open"
    others = Assignment.objects.filter(item=repeat.item, is_repeat=False).exclude(speaker=pool[0])
    assert all(a.state == "open" for a in others)


def test_an_item_held_twice_by_one_speaker_still_counts_short_when_a_speaker_leaves(card, governance_user, pool):
    campaign = open_with_repeats(card, governance_user, pool)
    services.remove_speaker(actor=governance_user, campaign=campaign, user=pool[0])  # nobody free to take over
    short = {item.pk for item in services.items_short_of_ratings(campaign)}
    left = set(Assignment.objects.filter(campaign=campaign, speaker=pool[0], is_repeat=False,
                                         item__is_control=False).values_list("item_id", flat=True))
    held_twice = set(Assignment.objects.filter(campaign=campaign, is_repeat=True).exclude(speaker=pool[0])
                     .values_list("item_id", flat=True))
    assert left & held_twice, "the draw gives some item both a leaver and a second showing"
    assert left <= short
