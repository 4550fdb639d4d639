"""Speakers see the sentences around the one they rate when entries share a text (`document_id`): the two before
and the one after, in the text's order; a secret sentence only when they rate it too in the campaign (else "kept
secret", its text nowhere in the answer), each secret sentence shown counted in the audit event."""

import json
import uuid

import pytest

from corpus.models import Entry
from corpus.services import import_corpus
from leaderboard.services import submit_run_card
from organizations.audit import seal_secret_views
from organizations.models import AuditEvent
from review import services
from review.models import Assignment

from .cards import body, make_card
from .conftest import SECRET_MARK, corpus_bytes, entry
from .review_setup import consent_to_everything, sandbox_operator, settings_for, speakers

pytestmark = pytest.mark.django_db

KEPT_SECRET = "(a sentence kept secret)"


def story_card(steward, governance_user, segments: list[str]):
    """A corpus whose entries 1…n form one story ("s1"), then one entry that names no text."""
    entries = [entry(number, segment, document_id="s1") for number, segment in enumerate(segments, start=1)]
    entries.append(entry(len(segments) + 1, "gold_standard"))
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    consent_to_everything(version.dataset, governance_user)
    stored = list(Entry.objects.filter(version=version).order_by("position"))
    card = make_card(version, stored, composite=0.8, predict=lambda e: f"output {e.entry_id}")
    return submit_run_card(body=body(card), actor=sandbox_operator(steward))


def campaign_for(card, governance_user, pool, items: int):
    return services.open_campaign(run_card=card, actor=governance_user,
                                  values=settings_for(pool, sample_size=items, ratings_per_item=1))


def assignment_of(campaign, entry_id: str) -> Assignment:
    return Assignment.objects.select_related("speaker").get(campaign=campaign, item__entry__entry_id=entry_id,
                                                            is_repeat=False)


def source(number, segment="development"):
    return entry(number, segment)["source"]


def test_the_page_shows_the_two_sentences_before_and_the_one_after_in_the_texts_order(
        client, steward, governance_user):
    card = story_card(steward, governance_user, ["development"] * 5)
    pool = speakers(steward, 1)
    campaign = campaign_for(card, governance_user, pool, items=6)
    client.force_login(pool[0])
    html = client.get(f"/review/items/{assignment_of(campaign, '4').public_id}/").content.decode()
    before, after = html.split('data-text="source"')
    assert before.index(source(2)) < before.index(source(3)) and source(1) not in html
    assert source(5) in after and f'<p class="context-line" lang="en" dir="auto">{source(3)}</p>' in before
    first = client.get(f"/review/items/{assignment_of(campaign, '1').public_id}/").content.decode()
    assert '<div class="context" data-context="before" hidden>' in first and source(2) in first


def test_an_entry_that_names_no_text_has_no_context_and_costs_no_query(client, steward, governance_user):
    card = story_card(steward, governance_user, ["development"] * 2)
    pool = speakers(steward, 1)
    campaign = campaign_for(card, governance_user, pool, items=3)
    client.force_login(pool[0])
    lone, in_story = assignment_of(campaign, "3"), assignment_of(campaign, "2")
    client.get(f"/review/items/{lone.public_id}/")
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        page = client.get(f"/review/items/{lone.public_id}/").content.decode()
    assert source(1) not in page and source(2) not in page
    text_lookup = '"corpus_entry"."document_id" ='
    assert not any(text_lookup in query["sql"] for query in captured.captured_queries)
    with CaptureQueriesContext(connection) as with_story:
        client.get(f"/review/items/{in_story.public_id}/")
    assert sum(text_lookup in query["sql"] for query in with_story.captured_queries) == 1


def test_a_secret_sentence_is_context_only_for_the_speaker_who_rates_it(client, steward, governance_user):
    card = story_card(steward, governance_user, ["gold_standard"] * 4)
    pool = speakers(steward, 2)
    campaign = campaign_for(card, governance_user, pool, items=5)
    middle = assignment_of(campaign, "3")
    speaker = middle.speaker
    neighbours = {number: assignment_of(campaign, str(number)).speaker for number in (1, 2, 4)}
    client.force_login(speaker)
    html = client.get(f"/review/items/{middle.public_id}/").content.decode()
    for number, rater in neighbours.items():
        secret_text = source(number, "gold_standard")
        assert (secret_text in html) == (rater == speaker), number
    hidden = sum(rater != speaker for rater in neighbours.values())
    assert 0 < hidden < 3, "two speakers share the story's sentences"
    assert html.count(KEPT_SECRET) == hidden
    seal_secret_views()
    event = AuditEvent.objects.filter(action="secret_entries.shown", actor=speaker).latest("id")
    assert event.details["count"] == 1 + (3 - hidden)


def test_only_the_pool_s_speaker_who_rates_all_of_it_reads_the_whole_secret_story(client, steward, governance_user):
    card = story_card(steward, governance_user, ["gold_standard", "development", "gold_standard"])
    pool = speakers(steward, 1)
    campaign = campaign_for(card, governance_user, pool, items=4)
    client.force_login(pool[0])
    html = client.get(f"/review/items/{assignment_of(campaign, '3').public_id}/").content.decode()
    assert source(1, "gold_standard") in html and source(2) in html and KEPT_SECRET not in html


def test_the_items_held_on_the_phone_carry_their_context_in_bounded_queries(client, steward, governance_user,
                                                                           django_assert_max_num_queries):
    card = story_card(steward, governance_user, ["development"] * 12)
    pool = speakers(steward, 1)
    campaign = campaign_for(card, governance_user, pool, items=13)
    campaign.device_may_hold_secret_items = True  # the story's last entry, which names no text, is secret
    campaign.save(update_fields=["device_may_hold_secret_items"])
    client.force_login(pool[0])
    url = f"/review/c/{campaign.public_id}/upcoming/"
    client.get(url)
    with django_assert_max_num_queries(8):
        items = client.get(url).json()["items"]
    by_entry = {Assignment.objects.get(public_id=uuid.UUID(item["id"])).item.entry.entry_id: item for item in items}
    assert by_entry["5"]["context"] == {"before": [source(3), source(4)], "after": [source(6)]}
    assert by_entry["1"]["context"] == {"before": [], "after": [source(2)]}
    assert "context" not in by_entry["13"]


def test_secret_context_in_the_held_items_follows_the_same_rule(client, steward, governance_user):
    card = story_card(steward, governance_user, ["gold_standard"] * 4)
    pool = speakers(steward, 2)
    campaign = campaign_for(card, governance_user, pool, items=5)
    campaign.device_may_hold_secret_items = True
    campaign.save(update_fields=["device_may_hold_secret_items"])
    middle = assignment_of(campaign, "3")
    client.force_login(middle.speaker)
    answer = client.get(f"/review/c/{campaign.public_id}/upcoming/")
    mine = next(item for item in answer.json()["items"] if item["id"] == str(middle.public_id))
    expected_after = [source(4, "gold_standard") if assignment_of(campaign, "4").speaker == middle.speaker else None]
    assert mine["context"]["after"] == expected_after
    others = [assignment_of(campaign, str(n)) for n in (1, 2, 4)]
    for other in others:
        if other.speaker != middle.speaker:
            assert SECRET_MARK + f"-gold_standard-{other.item.entry.entry_id}" not in answer.content.decode()


@pytest.mark.parametrize(("value", "message"), [
    (7, "expected a string, found"),
    ("x" * 201, "expected at most 200 characters"),
])
def test_a_bad_text_identifier_is_refused_by_name_and_nothing_is_stored(steward, value, message):
    from corpus.validation import CorpusFileError

    with pytest.raises(CorpusFileError) as refused:
        import_corpus(data=corpus_bytes([entry(1), entry(2, document_id=value)]), organization=steward, actor=None)
    text = " ".join(str(problem) for problem in refused.value.problems)
    assert "document_id" in text and message in text
    assert not Entry.objects.exists()


def test_the_text_identifier_survives_import_export_and_the_spreadsheet_columns(client, steward, curator):
    version = import_corpus(data=corpus_bytes([entry(1, document_id="s1"), entry(2, document_id=" s1 "),
                                               entry(3)]), organization=steward, actor=None).version
    assert list(Entry.objects.filter(version=version).order_by("position").values_list("document_id", flat=True)) \
        == ["s1", "s1", ""]
    client.force_login(curator)
    exported = client.get(f"/datasets/versions/{version.pk}/export.json")
    entries = json.loads(b"".join(exported.streaming_content) if exported.streaming else exported.content)["entries"]
    assert [item.get("document_id") for item in entries] == ["s1", " s1 ", None]
    from corpus.resources import COLUMNS

    assert "document_id" in COLUMNS
