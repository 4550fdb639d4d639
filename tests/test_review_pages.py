"""The review pages as speakers and governance staff use them, through the test client."""

import re
import uuid

import pytest
from django.core import mail

from corpus.models import ConsentRecord
from corpus.services import revoke_consent
from organizations.audit import seal_secret_views
from organizations.models import AuditEvent
from review import services
from review.forms import shown_time
from review.models import Assignment, Campaign, Rating

from .conftest import SECRET_MARK, shared_fixture
from .review_setup import (
    MODEL_SLUG,
    OUTPUT_MARK,
    consent_to_everything,
    rate_everything,
    settings_for,
)

pytestmark = pytest.mark.django_db


@shared_fixture
def campaign(card, governance_user, pool):
    return services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=12, control_count=2),
    )


def first_assignment(campaign, speaker):
    return Assignment.objects.filter(campaign=campaign, speaker=speaker, state="open").order_by("position").first()


def rating_post(value="acceptable", client_id=None, **extra):
    return {"client_id": str(client_id or uuid.uuid4()), "value": value, **extra}


def test_a_speaker_finds_their_campaign_and_rates_without_javascript(client, campaign, pool):
    speaker = pool[0]
    client.force_login(speaker)
    queue = client.get("/review/")
    assert queue.status_code == 200 and b"Start" in queue.content
    start = client.get(f"/review/c/{campaign.public_id}/")
    assignment = first_assignment(campaign, speaker)
    assert start.status_code == 302 and start["Location"] == f"/review/items/{assignment.public_id}/"
    page = client.get(start["Location"])
    assert page.status_code == 200
    html = page.content.decode()
    assert assignment.item.entry.source in html and assignment.item.candidate in html
    assert "0 of" in html and 'data-key="1"' in html and "Can't judge" in html
    response = client.post(start["Location"], rating_post("gist", semantically_wrong="on") |
                           {"flags": ["semantically_wrong", "hallucination"], "comment": "wrong animal"})
    # One redirect, straight to the next item (not through the campaign's start, which would redirect again).
    upcoming = first_assignment(campaign, speaker)
    assert upcoming != assignment
    assert response.status_code == 302 and response["Location"] == f"/review/items/{upcoming.public_id}/"
    rating = Rating.objects.get(assignment=assignment)
    assert rating.value == "gist" and rating.flags == ["semantically_wrong", "hallucination"]
    assert rating.comment == "wrong animal"
    following = client.get(response["Location"])
    assert following.status_code == 200 and upcoming.item.entry.source in following.content.decode()


def test_speaker_pages_are_blind(client, campaign, pool, card):
    """No method name, model, score or other speaker's rating on any page a speaker reaches."""
    speaker = pool[0]
    other = Assignment.objects.filter(campaign=campaign).exclude(speaker=speaker).first()
    services.record_rating(
        item=other.public_id,
        actor=other.speaker,
        submission=services.Submission(uuid.uuid4(), "excellent", comment="OTHERSAYS"),
    )
    client.force_login(speaker)
    assignment = first_assignment(campaign, speaker)
    pages = [client.get(url) for url in ("/review/", f"/review/items/{assignment.public_id}/",
                                         f"/review/c/{campaign.public_id}/done/")]
    for page in pages:
        html = page.content.decode()
        assert page.status_code == 200
        for leak in (MODEL_SLUG, campaign.title, "composite", "0.8", str(card.run_id), "OTHERSAYS",
                     str(card.public_id)):
            assert leak not in html, f"{leak!r} shown to a speaker at {page.request['PATH_INFO']}"


def test_other_peoples_items_and_governance_pages_are_404_for_a_speaker(client, campaign, pool, outsider):
    speaker, other = pool[0], pool[1]
    theirs = first_assignment(campaign, other)
    client.force_login(speaker)
    assert client.get(f"/review/items/{theirs.public_id}/").status_code == 404
    assert client.post(f"/review/items/{theirs.public_id}/", rating_post()).status_code == 404
    assert not Rating.objects.exists()
    for url in (f"/review/campaigns/{campaign.public_id}/", f"/review/campaigns/{campaign.public_id}/decision/",
                f"/review/campaigns/{campaign.public_id}/ratings.csv",
                f"/review/orgs/{campaign.organization.slug}/gate/"):
        assert client.get(url).status_code == 404, url
    client.force_login(outsider)
    assert client.get(f"/review/c/{campaign.public_id}/").status_code == 404
    assert client.get(f"/review/items/{theirs.public_id}/").status_code == 404


def test_the_page_script_gets_json_and_a_resent_rating_is_stored_once(client, campaign, pool):
    speaker = pool[0]
    client.force_login(speaker)
    assignment = first_assignment(campaign, speaker)
    url = f"/review/items/{assignment.public_id}/"
    data = rating_post("excellent")
    first = client.post(url, data, headers={"Accept": "application/json"})
    again = client.post(url, data, headers={"Accept": "application/json"})
    assert first.status_code == 201 and first.json()["saved"] and not first.json()["duplicate"]
    assert again.status_code == 200 and again.json()["duplicate"]
    assert Rating.objects.filter(assignment=assignment).count() == 1
    bad = client.post(url, rating_post("superb"), headers={"Accept": "application/json"})
    assert bad.status_code == 400 and "value" in bad.json()["fields"]


def test_the_page_script_gets_the_next_item_as_the_answer_to_a_rating(client, campaign, pool):
    """One round trip per rating: rate.js, holding nothing to show next, asks for the next item, and the rating's
    answer carries it (its texts, its showing stamp, whether the phone may keep it) — audited as a page showing it
    would be, without rendering a page; a resent rating is stored once; the last one names the end screen."""
    speaker = pool[0]
    client.force_login(speaker)
    assignment = first_assignment(campaign, speaker)
    data = rating_post("acceptable")
    script = {"X-Next-Item": "item", "X-Requested-With": "fetch", "Accept": "application/json"}
    answer = client.post(f"/review/items/{assignment.public_id}/", data, headers=script)
    upcoming = first_assignment(campaign, speaker)
    body = answer.json()
    assert answer.status_code == 201 and body["saved"] and not body["duplicate"]
    assert body["next_url"] == f"/review/items/{upcoming.public_id}/" and "no-store" in answer["Cache-Control"]
    following = body["next_item"]
    assert following["id"] == str(upcoming.public_id) and following["url"] == body["next_url"]
    assert (following["source"], following["candidate"]) == (upcoming.item.entry.source, upcoming.item.candidate)
    assert following["may_hold"] is False and shown_time(following["shown"], upcoming.public_id) is not None
    assert not any(name.startswith("review/") for name in (t.name for t in answer.templates if t.name))
    seal_secret_views()
    assert AuditEvent.objects.filter(action="secret_entries.shown", actor=speaker,
                                     details__where=f"/review/items/{upcoming.public_id}/").count() == 1
    assert Rating.objects.get(assignment=assignment).value == "acceptable"
    again = client.post(f"/review/items/{assignment.public_id}/", data, headers=script)
    assert again.status_code == 200 and again.json()["duplicate"]
    assert Rating.objects.filter(assignment=assignment).count() == 1
    refused = client.post(f"/review/items/{upcoming.public_id}/", rating_post("superb"), headers=script)
    assert refused.status_code == 400 and "value" in refused.json()["fields"]
    while (open_one := first_assignment(campaign, speaker)) is not None:
        last = client.post(f"/review/items/{open_one.public_id}/", rating_post(), headers=script)
    assert last.status_code == 201 and last.json()["next_url"] == f"/review/c/{campaign.public_id}/done/"
    assert "next_item" not in last.json()


def test_the_rating_loop_query_count_is_bounded(client, campaign, pool, django_assert_max_num_queries):
    """The speaker's loop — show an item, rate it and get the next one — in a fixed number of queries."""
    client.force_login(pool[0])
    client.get("/review/")
    for _ in range(3):
        assignment = first_assignment(campaign, pool[0])
        # Session, user, item (with the serving rule), memberships, card, progress; 5 for the audit of a secret item.
        with django_assert_max_num_queries(11):
            assert client.get(f"/review/items/{assignment.public_id}/").status_code == 200
        with django_assert_max_num_queries(20):
            answer = client.post(f"/review/items/{assignment.public_id}/", rating_post(),
                                 headers={"X-Next-Item": "item"})
        assert answer.status_code == 201 and "next_item" in answer.json()


def test_a_rating_sent_by_the_page_script_reads_no_texts_and_plans_no_join(client, campaign, pool,
                                                                            django_assert_max_num_queries):
    """rate.js sends most ratings while it shows an item it fetched ahead: the answer is a few lines of JSON, and
    the request reads the assignment and campaign rows only (the service checks pool, membership and serving)."""
    client.force_login(pool[0])
    client.get("/review/")
    for _ in range(3):
        assignment = first_assignment(campaign, pool[0])
        # The user (the session comes from the cache); savepoint, the assignment locked, one query for pool, serving,
        # earlier ratings and the client id, the speaker's work clock, insert, state, release; the next item's id.
        with django_assert_max_num_queries(9) as captured:
            answer = client.post(f"/review/items/{assignment.public_id}/", rating_post(),
                                 headers={"Accept": "application/json", "X-Requested-With": "fetch"})
        assert answer.status_code == 201 and answer.json()["saved"]
        assert not any("corpus_entry" in query["sql"] or "leaderboard_runcard\".\"raw" in query["sql"]
                       for query in captured.captured_queries)


def test_a_rating_from_a_page_holding_the_next_item_skips_looking_it_up(client, campaign, pool,
                                                                         django_assert_max_num_queries):
    """rate.js mostly shows the next item from those it holds (X-Next-Item: held): the answer then names no next
    item, and the rating costs one query less. Without the header the answer still names it."""
    client.force_login(pool[0])
    client.get("/review/")
    json_headers = {"Accept": "application/json", "X-Requested-With": "fetch"}
    first = first_assignment(campaign, pool[0])
    with django_assert_max_num_queries(8):
        held = client.post(f"/review/items/{first.public_id}/", rating_post(),
                           headers={**json_headers, "X-Next-Item": "held"})
    assert held.status_code == 201 and held.json()["saved"] and held.json()["next_url"] is None
    assert Rating.objects.get(assignment=first, is_current=True).value == "acceptable"
    second = first_assignment(campaign, pool[0])
    plain = client.post(f"/review/items/{second.public_id}/", rating_post(), headers=json_headers)
    assert plain.json()["next_url"] == f"/review/items/{first_assignment(campaign, pool[0]).public_id}/"


@pytest.mark.parametrize("data, message", [
    ({"value": "acceptable"}, b"submission id is missing"),
    ({"client_id": "not-a-uuid", "value": "acceptable"}, b"valid UUID"),
    ({"client_id": str(uuid.uuid4()), "value": "superb"}, b"Choose Reject, Gist, Acceptable, Excellent"),
    ({"client_id": str(uuid.uuid4()), "value": "gist", "flags": ["cursed"]}, b"Select a valid choice"),
    ({"client_id": str(uuid.uuid4()), "value": "gist", "comment": "x" * 5001}, b"at most 5000 characters"),
])
def test_bad_rating_posts_say_what_was_wrong_and_store_nothing(client, campaign, pool, data, message):
    client.force_login(pool[0])
    assignment = first_assignment(campaign, pool[0])
    response = client.post(f"/review/items/{assignment.public_id}/", data)
    assert response.status_code == 400 and message in response.content
    assert not Rating.objects.exists()


def test_hostile_text_is_rendered_escaped(client, campaign, pool, governance_user):
    speaker = pool[0]
    assignment = Assignment.objects.filter(campaign=campaign, speaker=speaker, item__is_control=False).first()
    services.record_rating(
        item=assignment.public_id,
        actor=speaker,
        submission=services.Submission(
            uuid.uuid4(), "gist", frozenset({"hallucination"}), comment="<script>alert(1)</script>",
            correction="=HYPERLINK(\"http://evil\")"),
    )
    client.force_login(governance_user)
    page = client.get(f"/review/campaigns/{campaign.public_id}/decision/")
    assert b"<script>alert(1)</script>" not in page.content and b"&lt;script&gt;" in page.content
    flag_cells = page.content.decode().count('<td data-label="Flags">hallucination 1</td>')
    assert flag_cells == 2, "the flag is counted in its difficulty tier's row and in its domain's row"
    # Domains by their names, as the leaderboard's filter names them, not their codes.
    # Domains by their names, as the leaderboard's filter names them, not by their codes.
    html = page.content.decode()
    assert 'data-label="Group">Medical</th>' in html and 'data-label="Group">medical</th>' not in html
    export = client.get(f"/review/campaigns/{campaign.public_id}/ratings.csv")
    assert export.status_code == 200 and "'=HYPERLINK" in export.content.decode("utf-8-sig")


def test_undo_withdraws_the_last_rating_and_returns_to_its_item(client, campaign, pool):
    speaker = pool[0]
    client.force_login(speaker)
    assignment = first_assignment(campaign, speaker)
    # The item shown first as a plain page, whose controls are cached: the restored page must not reuse them.
    assert 'id="id_comment" rows="2" maxlength="5000"></textarea>' in client.get(
        f"/review/items/{assignment.public_id}/").content.decode()
    client.post(f"/review/items/{assignment.public_id}/", rating_post("reject", flags=["hallucination"],
                                                                    comment="a dog, not a cat",
                                                                    correction="niwâpamâw atim"))
    response = client.post(f"/review/c/{campaign.public_id}/undo/")
    assert response.status_code == 302 and response["Location"] == f"/review/items/{assignment.public_id}/"
    assert Rating.objects.get(assignment=assignment).withdrawn_at is not None
    # The item comes back with the flags, comment and translation that were given with the withdrawn rating.
    html = client.get(response["Location"]).content.decode()
    assert re.search(r'<input[^>]*value="hallucination"[^>]*checked', html)
    assert "a dog, not a cat</textarea>" in html and "niwâpamâw atim</textarea>" in html
    # And again when the speaker comes back to it later (the phone closed the tab): nothing they wrote is lost.
    client.get(f"/review/c/{campaign.public_id}/")
    again = client.get(f"/review/items/{assignment.public_id}/").content.decode()
    assert "a dog, not a cat</textarea>" in again and "niwâpamâw atim</textarea>" in again


def test_withdrawn_consent_stops_serving_items_and_regranting_restores_them(client, campaign, pool, governance_user,
                                                                          card):
    speaker = pool[0]
    assignment = first_assignment(campaign, speaker)
    client.force_login(speaker)
    record = ConsentRecord.objects.get(dataset=card.dataset_version.dataset)
    revoke_consent(record=record, actor=governance_user, reason="The council withdrew consent pending a new agreement.")
    page = client.get(f"/review/items/{assignment.public_id}/")
    assert page.status_code == 409 and b"Withdrawn by its community" in page.content
    assert assignment.item.entry.source.encode() not in page.content
    assert b"Withdrawn by its community" in client.get("/review/").content
    assert client.post(f"/review/items/{assignment.public_id}/", rating_post()).status_code == 409
    assert not Rating.objects.exists()
    consent_to_everything(card.dataset_version.dataset, governance_user)
    assert client.get(f"/review/items/{assignment.public_id}/").status_code == 200


def test_an_assigned_speaker_sees_a_secret_item_and_the_request_is_audited(client, campaign, pool):
    client.force_login(pool[0])
    assignment = Assignment.objects.filter(campaign=campaign, speaker=pool[0], item__is_control=False).first()
    page = client.get(f"/review/items/{assignment.public_id}/")
    assert SECRET_MARK.encode() in page.content and OUTPUT_MARK.encode() in page.content
    seal_secret_views()
    event = AuditEvent.objects.filter(action="secret_entries.shown", actor=pool[0]).get()
    assert event.details == {"count": 1, "where": f"/review/items/{assignment.public_id}/"}


def test_governance_opens_a_campaign_from_the_form(client, card, governance_user, pool):
    client.force_login(governance_user)
    url = f"/review/campaigns/new/{card.public_id}/"
    assert client.get(url).status_code == 200
    bad = client.post(url, {"title": "T", "sample_size": 500, "ratings_per_item": 3, "seed": 1,
                            "speakers": [p.pk for p in pool], "control_count": 0})
    assert bad.status_code == 400 and b"between 1 and 60" in bad.content
    response = client.post(url, {"title": "Autumn review", "sample_size": 15, "ratings_per_item": 3, "seed": 9,
                                 "speakers": [p.pk for p in pool[:3]], "control_count": 2})
    campaign = Campaign.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/review/campaigns/{campaign.public_id}/"
    detail = client.get(response["Location"]).content.decode()
    assert "Autumn review" in detail and "Difficulty 1" in detail and "No difficulty" in detail


def test_governance_decides_on_the_decision_page_and_the_leaderboard_shows_it(client, campaign, governance_user, card):
    rate_everything(campaign, lambda a: "excellent")
    client.force_login(governance_user)
    page = client.get(f"/review/campaigns/{campaign.public_id}/decision/")
    html = page.content.decode()
    assert page.status_code == 200 and "Gate recommendation" in html and "<svg" in html and "Krippendorff" in html
    empty = client.post(f"/review/campaigns/{campaign.public_id}/decision/", {"outcome": "approve", "rationale": ""})
    assert empty.status_code == 400 and not campaign.decisions.exists()
    response = client.post(f"/review/campaigns/{campaign.public_id}/decision/",
                           {"outcome": "approve", "against_recommendation": "on",
                            "rationale": "The panel rated every output excellent, on fewer items than asked."})
    assert response.status_code == 302
    assert b"Community Validated" in client.get("/leaderboard/?standard=legacy-composite").content
    assert b"eligible for ownership transfer" in client.get(response["Location"]).content


def test_the_decision_page_query_count_does_not_grow_with_ratings(client, card, governance_user, pool,
                                                                  django_assert_max_num_queries):
    small = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, sample_size=5))
    large = services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=40, control_count=5),
    )
    for campaign in (small, large):
        rate_everything(campaign, lambda a: "gist" if a.pk % 2 else "acceptable")
        Rating.objects.filter(assignment__campaign=campaign).update(comment="noted")
    client.force_login(governance_user)
    for campaign in (small, large):
        with django_assert_max_num_queries(30):
            assert client.get(f"/review/campaigns/{campaign.public_id}/decision/").status_code == 200
        with django_assert_max_num_queries(20):
            assert client.get(f"/review/campaigns/{campaign.public_id}/").status_code == 200


def test_the_decision_page_lists_rated_items_needing_attention_a_page_at_a_time(client, card, governance_user, pool):
    campaign = services.open_campaign(run_card=card, actor=governance_user,
                                      values=settings_for(pool, sample_size=40, control_count=5))
    rate_everything(campaign, lambda a: "gist")
    noted = Rating.objects.filter(assignment__campaign=campaign).order_by("assignment__item_id", "created_at")
    Rating.objects.filter(pk__in=list(noted.values_list("pk", flat=True)[:55])).update(comment="NOTED")
    client.force_login(governance_user)
    url = f"/review/campaigns/{campaign.public_id}/decision/"
    first = client.get(url)
    assert first.content.count(b"NOTED") == 50 and b"55 ratings with a flag, a comment or a correction" in first.content
    assert b"Page 1 of 2" in first.content
    second = client.get(url, {"page": 2})
    assert second.content.count(b"NOTED") == 5
    seal_secret_views()
    shown = AuditEvent.objects.filter(action="secret_entries.shown", details__where=url).order_by("id")
    rows = list(noted.filter(comment="NOTED"))

    def secret_items(ratings):
        return len({r.assignment.item_id for r in ratings if r.assignment.item.entry.is_secret})

    assert [event.details["count"] for event in shown] == [secret_items(rows[:50]), secret_items(rows[50:])]


def test_the_rating_page_query_count_is_bounded(client, campaign, pool, django_assert_max_num_queries):
    client.force_login(pool[0])
    assignment = first_assignment(campaign, pool[0])
    with django_assert_max_num_queries(20):
        assert client.get(f"/review/items/{assignment.public_id}/").status_code == 200


def test_ratings_export_lists_every_rating_with_history_for_governance_only(client, campaign, pool, governance_user):
    assignment = first_assignment(campaign, pool[0])
    for value in ("gist", "acceptable"):
        services.record_rating(
            item=assignment.public_id,
            actor=pool[0],
            submission=services.Submission(uuid.uuid4(), value),
        )
    client.force_login(governance_user)
    csv_text = client.get(f"/review/campaigns/{campaign.public_id}/ratings.csv").content.decode("utf-8-sig")
    lines = csv_text.strip().splitlines()
    assert lines[0].startswith("item,entry_id,is_control") and len(lines) == 3
    assert SECRET_MARK not in csv_text, "the export names entries, it does not copy secret texts"
    xlsx = client.get(f"/review/campaigns/{campaign.public_id}/ratings.xlsx")
    assert xlsx.status_code == 200 and xlsx.content[:2] == b"PK"
    assert client.get(f"/review/campaigns/{campaign.public_id}/ratings.pdf").status_code == 404


def test_gate_thresholds_are_the_organizations_own(client, steward, governance_user):
    client.force_login(governance_user)
    url = f"/review/orgs/{steward.slug}/gate/"
    bad = client.post(url, {"min_usable_lower_bound": 1.5, "min_tier_usable_share": 0.5, "max_reject_share": 0.1,
                            "min_alpha": 0.4, "min_ac1": 0.6, "min_rated_items": 30, "min_distinct_speakers": 3})
    assert bad.status_code == 400 and b"Enter a threshold between 0.50 and 0.95" in bad.content
    client.post(url, {"min_usable_lower_bound": 0.8, "min_tier_usable_share": 0.5, "max_reject_share": 0.1,
                      "min_alpha": 0.4, "min_ac1": 0.6, "min_rated_items": 30, "min_distinct_speakers": 3,
                      "require_complete_coverage": "on"})
    from review.selectors import gate_policy_for

    assert gate_policy_for(steward).min_usable_lower_bound == 0.8
    assert AuditEvent.objects.filter(action="gate_policy.changed").exists()


def test_speakers_are_emailed_once_when_the_campaign_opens(card, governance_user, pool, eager_tasks,
                                                           django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        campaign = services.open_campaign(
            run_card=card,
            actor=governance_user,
            values=settings_for(pool, sample_size=6),
        )
    assert sorted(m.to[0] for m in mail.outbox) == sorted(p.email for p in pool)
    assert all(MODEL_SLUG not in m.body and "/review/" in m.body for m in mail.outbox)
    from review.tasks import send_campaign_invitations_task

    send_campaign_invitations_task.delay(campaign.pk)
    assert len(mail.outbox) == len(pool), "a retried task e-mails nobody twice"


def test_a_reminder_goes_once_to_speakers_with_items_left_a_day_before_the_deadline(card, governance_user, pool,
                                                                                    eager_tasks):
    from datetime import timedelta

    from django.utils import timezone

    from review.tasks import send_deadline_reminders_task

    campaign = services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(
            pool, sample_size=6, deadline=timezone.now() + timedelta(days=3)),
    )
    done = pool[0]
    for assignment in Assignment.objects.filter(campaign=campaign, speaker=done):
        services.record_rating(item=assignment.public_id, actor=done,
                               submission=services.Submission(uuid.uuid4(), "gist"))
    assert send_deadline_reminders_task.delay().get() == 0, "three days before: not yet"
    Campaign.objects.filter(pk=campaign.pk).update(deadline=timezone.now() + timedelta(hours=20))
    mail.outbox.clear()
    send_deadline_reminders_task.delay()
    send_deadline_reminders_task.delay()
    assert sorted(m.to[0] for m in mail.outbox) == sorted(p.email for p in pool[1:])


def test_the_run_card_page_offers_a_campaign_to_the_stewards_governance_staff_only(client, card, governance_user,
                                                                                  curator, pool):
    url = f"/leaderboard/cards/{card.public_id}/"
    link = f"/review/campaigns/new/{card.public_id}/".encode()
    client.force_login(governance_user)
    assert link in client.get(url).content
    for user in (curator, pool[0]):
        client.force_login(user)
        assert link not in client.get(url).content


def test_the_demo_speaker_finds_a_campaign_to_rate(client):
    from django.core.management import call_command

    from accounts.models import User

    call_command("load_demo")
    call_command("load_demo")
    campaign = Campaign.objects.get()
    assert campaign.assignments.count() == 3, "loading the demo twice opens one campaign of the 3 entries"
    client.force_login(User.objects.get(email="speaker@demo.example"))
    page = client.get(client.get(f"/review/c/{campaign.public_id}/")["Location"])
    assert page.status_code == 200
    assert any(reference in page.content.decode() for reference in ("tânisi", "atim", "niwâpamâw atim"))
    # The operator uploaded the card; the demo's other governance member has no conflict and records the decision.
    from leaderboard.selectors import conflicts_of

    conflicted = {User.objects.get(pk=pk).email for pk in conflicts_of(campaign.run_card)}
    assert conflicted == {"operator@demo.example"}


def test_a_reminder_that_fails_to_send_is_tried_again(card, governance_user, pool, eager_tasks, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    from review.tasks import send_deadline_reminders_task

    services.open_campaign(
        run_card=card,
        actor=governance_user,
        values=settings_for(pool, sample_size=6,
                                                                   deadline=timezone.now() + timedelta(hours=5)),
    )

    def broken(*args, **kwargs):
        raise ConnectionRefusedError("mail server down")

    monkeypatch.setattr("review.tasks.send_mass_mail", broken)
    with pytest.raises(ConnectionRefusedError):
        send_deadline_reminders_task.delay()
    assert Campaign.objects.get().reminder_sent_at is None, "nothing recorded for an unsent reminder"
    monkeypatch.undo()
    mail.outbox.clear()
    send_deadline_reminders_task.delay()
    assert len(mail.outbox) == len(pool)


def test_consent_changes_are_logged_against_each_running_campaign(campaign, governance_user, card):
    record = ConsentRecord.objects.get(dataset=card.dataset_version.dataset)
    revoke_consent(record=record, actor=governance_user, reason="Council paused all reviews.")
    paused = AuditEvent.objects.get(action="campaign.paused", object_id=str(campaign.pk))
    assert paused.details == {"reason": "consent to human review revoked", "consent_record": record.pk}
    assert paused.actor == governance_user
    new = consent_to_everything(card.dataset_version.dataset, governance_user)
    resumed = AuditEvent.objects.get(action="campaign.resumed", object_id=str(campaign.pk))
    assert resumed.details["consent_record"] == new.pk


def test_the_last_rating_leads_to_the_end_screen_and_scripts_get_the_next_item_url(client, campaign, pool):
    speaker = pool[0]
    client.force_login(speaker)
    open_items = list(Assignment.objects.filter(campaign=campaign, speaker=speaker, state="open").order_by("position"))
    for index, assignment in enumerate(open_items):
        response = client.post(f"/review/items/{assignment.public_id}/", rating_post("acceptable"),
                               HTTP_ACCEPT="application/json")
        assert response.status_code == 201
        upcoming = open_items[index + 1] if index + 1 < len(open_items) else None
        expected = (f"/review/items/{upcoming.public_id}/" if upcoming else f"/review/c/{campaign.public_id}/done/")
        assert response.json()["next_url"] == expected


def test_storing_a_rating_never_reads_the_run_cards_large_text(campaign, pool):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    speaker = pool[0]
    assignment = first_assignment(campaign, speaker)
    with CaptureQueriesContext(connection) as queries:
        services.record_rating(item=assignment.public_id, actor=speaker,
                               submission=services.Submission(uuid.uuid4(), "gist"))
    card_reads = [q["sql"] for q in queries.captured_queries if '"leaderboard_runcard"' in q["sql"]]
    assert card_reads, "the campaign's card is read (its dataset's consent decides whether ratings are taken)"
    assert not [sql for sql in card_reads if '"leaderboard_runcard"."raw"' in sql
                or '"leaderboard_runcard"."method_config"' in sql]


def test_closed_campaigns_leave_the_queue_for_a_finished_section(client, card, campaign, pool, governance_user):
    closed = services.open_campaign(run_card=card, actor=governance_user,
                                    values=settings_for(pool, sample_size=4, title="Earlier round"))
    rated = Assignment.objects.filter(campaign=closed, speaker=pool[0], state="open").first()
    from .review_setup import submit

    submit(rated, "gist")
    services.set_campaign_status(actor=governance_user, campaign=closed, status=Campaign.Status.CLOSED)
    client.force_login(pool[0])
    page = client.get("/review/").content.decode()
    current, finished = page.split('<details class="card finished-campaigns">')
    assert str(campaign.public_id) in current and str(closed.public_id) not in current
    assert "Finished campaign (1)" in finished and f"/review/c/{closed.public_id}/done/" in finished
    assert re.search(r"— 1 of \d+ rated", finished)
    client.post("/language/", {"language": "fr-ca"})
    assert "Campagne terminée (1)" in client.get("/review/").content.decode()


def test_speakers_tell_campaigns_apart_by_a_name_that_never_names_the_method(client, card, pool, governance_user):
    named = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
        pool, sample_size=4, title=f"{MODEL_SLUG} against the spring set", speaker_title="Greetings, spring round"))
    services.open_campaign(run_card=card, actor=governance_user, values=settings_for(pool, sample_size=4))
    client.force_login(pool[0])
    queue = client.get("/review/").content.decode()
    assert "<h2>Greetings, spring round</h2>" in queue and MODEL_SLUG not in queue
    assert "Greetings, spring round" in client.get(f"/review/c/{named.public_id}/done/").content.decode()
    for revealing in (MODEL_SLUG, MODEL_SLUG.upper() + " round 2", str(card.run_id)):
        with pytest.raises(services.ReviewError) as refused:
            services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
                pool, sample_size=4, speaker_title=revealing))
        assert refused.value.field == "speaker_title" and "speakers review blind" in str(refused.value)
    for hostile, message in (("x" * 81, "limited to 80 characters"), ("round\x00two", "NUL")):
        with pytest.raises(services.ReviewError, match=message) as refused:
            services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
                pool, sample_size=4, speaker_title=hostile))
        assert refused.value.field == "speaker_title"
    assert Campaign.objects.count() == 2, "nothing stored for a refused name"


def test_the_campaign_form_refuses_a_name_that_names_the_method_beside_its_field(client, card, pool,
                                                                                 governance_user):
    client.force_login(governance_user)
    page = client.post(f"/review/campaigns/new/{card.public_id}/", {
        "title": "Spring", "speaker_title": f"Checking {MODEL_SLUG}", "sample_size": 4, "ratings_per_item": 3,
        "seed": 1, "speakers": [speaker.pk for speaker in pool], "control_count": 0, "repeat_count": 0,
    })
    assert page.status_code == 400 and not Campaign.objects.exists()
    assert "speakers review blind" in str(page.context["form"].errors["speaker_title"])
