"""The elicitation pages: a curator's batch from a CSV upload (and a bad file refused whole, by line), the translate
page and its JSON built without any machine output, one round trip per item, verification of one's own work
refused (403), consent revocation pausing everything, and bounded query counts."""

import json
import re
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from corpus.models import Entry
from corpus.selectors import active_consents
from corpus.services import import_corpus, revoke_consent
from elicitation.models import Batch, Translation, TranslationVersion, Verification
from leaderboard.services import submit_run_card

from .cards import body, make_card
from .conftest import corpus_bytes, entry, grant_all_consents
from .elicitation_setup import SOURCES_CSV, consented_dataset, make_batch, people, translate

pytestmark = pytest.mark.django_db

MACHINE_TEXT = "MACHINE-OUTPUT-niwâpamâw-atim"


@pytest.fixture
def batch(steward, curator):
    return make_batch(curator, consented_dataset(steward).dataset)


def machine_output_for(steward, governance_user, source_text: str):
    """A leaderboard run whose stored prediction for an entry with this very source text is MACHINE_TEXT."""
    version = import_corpus(data=corpus_bytes([entry(1, source=source_text, reference="niwâpamâw atim")],
                                              id="mt-set"), organization=steward, actor=None).version
    grant_all_consents(version.dataset)
    rows = list(Entry.objects.filter(version=version))
    submit_run_card(body=body(make_card(version, rows, composite=0.8, model_slug="machine-x",
                                        predict=lambda _: MACHINE_TEXT)), actor=governance_user)


def test_a_curator_creates_a_batch_from_a_csv_upload(client, steward, curator):
    dataset = consented_dataset(steward).dataset
    client.force_login(curator)
    response = client.post(reverse("elicitation:batch_new"), {
        "dataset": dataset.pk, "title": "Clinic", "source_language": "en", "target_language": "crk-Latn",
        "guideline": "As you would say it.", "translations_per_source": 1, "verifications_per_translation": 1,
        "sources": SimpleUploadedFile("sources.csv", SOURCES_CSV.encode())})
    assert response.status_code == 302, response.content.decode()[:2000]
    batch = Batch.objects.get()
    assert batch.sources.count() == 5
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert b"data-matrix" in page.content and b'data-missing="gold_standard">49<' in page.content


def test_a_bad_file_adds_nothing_and_names_each_line(client, batch, curator):
    client.force_login(curator)
    bad = "source,difficulty,register,domain\nfine,1,formal,conv\n,2,formal,conv\nx,7,formal,space\n"
    response = client.post(reverse("elicitation:batch_sources", args=[batch.public_id]),
                           {"sources": SimpleUploadedFile("bad.csv", bad.encode())})
    assert response.status_code == 400
    text = response.content.decode()
    assert "line 3, source: empty" in text and "line 4, difficulty" in text and "line 4, domain" in text
    assert batch.sources.count() == 5
    response = client.post(reverse("elicitation:batch_sources", args=[batch.public_id]),
                           {"sources": SimpleUploadedFile("bad.json", b'[{"source": "a",')})
    assert response.status_code == 400 and "line 1, column" in response.content.decode()


def test_a_speaker_may_not_open_the_curator_pages(client, steward, batch):
    [speaker] = people(steward, 1)
    client.force_login(speaker)
    assert client.get(reverse("elicitation:batch", args=[batch.public_id])).status_code == 404


def test_the_translate_page_and_its_json_never_show_machine_output(client, steward, governance_user, batch):
    machine_output_for(steward, governance_user, "The clinic opens at nine")
    [speaker] = people(steward, 1)
    client.force_login(speaker)
    source = batch.sources.get(text="The clinic opens at nine")
    page = client.get(reverse("elicitation:translate", args=[source.public_id]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "The clinic opens at nine" in text and MACHINE_TEXT not in text and "machine-x" not in text
    assert 'lang="crk"' in text and 'dir="auto"' in text
    upcoming = client.get(reverse("elicitation:upcoming", args=[batch.public_id]), HTTP_ACCEPT="application/json")
    assert "The clinic opens at nine" in upcoming.content.decode() and MACHINE_TEXT not in upcoming.content.decode()


def test_a_translation_is_one_round_trip_and_stored_once(client, steward, batch, django_assert_max_num_queries):
    [speaker] = people(steward, 1)
    client.force_login(speaker)
    source = batch.sources.get(text="dog")
    url = reverse("elicitation:translate", args=[source.public_id])
    client_id = str(uuid.uuid4())
    with django_assert_max_num_queries(30):
        first = client.post(url, {"client_id": client_id, "text": "atim", "pasted": "False", "typed": "4"},
                            HTTP_ACCEPT="application/json")
    again = client.post(url, {"client_id": client_id, "text": "atim"}, HTTP_ACCEPT="application/json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert json.loads(again.content)["duplicate"] is True
    assert TranslationVersion.objects.count() == 1
    refused = client.post(reverse("elicitation:translate", args=[batch.sources.get(text="hello").public_id]),
                          {"client_id": str(uuid.uuid4()), "text": " Hello "}, HTTP_ACCEPT="application/json")
    assert refused.status_code == 400 and "source text itself" in json.loads(refused.content)["error"]


def test_page_query_counts_are_bounded(client, steward, batch, django_assert_max_num_queries):
    translator, verifier = people(steward, 2)
    for source in batch.sources.all():
        translate(translator, source, f"{source.text} (crk)")
    client.force_login(verifier)
    with django_assert_max_num_queries(25):
        assert client.get(reverse("elicitation:upcoming", args=[batch.public_id])).status_code == 200
    with django_assert_max_num_queries(25):
        assert client.get(reverse("elicitation:verify_upcoming", args=[batch.public_id])).status_code == 200
    translation = Translation.objects.first()
    with django_assert_max_num_queries(30):
        assert client.get(reverse("elicitation:verify", args=[translation.public_id])).status_code == 200
    source = batch.sources.exclude(translations__translator=verifier).first()
    with django_assert_max_num_queries(30):
        assert client.get(reverse("elicitation:translate", args=[source.public_id])).status_code == 200


def test_verifying_ones_own_translation_is_refused_with_403(client, steward, batch):
    translator, = people(steward, 1)
    version, _ = translate(translator, batch.sources.get(text="dog"), "atim")
    client.force_login(translator)
    url = reverse("elicitation:verify", args=[version.translation.public_id])
    assert client.get(url).status_code == 403
    response = client.post(url, {"client_id": str(uuid.uuid4()), "version": 1, "outcome": "accept"},
                           HTTP_ACCEPT="application/json")
    assert response.status_code == 403 and not Verification.objects.exists()


def test_revoking_consent_pauses_pages_on_the_next_request(client, steward, batch, governance_user):
    [speaker] = people(steward, 1)
    client.force_login(speaker)
    source = batch.sources.get(text="dog")
    assert client.get(reverse("elicitation:translate", args=[source.public_id])).status_code == 200
    for record in active_consents(batch.dataset):
        revoke_consent(actor=governance_user, record=record, reason="Paused by council")
    assert client.get(reverse("elicitation:translate", args=[source.public_id])).status_code == 409
    response = client.post(reverse("elicitation:translate", args=[source.public_id]),
                           {"client_id": str(uuid.uuid4()), "text": "atim"}, HTTP_ACCEPT="application/json")
    assert response.status_code == 409 and json.loads(response.content)["code"] == "not_serving"
    assert not TranslationVersion.objects.exists()


def test_the_curators_list_says_an_open_batch_without_consent_takes_no_work(client, steward, batch, curator,
                                                                           governance_user):
    client.force_login(curator)
    paused = "Paused: its community's consent to corpus creation is no longer in force"
    page = client.get(reverse("elicitation:home")).content.decode()
    assert batch.title in page and paused not in page
    for record in active_consents(batch.dataset):
        revoke_consent(actor=governance_user, record=record, reason="Paused by council")
    page = client.get(reverse("elicitation:home")).content.decode()
    assert paused in page and "<td>Open</td>" not in page


def test_the_api_adds_sources_all_or_none(client, batch, curator, speaker):
    from accounts.services import create_api_token

    _token, key = create_api_token(actor=curator, scope="secret")
    url = reverse("elicitation-batch-sources", args=[batch.public_id])
    good = [{"source": "Where is the clinic?", "difficulty": 2, "register": "conversational", "domain": "medical",
             "context": "asked by a visitor"}]
    bad = good + [{"source": "", "difficulty": 2, "register": "conversational", "domain": "medical"}]
    response = client.post(url, json.dumps(bad), content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 400
    assert response.json()["problems"] == [{"where": "sources[1]", "field": "source",
                                            "message": "empty: give the text to translate"}]
    assert batch.sources.count() == 5
    response = client.post(url, json.dumps(good), content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 201 and response.json() == {"added": 1}
    _token, speaker_key = create_api_token(actor=speaker)
    response = client.post(url, json.dumps(good), content_type="application/json",
                           HTTP_AUTHORIZATION=f"Token {speaker_key}")
    assert response.status_code == 403


def test_a_curator_freezes_a_draft_version_by_hand(client, steward, curator, speaker):
    version = consented_dataset(steward)
    client.force_login(speaker)
    assert client.post(reverse("corpus:freeze", args=[version.pk])).status_code == 404
    version.refresh_from_db()
    assert not version.is_frozen
    client.force_login(curator)
    page = client.get(reverse("corpus:version", args=[version.pk])).content.decode()
    assert "Freeze this version" in page
    assert client.post(reverse("corpus:freeze", args=[version.pk])).status_code == 302
    version.refresh_from_db()
    assert version.is_frozen


def test_a_verifier_declares_a_conflict_and_the_translators_work_leaves_their_queue(client, steward, batch):
    translator, verifier = people(steward, 2)
    version, _ = translate(translator, batch.sources.get(text="dog"), "atim")
    client.force_login(verifier)
    url = reverse("elicitation:declare_conflict", args=[version.translation.public_id])
    assert client.post(url, {"reason": " "}).status_code == 302
    from elicitation.selectors import to_verify

    assert list(to_verify(verifier, batch)) == [version.translation]
    client.post(url, {"reason": "She is my sister."})
    assert list(to_verify(verifier, batch)) == []
    response = client.post(reverse("elicitation:verify", args=[version.translation.public_id]),
                           {"client_id": str(uuid.uuid4()), "version": 1, "outcome": "accept"},
                           HTTP_ACCEPT="application/json")
    assert response.status_code == 403 and "conflict of interest" in response.json()["error"]


def test_load_demo_makes_one_human_written_batch_the_demo_speaker_may_translate(client):
    from django.core.management import call_command

    from accounts.models import User

    call_command("load_demo")
    call_command("load_demo")
    batch = Batch.objects.get()
    assert [source.text for source in batch.sources.all()] == ["I saw his dog yesterday",
                                                               "the woman whose son went to the store"]
    assert not Translation.objects.exists(), "no translation is made up"
    client.force_login(User.objects.get(email="speaker@demo.example"))
    response = client.get(reverse("elicitation:translate_start", args=[batch.public_id]))
    assert response.status_code == 302 and "/elicit/sources/" in response["Location"]


def test_curator_pages_query_counts_do_not_grow_with_the_work(client, steward, curator, batch,
                                                               django_assert_max_num_queries):
    translator, verifier = people(steward, 2)
    for source in batch.sources.all():
        version, _ = translate(translator, source, f"{source.text} (crk)")
        from .elicitation_setup import verify

        verify(verifier, version.translation, "accept")
    client.force_login(curator)
    for name in ("elicitation:batch", "elicitation:dashboard", "elicitation:dashboard_export"):
        with django_assert_max_num_queries(40):
            assert client.get(reverse(name, args=[batch.public_id])).status_code == 200
    with django_assert_max_num_queries(30):
        assert client.get(reverse("elicitation:home")).status_code == 200


def test_a_phone_never_holds_a_secret_source(client, steward, batch):
    translator, verifier = people(steward, 2)
    client.force_login(translator)
    held = client.get(reverse("elicitation:upcoming", args=[batch.public_id])).json()["items"]
    assert "I see the dog" not in [item["source"] for item in held] and len(held) == 4
    gold = batch.sources.get(text="I see the dog")
    assert client.get(reverse("elicitation:translate", args=[gold.public_id])).status_code == 200, "its own page"
    version, _ = translate(translator, gold, "niwâpamâw atim")
    client.force_login(verifier)
    assert client.get(reverse("elicitation:verify_upcoming", args=[batch.public_id])).json()["items"] == []
    assert client.get(reverse("elicitation:verify_start", args=[batch.public_id]))["Location"].endswith(
        f"/elicit/translations/{version.translation.public_id}/")


def test_the_verifier_sees_paste_telemetry_as_weak_evidence(client, steward, batch):
    translator, verifier = people(steward, 2)
    version, _ = translate(translator, batch.sources.get(text="dog"), "atim", pasted=True, typed_characters=0)
    client.force_login(verifier)
    page = client.get(reverse("elicitation:verify", args=[version.translation.public_id])).content.decode()
    assert "Text was pasted into the translation field: weak evidence only" in page
    assert 'data-pasted hidden' not in page


def test_the_curator_changes_the_guideline_on_the_batch_page(client, batch, curator):
    client.force_login(curator)
    client.post(reverse("elicitation:batch_guideline", args=[batch.public_id]), {"guideline": "New words."})
    batch.refresh_from_db()
    assert (batch.guideline, batch.guideline_version) == ("New words.", 2)
    assert "Guideline (version 2)" in client.get(reverse("elicitation:batch", args=[batch.public_id])).content.decode()


def test_a_page_showing_a_secret_source_is_audited_and_not_cached(client, steward, batch):
    """A gold_standard source is a future secret entry: its translate and verify pages record each showing
    (`secret_entries.shown`) and are never kept by a cache; public sources record nothing."""
    from organizations.audit import seal_secret_views
    from organizations.models import AuditEvent

    translator, verifier = people(steward, 2)
    gold, public = batch.sources.get(text="I see the dog"), batch.sources.get(text="dog")
    client.force_login(translator)
    client.get(reverse("elicitation:translate", args=[public.public_id]))
    seal_secret_views()
    assert not AuditEvent.objects.filter(action="secret_entries.shown").exists()
    page = client.get(reverse("elicitation:translate", args=[gold.public_id]))
    assert "no-store" in page["Cache-Control"]
    version, _ = translate(translator, gold, "niwâpamâw atim")
    client.force_login(verifier)
    verify_url = reverse("elicitation:verify", args=[version.translation.public_id])
    assert client.get(verify_url).status_code == 200
    seal_secret_views()
    shown = list(AuditEvent.objects.filter(action="secret_entries.shown").order_by("id")
                 .values_list("actor", "details__count", "details__where"))
    assert shown == [(translator.pk, 1, reverse("elicitation:translate", args=[gold.public_id])),
                     (verifier.pk, 1, verify_url)]


def test_the_translate_page_offers_its_source_to_the_device_only_when_it_is_public(client, steward, batch):
    """elicit.js keeps the page's source (its JSON) on the device for a reload without a connection: a
    gold_standard source is never offered to it."""
    [speaker] = people(steward, 1)
    client.force_login(speaker)
    public = client.get(reverse("elicitation:translate", args=[batch.sources.get(text="dog").public_id]))
    gold = client.get(reverse("elicitation:translate", args=[batch.sources.get(text="I see the dog").public_id]))
    assert 'id="elicit-item"' in public.content.decode() and "data-may-hold" in public.content.decode()
    assert 'id="elicit-item"' not in gold.content.decode() and "data-may-hold" not in gold.content.decode()


def test_the_offline_shell_holds_no_source_and_follows_the_serving_rule(client, steward, batch, governance_user):
    """The translate page without a source, which elicit.js stores for a reload without a connection, and the
    service worker that answers with it, served under /elicit/ for its scope."""
    from organizations.audit import seal_secret_views
    from organizations.models import AuditEvent

    worker = client.get("/elicit/sw.js")
    assert worker.status_code == 200 and worker["Content-Type"].startswith("text/javascript")
    assert "no-cache" in worker["Cache-Control"] and b"champollion\\u002Delicit\\u002Dv1" in worker.content
    [speaker] = people(steward, 1)
    client.force_login(speaker)
    shell = client.get(reverse("elicitation:offline_shell", args=[batch.public_id]))
    html = shell.content.decode()
    assert shell.status_code == 200 and "data-shell" in html and "no-store" in shell["Cache-Control"]
    assert 'id="elicit-item"' not in html
    for source in batch.sources.all():
        assert source.text not in html
    seal_secret_views()
    assert not AuditEvent.objects.filter(action="secret_entries.shown").exists()
    for record in active_consents(batch.dataset):
        revoke_consent(actor=governance_user, record=record, reason="Paused by council")
    assert client.get(reverse("elicitation:offline_shell", args=[batch.public_id])).status_code == 409


def test_the_verify_page_offers_its_translation_to_the_device_only_when_its_source_is_public(client, steward, batch):
    """The translate page's rule applied to a translation to verify: elicit.js keeps the page's translation (its
    JSON) on the device only when its source is of a public segment, never a gold_standard one."""
    translator, verifier = people(steward, 2)
    public, _ = translate(translator, batch.sources.get(text="dog"), "atim")
    gold, _ = translate(translator, batch.sources.get(text="I see the dog"), "niwâpamâw atim")
    client.force_login(verifier)
    public_page = client.get(reverse("elicitation:verify", args=[public.translation.public_id])).content.decode()
    gold_page = client.get(reverse("elicitation:verify", args=[gold.translation.public_id])).content.decode()
    assert 'id="elicit-item"' in public_page and "data-may-hold" in public_page
    assert 'id="elicit-item"' not in gold_page and "data-may-hold" not in gold_page
    shell_url = reverse("elicitation:verify_shell", args=[batch.public_id])
    assert f'data-shell-url="{shell_url}"' in public_page and f'data-shell-url="{shell_url}"' in gold_page


def test_the_verify_pages_offline_shell_holds_no_translation_and_follows_the_serving_rule(
        client, steward, batch, outsider, governance_user):
    """The verify page without a translation, which elicit.js stores for a reload without a connection: only for
    someone who may work in the batch (404 for anyone else), with no source or translation text in it (a secret one
    least of all), nothing recorded as shown; and the one service worker of /elicit/ answers a reload of a
    translation's address as it does a source's."""
    from organizations.audit import seal_secret_views
    from organizations.models import AuditEvent

    translator, verifier = people(steward, 2)
    for text, translation in (("dog", "atim"), ("I see the dog", "niwâpamâw atim")):
        translate(translator, batch.sources.get(text=text), translation)
    shell_url = reverse("elicitation:verify_shell", args=[batch.public_id])
    assert client.get(shell_url).status_code == 302, "signed in only"
    client.force_login(outsider)
    assert client.get(shell_url).status_code == 404
    client.force_login(verifier)
    shell = client.get(shell_url)
    html = shell.content.decode()
    assert shell.status_code == 200 and "data-shell" in html and "no-store" in shell["Cache-Control"]
    assert 'id="elicit-item"' not in html and "data-analysis" not in html
    for text in [*batch.sources.values_list("text", flat=True),
                 *TranslationVersion.objects.values_list("text", flat=True)]:
        assert text not in html
    seal_secret_views()
    assert not AuditEvent.objects.filter(action="secret_entries.shown").exists()

    worker = client.get(reverse("elicitation:service_worker")).content.decode()
    item_page = re.search(r'var ITEM_PAGE = new RegExp\("(.*)"\);', worker).group(1)
    item_page = json.loads(f'"{item_page}"')
    for route, public_id in (("elicitation:translate", batch.sources.first().public_id),
                             ("elicitation:verify", Translation.objects.first().public_id)):
        assert re.search(item_page, reverse(route, args=[public_id]))
    assert not re.search(item_page, shell_url)

    for record in active_consents(batch.dataset):
        revoke_consent(actor=governance_user, record=record, reason="Paused by council")
    assert client.get(shell_url).status_code == 409


def test_the_speakers_home_counts_each_batch_as_its_queues_do_in_a_fixed_number_of_queries(
        client, steward, curator, batch, django_assert_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from elicitation.selectors import to_revise, to_translate, to_verify, work_counts

    translator, verifier, other = people(steward, 3)
    version, _ = translate(translator, batch.sources.get(text="dog"), "atim")
    translate(other, batch.sources.get(text="hello"), "tânisi")
    client.force_login(verifier)
    client.post(reverse("elicitation:declare_conflict", args=[version.translation.public_id]),
                {"reason": "She is my sister."})
    counts = work_counts(verifier, [batch])[batch.pk]
    assert counts == {"to_translate": to_translate(verifier, batch).count(),
                      "to_revise": to_revise(verifier, batch).count(), "to_verify": to_verify(verifier, batch).count()}
    assert counts["to_verify"] == 1, "the conflicted translator's work is not counted"

    with CaptureQueriesContext(connection) as one_batch:
        page = client.get(reverse("elicitation:home"))
    assert page.status_code == 200 and page.content.decode().count('data-count="translate"') == 1
    dataset = batch.dataset
    for number in range(3):
        make_batch(curator, dataset, csv_text="source,difficulty,register,domain,segment,origin\n"
                                              f"water {number},1,conversational,conv,development,community\n")
    with django_assert_num_queries(len(one_batch.captured_queries)):
        page = client.get(reverse("elicitation:home"))
    assert page.status_code == 200 and page.content.decode().count('data-count="translate"') == 4
