"""The speaker's rating page beyond a plain form post: the campaign's instructions before the first item, the items
rate.js fetches ahead (secret ones only when the campaign lets phones hold them), the clear refusal that makes it
discard the ratings waiting on the phone, Undo bringing back what was given, and each text's language and
direction."""

import re
import uuid

import pytest
from django.conf import settings

from corpus.models import ConsentRecord
from corpus.services import revoke_consent
from languages.directions import text_direction
from organizations.audit import seal_secret_views
from organizations.models import AuditEvent
from review import services
from review.models import Assignment, Campaign, Rating

from .browser_support import reviewed_public_dataset
from .conftest import shared_fixture
from .review_setup import gold_card, settings_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def pool_size() -> int:
    """Two speakers."""
    return 2


@shared_fixture
def public_campaign(steward, governance_user, pool):
    """Public development entries and secret gold-standard ones, one rating per item, 12 items per speaker."""
    _, _, campaign = reviewed_public_dataset(steward, governance_user, pool, sample_size=12, ratings_per_item=1)
    return campaign


def open_items(campaign, speaker):
    return list(Assignment.objects.filter(campaign=campaign, speaker=speaker, state="open")
                .select_related("item__entry").order_by("position"))


def post(value="acceptable", **extra):
    return {"client_id": str(uuid.uuid4()), "value": value, **extra}


def test_instructions_come_before_the_first_item_then_stay_one_tap_away(client, public_campaign, pool):
    speaker = pool[0]
    Campaign.objects.filter(pk=public_campaign.pk).update(instructions="Accept both SRO and syllabics.\n\nAsk Mary.")
    client.force_login(speaker)
    start = client.get(f"/review/c/{public_campaign.public_id}/")
    first = open_items(public_campaign, speaker)[0]
    html = start.content.decode()
    assert start.status_code == 200 and "Before you start" in html and "Accept both SRO and syllabics." in html
    assert f'href="/review/items/{first.public_id}/"' in html and ">Start</a>" in html
    page = client.get(f"/review/items/{first.public_id}/").content.decode()
    assert "Accept both SRO and syllabics." in page and "<summary>Instructions</summary>" in page
    # Without the page's script nothing offers what only the script does (shortcuts, the walkthrough, closing).
    for control in ("data-open-help", "data-show-walkthrough", "data-close-instructions"):
        tag = re.search(rf"<[^<>]*{control}[^<>]*>", page).group()
        opening = page.rfind("<p", 0, page.index(tag))
        assert "hidden" in tag or "data-needs-script hidden" in page[opening:page.index(tag)], control
    client.post(f"/review/items/{first.public_id}/", post())
    after = client.get(f"/review/c/{public_campaign.public_id}/")
    assert after.status_code == 302, "once the speaker has rated, the start goes straight to the next item"


def test_without_instructions_the_start_goes_straight_to_the_item(client, public_campaign, pool):
    client.force_login(pool[0])
    start = client.get(f"/review/c/{public_campaign.public_id}/")
    assert start.status_code == 302 and start["Location"].startswith("/review/items/")


def test_the_texts_carry_their_language_and_direction(client, public_campaign, pool):
    client.force_login(pool[0])
    item = open_items(public_campaign, pool[0])[0]
    html = client.get(f"/review/items/{item.public_id}/").content.decode()
    version = public_campaign.run_card.dataset_version
    assert re.search(rf'<p class="text source" lang="{version.source_language}" dir="(ltr|auto)"', html)
    assert re.search(rf'<p class="text candidate" lang="{version.target_language}" dir="(ltr|auto)"', html)


@pytest.mark.parametrize("code, direction", [
    ("ar", "rtl"), ("fa-IR", "rtl"), ("ckb", "rtl"), ("crk-Cans", "ltr"), ("crk-Latn", "ltr"), ("pa-Arab", "rtl"),
    ("crk", "auto"), ("en", "auto"), ("", "auto"), ("he_IL", "rtl"), ("az-Arab-IR", "rtl"),
])
def test_text_direction_from_a_bcp47_code(code, direction):
    assert text_direction(code) == direction


def test_upcoming_items_hold_public_items_only_unless_the_campaign_allows_secret_ones(client, public_campaign, pool):
    speaker = pool[0]
    client.force_login(speaker)
    items = open_items(public_campaign, speaker)
    secret_at = next(i for i, a in enumerate(items) if a.item.entry.is_secret)
    answer = client.get(f"/review/c/{public_campaign.public_id}/upcoming/")
    assert answer.status_code == 200 and "no-store" in answer["Cache-Control"]
    held = answer.json()["items"]
    assert [row["id"] for row in held] == [str(a.public_id) for a in items[:secret_at]]
    assert answer.json()["held_back"] is True
    assert all(set(row) == {"id", "url", "shown", "source", "candidate"} for row in held)
    seal_secret_views()
    assert not AuditEvent.objects.filter(action="secret_entries.shown", actor=speaker).exists()

    Campaign.objects.filter(pk=public_campaign.pk).update(device_may_hold_secret_items=True)
    answer = client.get(f"/review/c/{public_campaign.public_id}/upcoming/").json()
    assert [row["id"] for row in answer["items"]] == [str(a.public_id) for a in items]
    assert answer["held_back"] is False
    secret = sum(a.item.entry.is_secret for a in items)
    seal_secret_views()
    event = AuditEvent.objects.get(action="secret_entries.shown", actor=speaker)
    assert event.details == {"count": secret, "where": f"/review/c/{public_campaign.public_id}/upcoming/"}


def test_upcoming_items_are_the_speakers_own(client, public_campaign, pool, outsider):
    client.force_login(outsider)
    assert client.get(f"/review/c/{public_campaign.public_id}/upcoming/").status_code == 404
    client.force_login(pool[1])
    theirs = {row["id"] for row in client.get(f"/review/c/{public_campaign.public_id}/upcoming/").json()["items"]}
    assert not theirs & {str(a.public_id) for a in open_items(public_campaign, pool[0])}


def test_a_paused_campaign_refuses_with_a_clear_message_the_script_recognises(client, public_campaign, pool,
                                                                             governance_user):
    speaker = pool[0]
    client.force_login(speaker)
    item = open_items(public_campaign, speaker)[0]
    services.set_campaign_status(campaign=public_campaign, actor=governance_user, status="paused")
    answer = client.post(f"/review/items/{item.public_id}/", post(), headers={"Accept": "application/json"})
    assert answer.status_code == 409 and answer.json()["code"] == "not_serving"
    assert "paused" in answer.json()["error"] and "discarded" in answer.json()["error"]
    upcoming = client.get(f"/review/c/{public_campaign.public_id}/upcoming/")
    assert upcoming.status_code == 409 and upcoming.json()["code"] == "not_serving"
    page = client.get(f"/review/items/{item.public_id}/")
    assert page.status_code == 409 and b"data-rate-wipe" in page.content, "the page that says so wipes the queue"
    assert not Rating.objects.exists()


def test_withdrawn_consent_and_a_closed_campaign_say_so(client, public_campaign, pool, governance_user):
    speaker = pool[0]
    client.force_login(speaker)
    item = open_items(public_campaign, speaker)[0]
    record = ConsentRecord.objects.get(dataset=public_campaign.run_card.dataset_version.dataset)
    revoke_consent(record=record, actor=governance_user, reason="The council withdrew consent for now.")
    answer = client.post(f"/review/items/{item.public_id}/", post(), headers={"Accept": "application/json"})
    assert answer.status_code == 409 and "withdrew its consent" in answer.json()["error"]
    Campaign.objects.filter(pk=public_campaign.pk).update(status="closed")
    answer = client.post(f"/review/items/{item.public_id}/", post(), headers={"Accept": "application/json"})
    assert answer.status_code == 409 and answer.json()["code"] == "not_serving"


def test_a_queued_rating_resent_after_the_campaign_paused_is_acknowledged_once(client, public_campaign, pool,
                                                                                governance_user):
    """The phone may resend a rating whose answer it never got: stored once, acknowledged even after a pause."""
    speaker = pool[0]
    client.force_login(speaker)
    item = open_items(public_campaign, speaker)[0]
    data = post("gist")
    first = client.post(f"/review/items/{item.public_id}/", data, headers={"Accept": "application/json"})
    assert first.status_code == 201
    services.set_campaign_status(campaign=public_campaign, actor=governance_user, status="paused")
    again = client.post(f"/review/items/{item.public_id}/", data, headers={"Accept": "application/json"})
    assert again.status_code == 200 and again.json()["duplicate"]
    assert Rating.objects.filter(assignment=item).count() == 1


def test_rating_examples_and_the_scale_are_shown(client, steward, governance_user, pool):
    card = gold_card(steward, governance_user, count=12)
    campaign = services.open_campaign(run_card=card, actor=governance_user,
                                      values=settings_for(pool, sample_size=4, ratings_per_item=1))
    services.set_rating_examples(organization=steward, actor=governance_user,
                                 values={"gist": "“I see dog” for “I see the dog”."})
    client.force_login(pool[0])
    item = open_items(campaign, pool[0])[0]
    html = client.get(f"/review/items/{item.public_id}/").content.decode()
    assert "“I see dog” for “I see the dog”." in html and "Your community’s example:" in html
    assert html.count("Your community’s example:") == 1


def test_the_service_worker_is_served_under_review_for_its_scope(client):
    answer = client.get("/review/sw.js")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/javascript")
    assert "no-cache" in answer["Cache-Control"] and b'addEventListener("fetch"' in answer.content


def test_the_offline_shell_holds_no_item_text_and_follows_the_serving_rule(client, public_campaign, pool, outsider,
                                                                          governance_user):
    speaker = pool[0]
    client.force_login(speaker)
    shell = client.get(f"/review/c/{public_campaign.public_id}/shell/")
    html = shell.content.decode()
    assert shell.status_code == 200 and "data-shell" in html and "no-store" in shell["Cache-Control"]
    for assignment in Assignment.objects.filter(campaign=public_campaign).select_related("item__entry"):
        assert assignment.item.entry.source not in html
    seal_secret_views()
    assert not AuditEvent.objects.filter(action="secret_entries.shown").exists()
    client.force_login(outsider)
    assert client.get(f"/review/c/{public_campaign.public_id}/shell/").status_code == 404
    services.set_campaign_status(campaign=public_campaign, actor=governance_user, status="paused")
    client.force_login(speaker)
    assert client.get(f"/review/c/{public_campaign.public_id}/shell/").status_code == 409


def test_a_secret_item_page_says_the_device_may_not_hold_it(client, public_campaign, pool):
    client.force_login(pool[0])
    for assignment in open_items(public_campaign, pool[0]):
        html = client.get(f"/review/items/{assignment.public_id}/").content.decode()
        assert ("data-may-hold" in html) is (not assignment.item.entry.is_secret)


def test_upcoming_items_cost_the_same_queries_however_many_items_wait(client, steward, governance_user, pool,
                                                                    django_assert_max_num_queries):
    """rate.js fetches the next twenty items every fifteen ratings or so: the user (the session is in the cache), the
    campaign with the serving rule (one query), the twenty items with their texts (one), and the audit of the
    secret ones among them (its transaction, the chain's lock, the last link, the new event) — the
    same count for a speaker with 6 items waiting as for one with 40 (the list holds twenty of them)."""
    counts = []
    card = gold_card(steward, governance_user, count=80)
    for size, seed in ((12, 1), (80, 2)):
        campaign = services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
            pool, sample_size=size, ratings_per_item=1, seed=seed, device_may_hold_secret_items=True))
        client.force_login(pool[0])
        with django_assert_max_num_queries(8) as captured:
            answer = client.get(f"/review/c/{campaign.public_id}/upcoming/")
        assert answer.status_code == 200 and answer.json()["items"]
        assert len(answer.json()["items"]) == min(20, Assignment.objects.filter(
            campaign=campaign, speaker=pool[0], state="open").count())
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]


def test_each_upcoming_item_carries_the_address_of_its_own_rating_page(client, steward, governance_user, pool):
    from django.urls import reverse

    campaign = services.open_campaign(run_card=gold_card(steward, governance_user), actor=governance_user,
                                      values=settings_for(pool, sample_size=8, ratings_per_item=1,
                                                          device_may_hold_secret_items=True))
    client.force_login(pool[0])
    items = client.get(f"/review/c/{campaign.public_id}/upcoming/").json()["items"]
    assert items and len({item["url"] for item in items}) == len(items)
    for item in items:
        assert item["url"] == reverse("review:rate", kwargs={"public_id": uuid.UUID(item["id"])})
        assert client.get(item["url"]).status_code == 200


def test_the_parts_every_item_shares_are_cached_but_never_stale_nor_shared(client, steward, governance_user, pool):
    """The instructions, rating scale, help and buttons are rendered once per campaign and language in each process
    (`unchanging_parts_key`): a change of instructions or examples shows at once, another campaign shows its own,
    another language its own, and a rated item's buttons still mark its current rating."""
    card = gold_card(steward, governance_user, count=24)
    first = services.open_campaign(run_card=card, actor=governance_user,
                                   values=settings_for(pool, sample_size=8, ratings_per_item=1))
    second = services.open_campaign(run_card=card, actor=governance_user,
                                    values=settings_for(pool, sample_size=8, ratings_per_item=1, title="Second"))
    Campaign.objects.filter(pk=first.pk).update(instructions="Accept both SRO and syllabics.")
    Campaign.objects.filter(pk=second.pk).update(instructions="Rate the plural forms strictly.")
    client.force_login(pool[0])
    items = open_items(first, pool[0])
    page = client.get(f"/review/items/{items[0].public_id}/").content.decode()
    assert "Accept both SRO and syllabics." in page
    assert "Rate the plural forms strictly." in client.get(
        f"/review/items/{open_items(second, pool[0])[0].public_id}/").content.decode()
    Campaign.objects.filter(pk=first.pk).update(instructions="Accept syllabics only.")
    services.set_rating_examples(organization=steward, actor=governance_user, values={"gist": "“dog see”."})
    page = client.get(f"/review/items/{items[1].public_id}/").content.decode()
    assert "Accept syllabics only." in page and "SRO" not in page and "“dog see”." in page
    shell = client.get(f"/review/c/{first.public_id}/shell/").content.decode()
    assert "Accept syllabics only." in shell and "“dog see”." in shell
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr-ca"
    french = client.get(f"/review/items/{items[1].public_id}/").content.decode()
    assert "Raccourcis clavier" in french and "Keyboard shortcuts" not in french
    client.cookies.pop(settings.LANGUAGE_COOKIE_NAME)
    assert client.post(f"/review/items/{items[1].public_id}/", post("gist")).status_code == 302
    rated = client.get(f"/review/items/{items[1].public_id}/").content.decode()
    assert re.search(r'class="rating gist chosen"', rated) and "(your current rating)" in rated
    fresh = client.get(f"/review/items/{items[2].public_id}/").content.decode()
    assert "chosen" not in fresh and "(your current rating)" not in fresh


def test_the_site_header_is_cached_per_language_and_links_but_never_shown_across_people(client, steward,
                                                                                        governance_user, speaker):
    """base.html caches its header (`{% cache %}`, per language, signing in, speaker-only and the dashboards
    linked): what one person's header links never shows in another's, a language or a new role shows at once, and
    the sign-out form's token stays each session's own."""
    from django.test import Client

    from organizations.models import Membership

    def header(user, browser=None) -> str:
        browser = browser or Client()
        browser.force_login(user)
        page = browser.get("/accounts/profile/").content.decode()
        return page[page.index("<header"):page.index("</header>")]

    governance = header(governance_user)
    assert "/orgs/steward/dashboard/" in governance and "/datasets/" in governance
    spoken = header(speaker)
    assert "/orgs/" not in spoken and "/datasets/" not in spoken, "a speaker's header is their own"
    assert "Sign out" in spoken and "csrfmiddlewaretoken" in spoken
    speaker.interface_language = "fr-ca"
    speaker.save(update_fields=["interface_language"])
    french = header(speaker)
    assert "Mon compte" in french and "My account" not in french
    Membership.objects.create(user=speaker, organization=steward, role="curator")
    assert "/datasets/" in header(speaker), "a new role's links show at once"
    token = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
    tokens = {token.search(header(governance_user, Client())).group(1) for _ in range(2)}
    assert len(tokens) == 2, "each session's own sign-out token"


def test_a_communitys_new_translation_shows_in_the_rating_pages_cached_parts_at_once(client, steward,
                                                                                        governance_user, pool):
    """The cached parts are keyed on the language's state (languages.selectors.language_cache_key): governance
    staff translating a string of the keyboard help into their community's language see it on the next item."""
    from languages.models import InterfaceLanguage
    from languages.services import add_interface_language, save_interface_translations

    language = add_interface_language(actor=governance_user, organization=steward, code="crk", name="nēhiyawēwin")
    campaign = services.open_campaign(run_card=gold_card(steward, governance_user, count=12), actor=governance_user,
                                      values=settings_for(pool, sample_size=6, ratings_per_item=1))
    speaker = pool[0]
    speaker.interface_language = "crk"
    speaker.save(update_fields=["interface_language"])
    client.force_login(speaker)
    items = open_items(campaign, speaker)
    assert "Keyboard shortcuts" in client.get(f"/review/items/{items[0].public_id}/").content.decode()
    save_interface_translations(actor=governance_user, language=InterfaceLanguage.objects.get(pk=language.pk),
                                given={("", "Keyboard shortcuts"): ("kîkway kâ-tipahamihk", "")})
    page = client.get(f"/review/items/{items[1].public_id}/").content.decode()
    assert "kîkway kâ-tipahamihk" in page and "Keyboard shortcuts" not in page


def test_undo_is_offered_once_there_is_a_rating_to_undo_though_the_controls_are_cached(client, public_campaign, pool):
    """The rating buttons and the "More" panel of an item not yet rated are cached per campaign and language, and
    apart for a page with a rating to undo and one without."""
    client.force_login(pool[0])
    first, second = open_items(public_campaign, pool[0])[:2]
    undo = re.compile(r'<button type="submit" form="undo-form"[^>]*data-undo[^>]*>')
    page = client.get(f"/review/items/{first.public_id}/").content.decode()
    assert "disabled" in undo.search(page).group(0)
    assert client.post(f"/review/items/{first.public_id}/", post()).status_code == 302
    page = client.get(f"/review/items/{second.public_id}/").content.decode()
    assert "disabled" not in undo.search(page).group(0)
    assert f'action="/review/c/{public_campaign.public_id}/undo/"' in page
    assert f'data-item-url="/review/items/{second.public_id}/"' in page


def test_the_footer_is_cached_per_language_and_its_language_link_brings_each_page_back(client, public_campaign,
                                                                                        pool):
    """The footer's texts are a fragment cached per language; the link to choose a language names the page it is on."""
    client.force_login(pool[0])
    first, second = open_items(public_campaign, pool[0])[:2]
    for item in (first, second):
        page = client.get(f"/review/items/{item.public_id}/?restore").content.decode()
        assert f'href="/language/?next=/review/items/{item.public_id}/%3Frestore"' in page
        assert "Text size:" in page
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr-ca"
    french = client.get(f"/review/items/{first.public_id}/").content.decode()
    assert "Taille du texte\u00a0:" in french and "Text size:" not in french
    assert f'href="/language/?next=/review/items/{first.public_id}/"' in french
