"""Onboarding of speakers (issue 12): instructions and rating examples written by governance staff, where
sign-in lands, the home page's count of waiting items, and campaign cards a speaker can tell apart."""

from datetime import UTC, datetime, timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from organizations.models import AuditEvent
from review import selectors, services
from review.models import Assignment, Campaign, RatingExamples

from .conftest import PASSWORD, member, shared_fixture
from .review_setup import rate_everything, settings_for

pytestmark = pytest.mark.django_db

ADAPTER = "review.adapter.AccountAdapter"


@pytest.fixture
def pool_size() -> int:
    """Three speakers: six items each take two showings per speaker."""
    return 3


@shared_fixture
def campaign(card, governance_user, pool):
    return services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
        pool, sample_size=6, instructions="Accept both spellings of ê.", device_may_hold_secret_items=True,
        deadline=datetime(2099, 12, 3, 17, 0, tzinfo=UTC)))


def test_the_campaign_form_takes_instructions_and_the_offline_choice(client, card, governance_user, pool):
    client.force_login(governance_user)
    url = reverse("review:campaign_new", args=[card.public_id])
    page = client.get(url).content.decode()
    assert 'name="instructions"' in page and 'name="device_may_hold_secret_items"' in page
    assert "anyone who gets hold of the phone could read them" in page, "the help text explains the trade-off"
    response = client.post(url, {
        "title": "Autumn", "sample_size": 6, "ratings_per_item": 3, "seed": 7, "control_count": 0,
        "speakers": [user.pk for user in pool], "instructions": "  Read the source aloud first.  ",
        "device_may_hold_secret_items": "on",
    })
    assert response.status_code == 302
    campaign = Campaign.objects.get(title="Autumn")
    assert campaign.instructions == "Read the source aloud first."
    assert campaign.device_may_hold_secret_items is True
    opened = AuditEvent.objects.get(action="campaign.opened", object_id=str(campaign.pk))
    assert opened.details["instructions"] == "Read the source aloud first."


def test_instructions_are_edited_while_the_campaign_runs_and_audited(client, campaign, governance_user):
    client.force_login(governance_user)
    detail = client.get(reverse("review:campaign", args=[campaign.public_id])).content.decode()
    assert "Accept both spellings of ê." in detail and 'action="/review/campaigns/' in detail
    response = client.post(reverse("review:campaign_guidance", args=[campaign.public_id]),
                           {"instructions": "New: also accept ee."})
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.instructions == "New: also accept ee." and campaign.device_may_hold_secret_items is False
    event = AuditEvent.objects.get(action="campaign.instructions_changed")
    assert event.details == {"instructions": "New: also accept ee.", "device_may_hold_secret_items": False}
    assert event.actor_id == governance_user.pk


def test_only_governance_staff_edit_instructions_and_not_after_closing(client, campaign, governance_user, pool):
    client.force_login(pool[0])
    url = reverse("review:campaign_guidance", args=[campaign.public_id])
    assert client.post(url, {"instructions": "hijack"}).status_code == 404
    services.set_campaign_status(campaign=campaign, actor=governance_user, status="closed")
    client.force_login(governance_user)
    client.post(url, {"instructions": "too late"})
    campaign.refresh_from_db()
    assert campaign.instructions == "Accept both spellings of ê."
    assert not AuditEvent.objects.filter(action="campaign.instructions_changed").exists()


def test_instructions_and_examples_need_two_factor_authentication(client, campaign, steward,
                                                                  governance_user_without_mfa):
    client.force_login(governance_user_without_mfa)
    response = client.post(reverse("review:campaign_guidance", args=[campaign.public_id]), {"instructions": "x"})
    assert response.status_code == 403
    assert client.get(reverse("review:rating_examples", args=[steward.slug])).status_code == 403
    campaign.refresh_from_db()
    assert campaign.instructions == "Accept both spellings of ê."


def test_rating_examples_are_written_by_governance_and_read_by_the_selector(client, steward, governance_user):
    assert selectors.rating_examples(steward) == {}
    client.force_login(governance_user)
    url = reverse("review:rating_examples", args=[steward.slug])
    assert client.get(url).status_code == 200
    response = client.post(url, {"reject": "«atim» for “cat”", "gist": "", "acceptable": " Close enough. ",
                                 "excellent": "As Elder Marie would say it.",
                                 "cannot_judge": "A dialect you don't know."})
    assert response.status_code == 302
    assert selectors.rating_examples(steward) == {
        0: "A dialect you don't know.", 1: "«atim» for “cat”", 3: "Close enough.", 4: "As Elder Marie would say it."}
    event = AuditEvent.objects.get(action="rating_examples.changed")
    assert event.details["acceptable"] == "Close enough." and event.details["gist"] == ""
    client.post(url, {"reject": "", "gist": "Gist!", "acceptable": "", "excellent": "", "cannot_judge": ""})
    assert selectors.rating_examples(steward) == {2: "Gist!"}
    assert RatingExamples.objects.count() == 1


def test_rating_examples_refuse_speakers_and_other_organizations(client, steward, other_org, pool, outsider):
    url = reverse("review:rating_examples", args=[steward.slug])
    client.force_login(pool[0])
    assert client.get(url).status_code == 404
    assert client.post(url, {"reject": "x"}).status_code == 404
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    assert not RatingExamples.objects.exists()


def test_rating_examples_are_limited_in_length(client, steward, governance_user):
    client.force_login(governance_user)
    response = client.post(reverse("review:rating_examples", args=[steward.slug]), {"reject": "x" * 2001})
    assert response.status_code == 400 and not RatingExamples.objects.exists()


def sign_in(client, user):
    return client.post("/accounts/login/", {"login": user.email, "password": PASSWORD})


def test_a_speaker_with_waiting_items_lands_on_their_queue(client, settings, campaign, pool):
    settings.ACCOUNT_ADAPTER = ADAPTER
    response = sign_in(client, pool[0])
    assert response.status_code == 302 and response["Location"] == reverse("review:queue")


def test_sign_in_lands_where_it_did_without_waiting_items(client, settings, campaign, pool, steward):
    settings.ACCOUNT_ADAPTER = ADAPTER
    rate_everything(campaign)
    response = sign_in(client, pool[0])
    assert response["Location"] == reverse("accounts:profile")
    other = member("idle@steward.example", steward, "speaker")
    assert sign_in(client, other)["Location"] == reverse("accounts:profile")


def test_a_paused_campaign_sends_nobody_to_the_queue(client, settings, campaign, pool, governance_user):
    settings.ACCOUNT_ADAPTER = ADAPTER
    services.set_campaign_status(campaign=campaign, actor=governance_user, status="paused")
    assert selectors.waiting_item_count(pool[0]) == 0
    assert sign_in(client, pool[0])["Location"] == reverse("accounts:profile")


def test_an_explicit_next_still_wins(client, settings, campaign, pool):
    settings.ACCOUNT_ADAPTER = ADAPTER
    response = client.post("/accounts/login/?next=/leaderboard/", {"login": pool[0].email, "password": PASSWORD})
    assert response["Location"] == "/leaderboard/"


def test_the_home_page_counts_the_items_waiting(client, campaign, pool, django_assert_max_num_queries):
    client.force_login(pool[0])
    waiting = Assignment.objects.filter(speaker=pool[0], state="open").count()
    assert waiting > 1
    with django_assert_max_num_queries(8):
        page = client.get("/").content.decode()
    assert f"{waiting} items waiting for you" in page and 'href="/review/"' in page


def test_the_home_page_says_nothing_without_waiting_items(client, campaign, pool, governance_user, steward):
    client.force_login(governance_user)
    assert "waiting for you" not in client.get("/").content.decode()
    client.logout()
    assert "waiting for you" not in client.get("/").content.decode()
    client.force_login(pool[0])
    services.remove_speaker(campaign=campaign, user=pool[0], actor=governance_user)
    assert "waiting for you" not in client.get("/").content.decode()


def test_the_home_page_query_count_does_not_grow_with_campaigns(client, card, governance_user, pool,
                                                                 django_assert_max_num_queries):
    for number in range(3):
        services.open_campaign(run_card=card, actor=governance_user,
                               values=settings_for(pool, title=f"c{number}", sample_size=3, seed=number))
    client.force_login(pool[0])
    with django_assert_max_num_queries(8):
        page = client.get("/").content.decode()
    assert "items waiting for you" in page


def test_queue_cards_show_language_pair_deadline_with_time_zone_and_items_left(
        client, campaign, card, governance_user, pool, django_assert_max_num_queries):
    services.open_campaign(run_card=card, actor=governance_user,
                           values=settings_for(pool, title="Second", sample_size=3, seed=9))
    client.force_login(pool[0])
    with django_assert_max_num_queries(10):
        page = client.get("/review/").content.decode()
    assert page.count('class="card campaign-card"') == 2
    assert "3 Dec. 2099, 17:00 UTC" in page
    left = Assignment.objects.filter(speaker=pool[0], campaign=campaign, state="open").count()
    assert f'<dd class="items-left">{left}</dd>' in page
    assert card.dataset_version.language_pair in page
    assert "Spring review" not in page and "Second" not in page, "speakers review blind: no title"


def test_queue_query_count_does_not_grow_with_campaigns(client, card, governance_user, pool,
                                                        django_assert_max_num_queries):
    for number in range(4):
        services.open_campaign(run_card=card, actor=governance_user,
                               values=settings_for(pool, title=f"c{number}", sample_size=3, seed=number,
                                                   deadline=timezone.now() + timedelta(days=3)))
    client.force_login(pool[0])
    with django_assert_max_num_queries(10):
        assert client.get("/review/").status_code == 200


def test_governance_pages_show_deadlines_with_their_time_zone(client, campaign, governance_user):
    client.force_login(governance_user)
    detail = client.get(reverse("review:campaign", args=[campaign.public_id])).content.decode()
    assert "3 Dec. 2099, 17:00 UTC" in detail
    assert "3 Dec. 2099, 17:00 UTC" in client.get(reverse("review:campaigns")).content.decode()


def test_e_mails_are_written_in_each_speakers_language(card, governance_user, pool, eager_tasks, monkeypatch):
    from django.utils import translation

    import review.tasks

    languages = []
    original = review.tasks.render_to_string

    def recording(template, context):
        languages.append((template, translation.get_language()))
        return original(template, context)

    monkeypatch.setattr(review.tasks, "render_to_string", recording)
    pool[1].interface_language = "fr-ca"
    pool[1].save(update_fields=["interface_language"])
    mail.outbox.clear()
    campaign = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
        pool, sample_size=6, deadline=timezone.now() + timedelta(hours=5)))
    review.tasks.send_campaign_invitations_task.delay(campaign.pk)
    assert sorted(languages) == [("review/invitation_email.txt", "en"), ("review/invitation_email.txt", "fr-ca")]
    assert len(mail.outbox) == 3 and all("Steward Nation" in m.subject for m in mail.outbox)
    assert all(UTC_NAME in m.body for m in mail.outbox), "the deadline shows its time zone"
    languages.clear()
    mail.outbox.clear()
    review.tasks.send_deadline_reminders_task.delay()
    assert sorted(languages) == [("review/reminder_email.txt", "en"), ("review/reminder_email.txt", "fr-ca")]
    assert len(mail.outbox) == 3 and all(UTC_NAME in m.subject and UTC_NAME in m.body for m in mail.outbox)
    assert Campaign.objects.get(pk=campaign.pk).reminder_sent_at is not None


UTC_NAME = "UTC"


@pytest.mark.parametrize("instructions, message", [
    ("My careful instructions \x00 typed", "Null characters are not allowed."),
    ("y" * 10_001, "Ensure this value has at most 10000 characters (it has 10001)."),
])
def test_refused_instructions_come_back_as_typed_with_the_error_beside_them(client, campaign, governance_user,
                                                                          instructions, message):
    client.force_login(governance_user)
    response = client.post(reverse("review:campaign_guidance", args=[campaign.public_id]),
                           {"instructions": instructions})
    assert response.status_code == 400
    html = response.content.decode()
    errors = html[html.index('id="id_instructions_error"'):]
    assert message in errors[:errors.index("</ul>")]
    assert instructions.split("\x00")[0] in html, "what was typed is still in the form"
    campaign.refresh_from_db()
    assert campaign.instructions == "Accept both spellings of ê."


@pytest.mark.django_db(transaction=True)
def test_the_campaigns_list_shows_figures_computed_since_the_last_rating(client, campaign, governance_user,
                                                                         eager_tasks, monkeypatch):
    """Without Celery beat (a laptop's `make run`) the list's figures were refreshed only when a campaign changed
    status: after ratings it showed dashes for ever. It now asks for the figures older than the newest rating, as
    the governance dashboard does (review.services.figures.request_fresh_figures) — in-process without a broker, so this
    very view shows them — and asks once a minute at most, however often the list is viewed."""
    rate_everything(campaign, lambda assignment: "acceptable")
    Campaign.objects.filter(pk=campaign.pk).update(summary={}, summary_at=None)
    refreshed = []
    real = services.refresh_summary
    import review.tasks

    monkeypatch.setattr(review.tasks, "refresh_summary", lambda pk: refreshed.append(pk) or real(pk))
    client.force_login(governance_user)
    page = client.get("/review/campaigns/").content.decode()
    assert refreshed == [campaign.pk]
    assert '<td data-label="Coverage">1.00</td>' in page, "drawn with the figures just computed"
    client.get("/review/campaigns/")
    assert refreshed == [campaign.pk], "fresh: not asked again"
