"""Pages a speaker and governance staff use, rendered in French (Canada): no English left in what the interface
itself says (issue 12, part 4). Data (texts, names) is marked with its own `lang` and skipped; the interface's
text is checked against the English catalog and for English function words."""

import json
import re
import uuid
from html.parser import HTMLParser

import polib
import pytest
from django.core.management import call_command

from accounts.models import User
from corpus.models import DatasetVersion
from elicitation.models import Batch
from organizations.models import Organization
from review import services
from review.models import Assignment, Campaign

from .test_i18n_catalog import catalog

ENGLISH_WORDS = {
    "the", "your", "you", "and", "with", "this", "of", "is", "are", "has", "have", "not", "for", "from", "will",
    "can", "was", "which", "that", "there", "their", "what", "when", "where", "how", "each", "than", "into",
    "only", "after", "before", "yet", "here", "now", "it", "its", "no", "yes", "to",
}
SPOKEN_ATTRIBUTES = {"aria-label", "title", "placeholder", "alt"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class InterfaceText(HTMLParser):
    """Text a reader sees or hears, outside scripts, styles and any element in another language than French."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.texts: list[str] = []

    def skipping(self) -> bool:
        return any(skip for _, skip in self.stack)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        language = attributes.get("lang")
        skip = tag in {"script", "style", "code", "pre", "textarea"} or (
            language is not None and not language.lower().startswith("fr"))
        if not skip and not self.skipping():
            self.texts += [value for name, value in attrs if name in SPOKEN_ATTRIBUTES and value]
            if tag == "input" and attributes.get("type") in {"submit", "button"} and attributes.get("value"):
                self.texts.append(attributes["value"])
        if tag not in VOID:
            self.stack.append((tag, skip))

    def handle_endtag(self, tag):
        for index in range(len(self.stack) - 1, -1, -1):
            if self.stack[index][0] == tag:
                del self.stack[index:]
                break

    def handle_data(self, data):
        if data.strip() and not self.skipping():
            self.texts.append(" ".join(data.split()))


def english_left(html: str, english: set[str], data: tuple[str, ...] = ()) -> list[str]:
    """Interface text still in English; text holding `data` (names, titles people wrote) is theirs, not ours."""
    parser = InterfaceText()
    parser.feed(html)
    found = []
    for text in parser.texts:
        if any(value in text for value in data):
            continue
        words = set(re.findall(r"[a-z']+", text.lower()))
        if text in english or words & ENGLISH_WORDS:
            found.append(text)
    return found


@pytest.fixture(scope="module")
def english_msgids() -> set[str]:
    """English strings whose French differs (a word spelled the same in both, like « Messages », is fine)."""
    msgids = set()
    for domain in ("django", "djangojs"):
        for entry in catalog(domain):
            if isinstance(entry, polib.POEntry) and entry.msgstr != entry.msgid and "%" not in entry.msgid:
                msgids.add(entry.msgid)
    return msgids


@pytest.fixture
def demo(db):
    call_command("load_demo")
    return Campaign.objects.get()


def written_by_people() -> tuple[str, ...]:
    """What the demo's people wrote (in English, for the demo): organization, dataset, campaign and elicitation batch
    texts."""
    values: list[str] = []
    for organization in Organization.objects.all():
        values += [organization.name, organization.principles]
    for campaign in Campaign.objects.all():
        values += [campaign.title, campaign.below_threshold_reason, campaign.instructions]
    for batch in Batch.objects.all():
        values += [batch.title, batch.guideline]
        for source in batch.sources.all():
            values += [source.text, source.context, source.origin_name]
    for version in DatasetVersion.objects.all():
        envelope = json.loads(version.envelope)
        values += [version.dataset.identifier, version.license] + [
            value for value in envelope.values() if isinstance(value, str)]
    return tuple(value for value in values if value)


def french(client, url: str):
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="fr-CA", follow=True)
    assert response.status_code == 200, url
    return response.content.decode()


def test_a_speakers_pages_speak_french(client, demo, english_msgids):
    pages = ["/", "/language/", "/leaderboard/", "/datasets/", "/accounts/login/"]
    for url in pages:
        assert english_left(french(client, url), english_msgids, written_by_people()) == [], url
    speaker = User.objects.get(email="speaker@demo.example")
    client.force_login(speaker)
    assignment = Assignment.objects.filter(campaign=demo, speaker=speaker).first()
    # One rating of their own: the pages about their time, pay and withdrawal then have something to say.
    rated = Assignment.objects.filter(campaign=demo, speaker=speaker).exclude(pk=assignment.pk).first()
    services.record_rating(actor=speaker, item=rated.public_id,
                           submission=services.Submission(uuid.uuid4(), "gist", active_seconds=42.0, timed_by="device"))
    pages = ["/", "/review/", f"/review/c/{demo.public_id}/", f"/review/items/{assignment.public_id}/",
             "/accounts/profile/", "/review/me/", "/review/me/delete-account/",
             f"/review/me/campaigns/{demo.public_id}/withdraw/", "/review/me/withdraw-all/", "/speakers/",
             f"/speakers/vouch/{demo.organization.slug}/?email=nobody@demo.example"]
    batch = Batch.objects.get()
    translate_elicited(speaker, batch)
    pages += ["/elicit/", "/elicit/me/", f"/elicit/b/{batch.public_id}/translate/"]
    for url in pages:
        assert english_left(french(client, url), english_msgids, written_by_people()) == [], url


def test_governance_pages_speak_french(client, demo, english_msgids):
    staff = User.objects.get(email="governance@demo.example")
    client.force_login(staff)
    slug = demo.organization.slug
    for url in [f"/orgs/{slug}/", "/review/campaigns/", f"/review/campaigns/{demo.public_id}/",
                f"/review/campaigns/{demo.public_id}/decision/", f"/orgs/{slug}/languages/",
                f"/orgs/{slug}/dashboard/", f"/review/orgs/{slug}/gate/", f"/review/orgs/{slug}/rating-examples/",
                f"/orgs/{slug}/audit/", f"/review/campaigns/{demo.public_id}/timesheet/", f"/review/orgs/{slug}/pay/",
                f"/speakers/orgs/{slug}/", f"/speakers/orgs/{slug}/practice/",
                f"/speakers/orgs/{slug}/practice/items/new/", *batch_pages(staff)]:
        assert english_left(french(client, url), english_msgids, written_by_people()) == [], url


def translate_elicited(speaker, batch) -> None:
    """The speaker's translation of the demo batch's first source: their pay and work pages then have a row."""
    from datetime import timedelta

    from django.utils import timezone

    from elicitation.services import TranslationSubmission, submit_translation

    source = batch.sources.order_by("position").first()
    submit_translation(actor=speaker, source=source, submission=TranslationSubmission(
        client_id=uuid.uuid4(), text="niwâpamâw otêma otâkosîhk", shown_at=timezone.now() - timedelta(seconds=60)))


def batch_pages(staff) -> list[str]:
    """The demo batch's pages for its governance staff, once a speaker translated in it."""
    batch = Batch.objects.get()
    translate_elicited(User.objects.get(email="speaker@demo.example"), batch)
    return [f"/elicit/b/{batch.public_id}/", f"/elicit/b/{batch.public_id}/dashboard/",
            f"/elicit/b/{batch.public_id}/pay/"]


def test_the_scanner_finds_english_it_is_shown():
    html = ('<p>Enregistré</p><p lang="crk">the niwâpamâw</p><button aria-label="Save the rating">x</button>'
            '<p>Datasets</p>')
    assert english_left(html, {"Datasets"}) == ["Save the rating", "Datasets"]


def test_numbers_are_written_the_readers_way_but_charts_keep_their_coordinates(client, demo):
    """French writes 0,70; an SVG coordinate stays 130.0 whatever the language, or the chart breaks."""
    client.force_login(User.objects.get(email="governance@demo.example"))
    html = french(client, f"/review/campaigns/{demo.public_id}/decision/")
    for attribute in re.findall(r'<(?:rect|line|circle|text)[^>]*>', html):
        assert not re.search(r'="\d+,\d', attribute), attribute
    assert re.search(r"\d,\d\d", html), "figures use a decimal comma in French"
