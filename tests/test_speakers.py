"""Qualified speakers (issue item 8, benchmark specification §7.3.2): the languages a speaker reads and writes,
attested by governance staff or a vouching speaker; review pools drawn only from speakers qualified for the card's
pair (and variety), enforced on the queue and the rating post; the practice round; conflicts of interest."""

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.services import get_or_create_user
from leaderboard.models import ConflictDeclaration, RunCard
from leaderboard.services import declare_conflict, register_method, withdraw_conflict
from organizations.models import AuditEvent
from organizations.services import add_member
from review import services as review
from review.models import Assignment, Campaign, CampaignSpeaker
from speakers import services
from speakers.models import Attestation, LanguageSkill, PracticeAttempt, PracticeItem, Proficiency
from speakers.selectors import Requirement, qualification_problems

from .conftest import PASSWORD, member, qualify
from .review_setup import open_campaign, sandbox_operator, speakers

pytestmark = pytest.mark.django_db


def unqualified(email, organization):
    """A speaker of the organization who stated no language (or whose languages nobody attested)."""
    user, _, _ = add_member(email=email, organization=organization, role="speaker", password=PASSWORD, actor=None)
    return user


def actions(organization, action):
    return list(AuditEvent.objects.filter(organization=organization, action=action).order_by("id"))


# What a speaker states.

def test_a_language_is_one_language_however_its_code_is_written(steward):
    user = unqualified("lang@steward.example", steward)
    skill = services.add_skill(actor=user, language="EN", reading=4, writing=3)
    assert (skill.language, skill.script, skill.variety) == ("eng", "", "")
    for spelling in ("en", "eng", " en-CA "):
        with pytest.raises(services.SpeakerError, match="already recorded") as refused:
            services.add_skill(actor=user, language=spelling, reading=2, writing=2)
        assert refused.value.field == "language"
    syllabics = services.add_skill(actor=user, language="crk-Cans", reading=3, writing=0, variety="Plains Cree")
    assert (syllabics.language, syllabics.script, syllabics.variety_key) == ("crk", "Cans", "plains cree")
    with pytest.raises(services.SpeakerError, match="already recorded"):
        services.add_skill(actor=user, language="crk", script="cans", variety="PLAINS  cree", reading=1, writing=1)
    assert LanguageSkill.objects.filter(user=user).count() == 2


@pytest.mark.parametrize(("fields", "field"), [
    ({"language": ""}, "language"),
    ({"language": "Plains Cree"}, "language"),
    ({"language": "cr\x00k"}, "language"),
    ({"language": "c" * 100_000}, "language"),
    ({"script": "Latin"}, "script"),
    ({"language": "crk-Cans", "script": "Latn"}, "script"),
    ({"variety": "y\x00dialect"}, "variety"),
    ({"variety": "v" * 101}, "variety"),
    ({"reading": 7}, "reading"),
    ({"reading": "3"}, "reading"),
    ({"writing": True}, "writing"),
    ({"reading": 0, "writing": 0}, "reading"),
])
def test_a_refused_language_names_its_field_and_stores_nothing(steward, fields, field):
    user = unqualified("hostile@steward.example", steward)
    values = {"language": "crk", "reading": 3, "writing": 2} | fields
    with pytest.raises(services.SpeakerError) as refused:
        services.add_skill(actor=user, **values)
    assert refused.value.field == field
    assert not LanguageSkill.objects.filter(user=user).exists()


def test_my_languages_page_adds_changes_and_removes_a_language(client, steward):
    user = unqualified("page@steward.example", steward)
    client.force_login(user)
    response = client.post("/speakers/", {"language": "crk", "variety": "Plains Cree", "script": "Latn",
                                          "reading": "4", "writing": "3"})
    assert response.status_code == 302
    skill = LanguageSkill.objects.get(user=user)
    page = client.get("/speakers/").content.decode()
    assert "Plains Cree" in page and "Not yet: ask your community" in page
    refused = client.post("/speakers/", {"language": "Plains Cree", "reading": "4", "writing": "3"})
    assert refused.status_code == 400 and "is not a language code" in refused.content.decode()
    client.post(f"/speakers/skills/{skill.pk}/", {f"skill-{skill.pk}-reading": "2", f"skill-{skill.pk}-writing": "2"})
    skill.refresh_from_db()
    assert (skill.reading, skill.writing) == (2, 2)
    other = unqualified("other@steward.example", steward)
    client.force_login(other)
    assert client.post(f"/speakers/skills/{skill.pk}/remove/").status_code == 404
    client.force_login(user)
    client.post(f"/speakers/skills/{skill.pk}/remove/")
    assert not LanguageSkill.objects.filter(user=user).exists()


# Attestations.

def test_governance_staff_attest_a_speakers_language_and_it_is_audited(client, steward, governance_user):
    user = unqualified("attest@steward.example", steward)
    skill = services.add_skill(actor=user, language="crk", reading=4, writing=2)
    client.force_login(governance_user)
    page = client.get("/speakers/orgs/steward/").content.decode()
    assert "attest@steward.example" in page and "Attest crk of attest@steward.example" in page
    client.post(f"/speakers/orgs/steward/attest/{skill.pk}/")
    attestation = Attestation.objects.get(skill=skill)
    assert (attestation.kind, attestation.attested_by, attestation.reading) == ("governance", governance_user, 4)
    event = actions(steward, "speaker_skill.attested")[-1]
    assert event.details["speaker"] == user.email and event.details["kind"] == "governance"
    with pytest.raises(services.SpeakerError, match="already attested"):
        services.attest_skill(actor=governance_user, skill=skill, organization=steward)
    with pytest.raises(services.NotAllowed, match="Nobody attests their own"):
        services.attest_skill(actor=governance_user, organization=steward,
                              skill=services.add_skill(actor=governance_user, language="crk", reading=4, writing=4))


def test_attesting_needs_a_speaker_of_the_organization_and_governance_staff_or_a_voucher(steward, other_org,
                                                                                         governance_user, outsider):
    stranger, _ = get_or_create_user("stranger@example.org", PASSWORD)
    skill = services.add_skill(actor=stranger, language="crk", reading=4, writing=4)
    with pytest.raises(services.SpeakerError, match="is not a speaker of Steward Nation"):
        services.attest_skill(actor=governance_user, skill=skill, organization=steward)
    speaker = unqualified("plain@steward.example", steward)
    their = services.add_skill(actor=speaker, language="crk", reading=4, writing=4)
    with pytest.raises(services.NotAllowed, match="Only governance staff of Steward Nation"):
        services.attest_skill(actor=outsider, skill=their, organization=steward)
    assert not Attestation.objects.filter(skill=their).exists()


def test_a_speaker_attested_in_a_language_vouches_for_another_in_it(client, steward):
    voucher = member("voucher@steward.example", steward, "speaker")  # attested: en and crk, expert
    newcomer = unqualified("newcomer@steward.example", steward)
    crk = services.add_skill(actor=newcomer, language="crk", reading=3, writing=1, variety="Plains Cree")
    french = services.add_skill(actor=newcomer, language="fr", reading=4, writing=4)
    client.force_login(voucher)
    page = client.get("/speakers/vouch/steward/", {"email": "NEWCOMER@steward.example"}).content.decode()
    assert "Vouch for crk (Plains Cree)" in page and "fr" not in page.split("<h1>")[1].split("Vouch for")[0]
    assert f'value="{french.pk}"' not in page, "only in languages the voucher is attested in"
    client.post("/speakers/vouch/steward/", {"email": newcomer.email, "skill": crk.pk})
    attestation = Attestation.objects.get(skill=crk)
    assert (attestation.kind, attestation.attested_by) == ("vouching", voucher)
    assert actions(steward, "speaker_skill.attested")[-1].details["kind"] == "vouching"
    assert client.post("/speakers/vouch/steward/", {"email": newcomer.email, "skill": french.pk}).status_code == 404
    # The voucher takes it back; their own attestation is not needed for that.
    client.post(f"/speakers/attestations/{attestation.pk}/withdraw/")
    attestation.refresh_from_db()
    assert attestation.withdrawn_by == voucher
    # A speaker whose own reading is not attested fluently vouches for nobody.
    client.force_login(newcomer)
    vouching = client.get("/speakers/vouch/steward/").content.decode()
    assert "You may vouch for other speakers in a language once" in vouching
    with pytest.raises(services.NotAllowed, match="attested as reading crk fluently"):
        services.attest_skill(actor=newcomer, organization=steward, skill=LanguageSkill.objects.get(
            user=voucher, language="crk"))


def test_the_speakers_pages_are_for_their_people_only(client, steward, speaker, outsider, governance_user):
    client.force_login(speaker)
    assert client.get("/speakers/orgs/steward/").status_code == 404
    assert client.get("/speakers/orgs/steward/practice/").status_code == 404
    client.force_login(outsider)
    assert client.get("/speakers/vouch/steward/").status_code == 404
    assert client.get("/speakers/practice/steward/").status_code == 404
    attestation = Attestation.objects.filter(skill__user=speaker).first()
    assert client.post(f"/speakers/attestations/{attestation.pk}/withdraw/").status_code == 404
    assert Attestation.objects.get(pk=attestation.pk).withdrawn_at is None


def test_the_governance_page_costs_the_same_queries_however_many_speakers(client, steward, governance_user,
                                                                          django_assert_max_num_queries):
    speakers(steward, 2)
    client.force_login(governance_user)
    client.get("/speakers/orgs/steward/")
    with django_assert_max_num_queries(18) as few:
        assert client.get("/speakers/orgs/steward/").status_code == 200
    speakers(steward, 12)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert client.get("/speakers/orgs/steward/").status_code == 200


# Who may be in a pool.

def test_an_unqualified_speaker_is_refused_by_name_and_nothing_is_stored(card, governance_user, pool, steward):
    newcomer = unqualified("newcomer@steward.example", steward)
    with pytest.raises(review.ReviewError) as refused:
        open_campaign(card, governance_user, [*pool, newcomer])
    assert refused.value.field == "speakers"
    assert "newcomer@steward.example (no fluent reading of crk attested in Steward Nation)" in str(refused.value)
    assert not Campaign.objects.exists()
    campaign = open_campaign(card, governance_user, pool)
    with pytest.raises(review.ReviewError, match="newcomer@steward.example cannot review this run card: no fluent "
                                                 "reading of crk") as refused:
        review.add_speaker(actor=governance_user, campaign=campaign, user=newcomer)
    assert refused.value.field == "speaker"
    assert not CampaignSpeaker.objects.filter(user=newcomer).exists()


def test_the_source_language_needs_working_reading_and_the_target_fluent_reading(card, governance_user, pool,
                                                                                 steward):
    weak_source = qualify(unqualified("weak-source@steward.example", steward), steward, ("en",), reading=1)
    qualify(weak_source, steward, ("crk",))
    weak_target = qualify(unqualified("weak-target@steward.example", steward), steward, ("crk",), reading=2)
    qualify(weak_target, steward, ("en",), reading=2)
    working = qualify(unqualified("working@steward.example", steward), steward, ("en",), reading=2)
    qualify(working, steward, ("crk",), reading=3)
    with pytest.raises(review.ReviewError) as refused:
        open_campaign(card, governance_user, [*pool, weak_source, weak_target, working])
    message = str(refused.value)
    assert "weak-source@steward.example (no reading of eng at the working level or above" in message
    assert "weak-target@steward.example (no fluent reading of crk" in message
    assert "working@steward.example" not in message
    assert open_campaign(card, governance_user, [*pool, working]).pool.count() == 5


def test_an_attestation_elsewhere_does_not_qualify_here(card, governance_user, pool, steward, other_org):
    user = unqualified("elsewhere@steward.example", steward)
    add_member(email=user.email, organization=other_org, role="speaker", actor=None)
    qualify(user, other_org)
    with pytest.raises(review.ReviewError, match="elsewhere@steward.example .no fluent reading of crk attested in "
                                                 "Steward Nation"):
        open_campaign(card, governance_user, [*pool, user])


def test_the_campaign_form_lists_who_may_not_review_and_why(client, card, governance_user, pool, steward):
    unqualified("newcomer@steward.example", steward)
    client.force_login(governance_user)
    page = client.get(f"/review/campaigns/new/{card.public_id}/").content.decode()
    assert "newcomer@steward.example — not available: no fluent reading of crk attested in Steward Nation" in page
    data = {"title": "T", "sample_size": "10", "ratings_per_item": "3", "seed": "1", "control_count": "0",
            "speakers": [user.pk for user in pool] + [unqualified("second@steward.example", steward).pk]}
    response = client.post(f"/review/campaigns/new/{card.public_id}/", data)
    assert response.status_code == 400
    assert "second@steward.example (no fluent reading of crk" in response.content.decode()
    assert not Campaign.objects.exists()


def test_a_campaign_may_ask_for_a_variety(card, governance_user, steward):
    plains = [qualify(unqualified(f"plains{n}@steward.example", steward), steward, variety="PLAINS Cree")
              for n in range(3)]
    anyone = qualify(unqualified("anyone@steward.example", steward), steward)
    with pytest.raises(review.ReviewError, match=r"anyone@steward.example \(no fluent reading of crk \(Plains Cree\)"):
        open_campaign(card, governance_user, [*plains, anyone], variety=" Plains  Cree ")
    campaign = open_campaign(card, governance_user, plains, variety="plains cree")
    assert campaign.variety == "plains cree"
    with pytest.raises(review.ReviewError, match="anyone@steward.example cannot review"):
        review.add_speaker(actor=governance_user, campaign=campaign, user=anyone)
    with pytest.raises(review.ReviewError) as refused:
        open_campaign(card, governance_user, plains, variety="v" * 101)
    assert refused.value.field == "variety"


def test_a_script_named_by_the_datasets_tag_must_be_attested(steward):
    user = qualify(unqualified("sro@steward.example", steward), steward, ("crk",), script="Latn")
    qualify(user, steward, ("en",))
    syllabics = Requirement.of(steward, "en", "crk-Cans")
    assert "no fluent reading of crk-Cans" in qualification_problems(syllabics, [user.pk])[user.pk]
    assert not qualification_problems(Requirement.of(steward, "en", "crk-Latn"), [user.pk])
    assert not qualification_problems(Requirement.of(steward, "eng", "crk"), [user.pk])


def test_a_raised_level_counts_once_attested_again(steward):
    user = qualify(unqualified("raise@steward.example", steward), steward, ("en",))
    qualify(user, steward, ("crk",), reading=2)
    requirement = Requirement.of(steward, "en", "crk")
    skill = LanguageSkill.objects.get(user=user, language="crk")
    services.change_skill(actor=user, skill=skill, reading=4, writing=4)
    assert user.pk in qualification_problems(requirement, [user.pk]), "stated, not attested"
    services.attest_skill(actor=None, skill=skill, organization=steward)
    assert not qualification_problems(requirement, [user.pk])
    assert Attestation.objects.filter(skill=skill).count() == 2, "the earlier attestation stays, withdrawn"


# Losing the qualification leaves the pools at once.

def test_a_withdrawn_attestation_takes_the_speaker_out_of_open_pools(client, card, governance_user, pool, steward):
    campaign = open_campaign(card, governance_user, pool, sample_size=12)
    leaving = pool[0]
    held = list(Assignment.objects.filter(campaign=campaign, speaker=leaving, state="open"))
    attestation = Attestation.objects.get(skill__user=leaving, skill__language="crk", organization=steward)
    client.force_login(governance_user)
    client.post(f"/speakers/attestations/{attestation.pk}/withdraw/", {"reason": "Not a fluent reader after all"})
    attestation.refresh_from_db()
    assert attestation.withdrawn_at is not None and attestation.withdrawal_reason == "Not a fluent reader after all"
    member = CampaignSpeaker.objects.get(campaign=campaign, user=leaving)
    assert member.left_at is not None
    assert not Assignment.objects.filter(campaign=campaign, speaker=leaving, state="open").exists()
    for assignment in held:
        assert Assignment.objects.filter(item=assignment.item, state="open").exclude(speaker=leaving).exists()
    removed = actions(steward, "campaign.speaker_removed")[-1]
    assert removed.details["reason"].startswith("no longer qualified: no fluent reading of crk")
    assert actions(steward, "speaker_skill.attestation_withdrawn")[-1].details["reason"] == (
        "Not a fluent reader after all")
    # No item left for them, and their former item answers like an item that does not exist.
    client.force_login(leaving)
    assert str(campaign.public_id) not in client.get("/review/").content.decode()
    foreign, missing = held[0].public_id, uuid.uuid4()
    for item in (foreign, missing):
        assert client.get(f"/review/items/{item}/").status_code == 404
    posts = [client.post(f"/review/items/{item}/", {"client_id": str(uuid.uuid4()), "value": "excellent"})
             for item in (foreign, missing)]
    assert [post.status_code for post in posts] == [404, 404]
    assert posts[0].content == posts[1].content
    assert not held[0].ratings.exists()


def test_lowering_or_removing_a_language_leaves_the_pools_it_no_longer_qualifies_for(card, governance_user, pool,
                                                                                       steward):
    campaign = open_campaign(card, governance_user, pool)
    first, second = pool[0], pool[1]
    services.change_skill(actor=first, skill=LanguageSkill.objects.get(user=first, language="crk"), reading=2,
                          writing=2)
    services.change_skill(actor=second, skill=LanguageSkill.objects.get(user=second, language="eng"), reading=3,
                          writing=1)
    active = set(campaign.pool.filter(left_at__isnull=True).values_list("user_id", flat=True))
    assert first.pk not in active and second.pk in active, "working reading of the source is still enough"
    services.remove_skill(actor=second, skill=LanguageSkill.objects.get(user=second, language="eng"))
    assert not campaign.pool.filter(user=second, left_at__isnull=True).exists()
    assert actions(steward, "speaker_skill.attestation_withdrawn")[-1].details["reason"] == (
        "the speaker removed the language")


def test_an_unqualified_speaker_gets_no_items_and_a_refused_rating(client, card, governance_user, pool, steward):
    campaign = open_campaign(card, governance_user, pool)
    outsider_item = Assignment.objects.filter(campaign=campaign, state="open").first()
    newcomer = unqualified("newcomer@steward.example", steward)
    client.force_login(newcomer)
    queue = client.get("/review/").content.decode()
    assert "No review is waiting for you" in queue
    assert client.get(f"/review/c/{campaign.public_id}/").status_code == 404
    missing = uuid.uuid4()
    pages = [client.get(f"/review/items/{item}/") for item in (outsider_item.public_id, missing)]
    assert [page.status_code for page in pages] == [404, 404] and pages[0].content == pages[1].content
    for item in (outsider_item.public_id, missing):
        for accept in ("text/html", "application/json"):
            response = client.post(f"/review/items/{item}/", {"client_id": str(uuid.uuid4()), "value": "excellent"},
                                   HTTP_ACCEPT=accept)
            assert response.status_code == 404
    assert not outsider_item.ratings.exists()


# The practice round.

def write_items(organization, actor, count=5):
    return [services.save_practice_item(
        actor=actor, organization=organization, source=f"I see the dog ({n})", candidate=f"niwâpamâw atim {n}",
        right={"acceptable", "excellent"}, explanation=f"Explanation {n}: the verb agrees with the animate noun.",
        source_language="en", target_language="crk") for n in range(count)]


def test_practice_items_and_settings_are_checked_by_field(steward, governance_user, speaker):
    with pytest.raises(services.SpeakerError) as refused:
        services.set_practice_round(actor=governance_user, organization=steward, required=True, pass_mark_percent=80,
                                    retry_wait_hours=24)
    assert refused.value.field == "required" and "at least 5 practice items" in refused.value.message
    for fields, field in (({"source": "a\x00b"}, "source"), ({"candidate": "x" * 2001}, "candidate"),
                          ({"explanation": " "}, "explanation"), ({"right": {"superb"}}, "right"),
                          ({"right": set()}, "right"), ({"target_language": "Cree!"}, "target_language")):
        values = {"source": "s", "candidate": "c", "right": {"gist"}, "explanation": "e"} | fields
        with pytest.raises(services.SpeakerError) as refused:
            services.save_practice_item(actor=governance_user, organization=steward, **values)
        assert refused.value.field == field
    assert not PracticeItem.objects.exists()
    for pass_mark, wait, field in ((49, 24, "pass_mark_percent"), (101, 24, "pass_mark_percent"),
                                   (80, 721, "retry_wait_hours"), (80, -1, "retry_wait_hours")):
        with pytest.raises(services.SpeakerError) as refused:
            services.set_practice_round(actor=governance_user, organization=steward, required=False,
                                        pass_mark_percent=pass_mark, retry_wait_hours=wait)
        assert refused.value.field == field
    with pytest.raises(services.NotAllowed):
        write_items(steward, speaker, 1)
    items = write_items(steward, governance_user)
    services.set_practice_round(actor=governance_user, organization=steward, required=True, pass_mark_percent=80,
                                retry_wait_hours=24)
    with pytest.raises(services.SpeakerError, match="needs at least 5 items"):
        services.retire_practice_item(actor=governance_user, item=items[0])
    assert [event.details["change"] for event in actions(steward, "practice.item_changed")] == ["written"] * 5


def take(client, organization, answers):
    """Start (or continue) the practice round through its pages and give `answers` in order; the last page."""
    response = client.post(f"/speakers/practice/{organization.slug}/")
    attempt = PracticeAttempt.objects.filter(finished_at__isnull=True).latest("pk")
    assert response["Location"] == f"/speakers/practice/{organization.slug}/{attempt.pk}/1/"
    page = None
    for position, value in enumerate(answers, start=1):
        url = f"/speakers/practice/{organization.slug}/{attempt.pk}/{position}/"
        assert 'name="value" value="excellent"' in client.get(url).content.decode()
        assert client.post(url, {"value": value})["Location"] == url
        page = client.get(url).content.decode()
    return attempt, page


def test_practice_fail_wait_retry_and_pass(client, card, governance_user, pool, steward):
    write_items(steward, governance_user)
    services.set_practice_round(actor=governance_user, organization=steward, required=True, pass_mark_percent=80,
                                retry_wait_hours=24)
    trainee = pool[0]
    with pytest.raises(review.ReviewError, match="speaker1@steward.example .has not passed the practice round"):
        open_campaign(card, governance_user, pool)
    client.force_login(trainee)
    assert "/speakers/practice/steward/" in client.get("/review/").content.decode()

    attempt, page = take(client, steward, ["gist", "reject", "excellent", "acceptable", "gist"])
    assert "Not quite" in page and "Explanation 4: the verb agrees" in page and "See your result" in page
    attempt.refresh_from_db()
    assert (attempt.right, attempt.passed) == (2, False)
    result = client.get(f"/speakers/practice/steward/{attempt.pk}/result/").content.decode()
    assert "2 of 5 right" in result and "You can try again from" in result
    assert actions(steward, "practice.failed")[-1].details == {
        "speaker": trainee.email, "right": 2, "items": 5, "pass_mark_percent": 80}
    PracticeAttempt.objects.create(organization=steward, user=pool[1], items=[], pass_mark_percent=80,
                                   finished_at=timezone.now(), passed=True)
    assert "/speakers/practice/steward/" in client.get("/review/").content.decode(), "another's pass is not theirs"
    refused = client.post("/speakers/practice/steward/", follow=True).content.decode()
    assert "You can try again from" in refused
    assert PracticeAttempt.objects.filter(user=trainee).count() == 1

    PracticeAttempt.objects.filter(pk=attempt.pk).update(finished_at=timezone.now() - timedelta(hours=25))
    second, page = take(client, steward, ["excellent", "acceptable", "excellent", "gist", "acceptable"])
    second.refresh_from_db()
    assert (second.right, second.passed) == (4, True)
    assert "4 of 5 right" in client.get(f"/speakers/practice/steward/{second.pk}/result/").content.decode()
    assert actions(steward, "practice.passed")[-1].details["right"] == 4
    assert "/speakers/practice/steward/" not in client.get("/review/").content.decode()
    for other in pool[2:]:
        PracticeAttempt.objects.create(organization=steward, user=other, items=[], pass_mark_percent=80,
                                       finished_at=timezone.now(), passed=True)
    assert open_campaign(card, governance_user, pool).pool.count() == 4


def test_practice_answers_are_taken_once_and_in_order(client, steward, governance_user, speaker):
    write_items(steward, governance_user)
    attempt = services.start_practice(actor=speaker, organization=steward)
    assert services.start_practice(actor=speaker, organization=steward) == attempt, "the open attempt, again"
    with pytest.raises(services.SpeakerError, match="in order"):
        services.answer_practice_item(actor=speaker, attempt=attempt, position=2, value="gist")
    with pytest.raises(services.SpeakerError) as refused:
        services.answer_practice_item(actor=speaker, attempt=attempt, position=1, value="superb")
    assert refused.value.field == "value"
    first = services.answer_practice_item(actor=speaker, attempt=attempt, position=1, value="gist")
    assert services.answer_practice_item(actor=speaker, attempt=attempt, position=1, value="gist") == first
    with pytest.raises(services.SpeakerError, match="already answered"):
        services.answer_practice_item(actor=speaker, attempt=attempt, position=1, value="excellent")
    other = member("other@steward.example", steward, "speaker")
    with pytest.raises(services.NotAllowed):
        services.answer_practice_item(actor=other, attempt=attempt, position=2, value="gist")
    client.force_login(other)
    assert client.get(f"/speakers/practice/steward/{attempt.pk}/2/").status_code == 404
    client.force_login(speaker)
    assert client.get(f"/speakers/practice/steward/{attempt.pk}/4/")["Location"].endswith(f"/{attempt.pk}/2/")


def test_governance_staff_write_the_practice_round_on_its_pages(client, steward, governance_user):
    client.force_login(governance_user)
    refused = client.post("/speakers/orgs/steward/practice/items/new/", {
        "source": "I see the dog", "candidate": "niwâpamâw atim", "explanation": "", "right": ["acceptable"]})
    assert refused.status_code == 400
    client.post("/speakers/orgs/steward/practice/items/new/", {
        "source": "I see the dog", "candidate": "niwâpamâw atim", "explanation": "Right verb, right noun.",
        "right": ["acceptable", "excellent"], "target_language": "crk"})
    item = PracticeItem.objects.get()
    assert item.right_ratings == ["acceptable", "excellent"]
    response = client.post("/speakers/orgs/steward/practice/", {"required": "on", "pass_mark_percent": "80",
                                                                "retry_wait_hours": "24"})
    assert response.status_code == 400 and "Write at least 5 practice items" in response.content.decode()
    client.post(f"/speakers/orgs/steward/practice/items/{item.pk}/retire/")
    item.refresh_from_db()
    assert item.retired_at is not None


# Conflicts of interest.

def test_the_cards_submitter_and_its_methods_author_are_never_in_the_pool(card, governance_user, pool, steward):
    operator = sandbox_operator(steward)
    add_member(email=operator.email, organization=steward, role="speaker", actor=None)
    qualify(operator, steward)
    with pytest.raises(review.ReviewError, match=r"sandbox@steward.example \(conflict of interest: submitted the run "
                                                 r"card\)"):
        open_campaign(card, governance_user, [*pool, operator])
    developer = pool[3]
    method = register_method(actor=developer, body={"method_card": {
        "method_id": "crk-coached", "name": "Coached Cree", "class": "coached-llm", "author": "A developer"}})
    RunCard.objects.filter(pk=card.pk).update(method=method)
    card.refresh_from_db()
    with pytest.raises(review.ReviewError, match="speaker4@steward.example .conflict of interest: submitted the run "
                                                 "card's method"):
        open_campaign(card, governance_user, pool)
    campaign = open_campaign(card, governance_user, pool[:3])
    with pytest.raises(review.ReviewError, match="conflict of interest"):
        review.add_speaker(actor=governance_user, campaign=campaign, user=developer)


def test_a_declared_conflict_takes_the_speaker_out_and_can_be_withdrawn(client, public_version, governance_user,
                                                                          pool, steward):
    from corpus.models import Entry
    from leaderboard.services import submit_run_card

    from .cards import body, make_card
    from .review_setup import consent_to_everything

    consent_to_everything(public_version.dataset, governance_user)
    developer, _ = get_or_create_user("dev@methods.example", PASSWORD)
    card = submit_run_card(actor=developer, body=body(make_card(
        public_version, list(Entry.objects.filter(version=public_version, segment="development")))))
    campaign = open_campaign(card, governance_user, pool, sample_size=1)
    declarer = next(user for user in pool if campaign.assignments.filter(speaker=user, state="open").exists())
    client.force_login(declarer)
    page = client.get(f"/leaderboard/cards/{card.public_id}/").content.decode()
    assert "Declare a conflict of interest with this run card" in page
    assert client.post(f"/leaderboard/cards/{card.public_id}/conflict/", {"reason": "\x00"}).status_code == 302
    assert not ConflictDeclaration.objects.exists()
    client.post(f"/leaderboard/cards/{card.public_id}/conflict/", {"reason": "My cousin built it"})
    declaration = ConflictDeclaration.objects.get()
    assert campaign.pool.get(user=declarer).left_at is not None
    assert not Assignment.objects.filter(campaign=campaign, speaker=declarer, state="open").exists()
    assert actions(steward, "conflict.declared")[-1].details["reason"] == "My cousin built it"
    assert actions(steward, "campaign.speaker_removed")[-1].details["reason"] == "declared a conflict of interest"
    assert "You declared a conflict of interest on" in client.get(
        f"/leaderboard/cards/{card.public_id}/").content.decode()
    with pytest.raises(review.ReviewError, match="declared a conflict of interest .My cousin built it"):
        review.add_speaker(actor=governance_user, campaign=campaign, user=declarer)
    with pytest.raises(Exception, match="Only the person who declared"):
        withdraw_conflict(actor=next(user for user in pool if user != declarer), declaration=declaration)
    client.post(f"/leaderboard/conflicts/{declaration.pk}/withdraw/")
    declaration.refresh_from_db()
    assert declaration.withdrawn_at is not None
    review.add_speaker(actor=governance_user, campaign=campaign, user=declarer)
    assert campaign.pool.get(user=declarer).left_at is None


def test_a_conflict_declared_on_a_method_covers_its_cards(card, governance_user, pool):
    method = register_method(actor=sandbox_operator(card.dataset_version.dataset.organization), body={"method_card": {
        "method_id": "crk-coached", "name": "Coached Cree", "class": "coached-llm", "author": "A developer"}})
    RunCard.objects.filter(pk=card.pk).update(method=method)
    card.refresh_from_db()
    campaign = open_campaign(card, governance_user, pool)
    declare_conflict(actor=pool[2], method=method, reason="I advised its developer")
    assert campaign.pool.get(user=pool[2]).left_at is not None


def test_a_conflicted_member_of_governance_staff_never_records_the_decision(client, card, governance_user, pool,
                                                                            steward):
    campaign = open_campaign(card, governance_user, pool, sample_size=6)
    operator = sandbox_operator(steward)
    with pytest.raises(review.NotAllowed, match=r"you submitted the run card\): another member of governance staff"):
        review.record_decision(actor=operator, campaign=campaign, outcome="reject", rationale="Not usable yet.")
    declare_conflict(actor=governance_user, run_card=card, reason="I trained the model's coaching file")
    client.force_login(governance_user)
    page = client.get(f"/review/campaigns/{campaign.public_id}/decision/").content.decode()
    assert "You have a conflict of interest with this run card (you declared a conflict of interest" in page
    assert "Record the decision" not in page
    response = client.post(f"/review/campaigns/{campaign.public_id}/decision/",
                           {"outcome": "reject", "rationale": "Not usable yet."})
    assert response.status_code == 400 and not campaign.decisions.exists()
    third = member("gov3@steward.example", steward, "governance")
    review.record_decision(actor=third, campaign=campaign, outcome="reject", rationale="Not usable yet.")
    assert campaign.decisions.count() == 1


# Demo data and account deletion.

def test_deleting_an_account_forgets_its_languages(client, speaker, steward):
    from config.services import delete_account

    attestations = Attestation.objects.filter(skill__user=speaker).count()
    delete_account(actor=speaker, withdraw=False)
    assert not LanguageSkill.objects.filter(user=speaker).exists()
    assert len(actions(steward, "speaker_skill.attestation_withdrawn")) == attestations


def test_proficiency_scale_is_documented():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "docs" / "speakers.md").read_text()
    for level in Proficiency:
        assert f"| {level.value} |" in doc
