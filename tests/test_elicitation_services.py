"""Elicitation's rules as services: batches need consent and valid sources (all or nothing, every problem named),
translations are checked and compared with stored machine output, verifications never by the author, an edit makes
earlier accepts stale, gold_standard needs two distinct accepts, and accepted translations become exactly one entry
each."""

import json
import uuid

import pytest

from corpus.models import ConsentUse, Entry
from corpus.selectors import active_consents
from corpus.services import freeze_version, import_corpus, revoke_consent
from elicitation import services
from elicitation.models import Batch, ElicitedEntry, Source, Translation, TranslationVersion, Verification
from elicitation.selectors import coverage_matrix, is_serving, speaker_figures, to_translate, to_verify
from elicitation.sources import SourceFileError, checked_rows, read_csv, read_json
from leaderboard.services import submit_run_card
from ledger.worktime import CLOCK_SLACK_SECONDS

from .cards import body, make_card
from .conftest import corpus_bytes, entry, grant_all_consents, proven
from .elicitation_setup import consented_dataset, make_batch, people, translate, verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def batch(steward, curator):
    return make_batch(curator, consented_dataset(steward).dataset)


def source_of(batch, text):
    return batch.sources.get(text=text)


def test_a_batch_needs_consent_to_corpus_creation(steward, curator):
    version = consented_dataset(steward, uses=[ConsentUse.EVALUATION])
    with pytest.raises(services.ElicitationError, match="corpus creation"):
        make_batch(curator, version.dataset)
    assert not Batch.objects.exists()


def test_a_speaker_cannot_create_a_batch(steward, speaker):
    version = consented_dataset(steward)
    with pytest.raises(services.NotAllowed):
        make_batch(proven(speaker), version.dataset)


def test_csv_sources_are_stored_with_origin_and_the_matrix_counts_them(batch):
    assert batch.sources.count() == 5
    public = source_of(batch, "The clinic opens at nine")
    assert (public.origin, public.origin_name, public.origin_license) == ("public_source", "Clinic poster",
                                                                          "CC-BY-4.0")
    assert source_of(batch, "Take one tablet twice a day").origin == "machine_proposed"
    matrix = coverage_matrix(batch)
    assert matrix["total"] == 5 and matrix["tiers"] == 3 and matrix["tiers_ok"]
    assert matrix["register_count"] == 2 and matrix["registers_ok"]
    tier1 = matrix["rows"][0]
    assert tier1.by_register[matrix["registers"].index("conversational")] == 2
    segments = {segment: (count, minimum, missing) for segment, count, minimum, missing in matrix["segments"]}
    assert segments["gold_standard"] == (1, 50, 49)


@pytest.mark.parametrize("text, problem", [
    ("source,difficulty,register,domain\n,1,formal,conv\n", "line 2, source: empty"),
    ("source,difficulty,register,domain\nhi,6,formal,conv\n", "line 2, difficulty: “6” is not a tier"),
    ("source,difficulty,register,domain\nhi,1,formal,cooking\n", "line 2, domain: “cooking” is unknown"),
    ("source,difficulty,register,domain\nhi,1,casual,conv\n", "line 2, register: “casual” is unknown"),
    ("source,difficulty,register,domain\nhi,1,formal,conv\nHI ,2,formal,conv\n",
     "line 3, source: the same source as line 2"),
    ("source,difficulty,register\nhi,1,formal\n", "line 1, domain: required column missing"),
    ("source,difficulty,register,domain\nhi,1,formal\n", "line 2: expected 4 values"),
    ("source,difficulty,register,domain,origin\nhi,1,formal,conv,public_source\n",
     "line 2, origin_name: a public source"),
    ("source,difficulty,register,domain\n" + "x" * 2001 + ",1,formal,conv\n", "line 2, source: 2001 characters"),
])
def test_bad_csv_names_the_line_and_field(text, problem):
    with pytest.raises(SourceFileError) as caught:
        checked_rows(read_csv(text.encode()), set())
    assert any(str(found).startswith(problem) for found in caught.value.problems), caught.value.problems


def test_malformed_json_names_its_line_and_a_bad_row_its_index():
    with pytest.raises(SourceFileError) as caught:
        read_json(b'[\n {"source": "hi",\n "difficulty": 1\n')
    assert str(caught.value.problems[0]).startswith("line 4, column")
    with pytest.raises(SourceFileError) as caught:
        checked_rows(read_json(json.dumps([{"source": "a", "difficulty": 1, "register": "formal", "domain": "conv"},
                                           {"source": "b", "difficulty": 9, "register": "formal",
                                            "domain": "conv"}]).encode()), set())
    assert [str(p) for p in caught.value.problems] == ["sources[1], difficulty: “9” is not a tier; expected 1 to 5"]


def test_nothing_partial_a_file_with_one_bad_row_adds_nothing(batch, curator):
    rows = read_csv(b"source,difficulty,register,domain\nnew one,1,formal,conv\nhello,1,formal,conv\n")
    with pytest.raises(SourceFileError) as caught:
        services.add_sources(actor=curator, batch=batch, raw_rows=rows)
    assert str(caught.value.problems[0]) == "line 3, source: already a source of this batch"
    assert batch.sources.count() == 5


def test_translation_checks_and_idempotent_client_id(steward, batch):
    [speaker] = people(steward, 1)
    dog = source_of(batch, "dog")
    for text, message in (("  ", "empty"), ("DOG ", "source text itself"), ("a" * 2001, "2001 characters")):
        with pytest.raises(services.ElicitationError, match=message):
            translate(speaker, dog, text)
    client_id = uuid.uuid4()
    version, created = translate(speaker, dog, "atim", client_id=client_id)
    again, created_again = translate(speaker, dog, "atim", client_id=client_id)
    assert created and not created_again and again.pk == version.pk
    assert TranslationVersion.objects.count() == 1
    with pytest.raises(services.AlreadyDone):
        translate(speaker, dog, "atimwa")


def test_an_unqualified_speaker_may_not_translate(steward, batch):
    from organizations.services import add_member

    unqualified, _, _ = add_member(email="new@steward.example", organization=steward, role="speaker", actor=None)
    with pytest.raises(services.NotAllowed):
        translate(unqualified, source_of(batch, "dog"), "atim")


def test_revoking_consent_pauses_the_batch_at_once(steward, batch, governance_user):
    [speaker] = people(steward, 1)
    for record in active_consents(batch.dataset):
        revoke_consent(actor=governance_user, record=record, reason="Council paused corpus work")
    with pytest.raises(services.NotServing, match="consent"):
        translate(speaker, source_of(batch, "dog"), "atim")
    assert not is_serving(Batch.objects.get(pk=batch.pk))


def test_a_translation_close_to_a_stored_machine_output_is_flagged_with_its_system(steward, batch, governance_user):
    version = import_corpus(data=corpus_bytes([entry(1, source="I see the dog", reference="niwâpamâw atim")],
                                              id="mt-set"), organization=steward, actor=None).version
    grant_all_consents(version.dataset)
    rows = list(Entry.objects.filter(version=version))
    card = make_card(version, rows, composite=0.8, model_slug="machine-x", predict=lambda _: "niwâpamâw atim anohc")
    submit_run_card(body=body(card), actor=governance_user)
    translator, = people(steward, 1)
    source = source_of(batch, "I see the dog")
    pasted, _ = translate(translator, source, "niwâpamâw atim anohc.")
    assert pasted.suspected_system == "machine-x" and pasted.suspected_chrf >= 85
    own, _ = translate(translator, source_of(batch, "dog"), "atim")
    assert not own.suspected, "no machine output is stored for that source"
    verifier, = people(steward, 1, prefix="verifier")
    with pytest.raises(services.ElicitationError, match="resembles machine output"):
        verify(verifier, pasted.translation, "accept")
    verification, _ = verify(verifier, pasted.translation, "accept", comment="This is how we say it; I checked.")
    assert verification.flagged


def test_a_source_typed_by_a_curator_finds_the_outputs_stored_for_that_very_text(client, steward, batch, curator,
                                                                                governance_user):
    """The machine-paste check finds an entry by its source text's digest (corpus `entry_source_digest`): a source
    typed on the batch page equal to an entry's source finds every run's output for it, once per distinct output;
    an entry whose source differs by a letter or a space is not the same text."""
    from elicitation.selectors import closest_machine_output

    texts = ["The river is high today", "The river is high today.", "the river is high today",
             "The river is high  today"]
    version = import_corpus(data=corpus_bytes([entry(n, source=text, reference="sîpiy") for n, text in
                                               enumerate(texts, start=1)], id="mt-river"),
                            organization=steward, actor=None).version
    grant_all_consents(version.dataset)
    rows = list(Entry.objects.filter(version=version))
    for system in ("system-a", "system-b"):
        submit_run_card(body=body(make_card(version, rows, composite=0.8, model_slug=system, predict=lambda e: (
            "mistahi sîpiy anohc" if e.source == texts[0] else f"other output {e.entry_id}"))), actor=governance_user)
    client.force_login(curator)
    client.post(f"/elicit/b/{batch.public_id}/sources/", {
        "source": " The river is high today ", "difficulty": "1", "register": "conversational", "domain": "conv",
        "segment": "development", "origin": "community"})
    typed = source_of(batch, "The river is high today")
    match = closest_machine_output(typed, "mistahi sîpiy anohc")
    assert match is not None and match.system in ("system-a", "system-b") and match.score == 100.0
    assert closest_machine_output(typed, "other output 2") is None, "the outputs of other texts are not compared"
    pasted, _ = translate(people(steward, 1)[0], typed, "mistahi sîpiy anohc")
    assert pasted.suspected and pasted.suspected_chrf == 100.0


def test_nobody_verifies_their_own_work_and_an_edit_makes_earlier_accepts_stale(steward, curator, steward_dataset):
    batch = make_batch(curator, steward_dataset, verifications_per_translation=2)
    translator, first, second, third = people(steward, 4)
    version, _ = translate(translator, source_of(batch, "dog"), "atim")
    translation = version.translation
    with pytest.raises(services.NotAllowed):
        verify(translator, translation, "accept")
    verify(first, translation, "accept")
    verify(second, translation, "edit", text="atimwa")
    translation.refresh_from_db()
    assert translation.status == Translation.Status.SUBMITTED
    assert Verification.objects.get(verifier=first).stale_at is not None
    with pytest.raises(services.NotAllowed):
        verify(second, translation, "accept")
    with pytest.raises(services.AlreadyDone, match="changed since"):
        verify(third, translation, "accept", version=1)
    verify(first, translation, "accept")
    verify(third, translation, "accept")
    translation.refresh_from_db()
    assert translation.status == Translation.Status.ACCEPTED


@pytest.fixture
def steward_dataset(steward):
    return consented_dataset(steward).dataset


def test_gold_standard_needs_two_distinct_accepts_and_revision_goes_back_at_most_twice(steward, batch):
    translator, first, second = people(steward, 3)
    version, _ = translate(translator, source_of(batch, "I see the dog"), "niwâpamâw atim")
    translation = version.translation
    verify(first, translation, "accept")
    translation.refresh_from_db()
    assert translation.status == Translation.Status.SUBMITTED, "gold_standard: one accept is not enough"
    verify(second, translation, "accept")
    translation.refresh_from_db()
    assert translation.status == Translation.Status.ACCEPTED
    other, _ = translate(translator, source_of(batch, "hello"), "tansi")
    for round_ in range(2):
        verify(first, other.translation, "revise", comment="Use the SRO spelling.")
        with pytest.raises(services.AlreadyDone, match="not waiting"):
            verify(second, other.translation, "accept")
        translate(translator, source_of(batch, "hello"), f"tânisi{'!' * round_}")
    with pytest.raises(services.ElicitationError, match="sent back 2 times"):
        verify(first, other.translation, "revise", comment="Again")
    with pytest.raises(services.ElicitationError, match="comment"):
        verify(first, other.translation, "reject")
    verify(first, other.translation, "reject", comment="Not this dialect.")
    other.translation.refresh_from_db()
    assert other.translation.status == Translation.Status.REJECTED


def test_two_skips_for_source_error_send_the_source_to_the_curator(steward, batch):
    first, second, third = people(steward, 3)
    source = source_of(batch, "dog")
    client_id = uuid.uuid4()
    services.skip_source(actor=first, source=source, client_id=client_id, reason="source_error")
    services.skip_source(actor=first, source=source, client_id=client_id, reason="source_error")
    services.skip_source(actor=second, source=source, client_id=uuid.uuid4(), reason="unknown_term")
    assert Source.objects.get(pk=source.pk).status == Source.Status.OPEN
    services.skip_source(actor=third, source=source, client_id=uuid.uuid4(), reason="inappropriate")
    assert Source.objects.get(pk=source.pk).status == Source.Status.HELD
    assert source not in list(to_translate(people(steward, 1, prefix="late")[0], batch))


def test_accepted_translations_become_exactly_one_entry_each(steward, curator, batch):
    translator, verifier = people(steward, 2)
    kept, _ = translate(translator, source_of(batch, "dog"), "atim", analysis="atim: NA dog")
    dropped, _ = translate(translator, source_of(batch, "hello"), "tânisi")
    accept_id = uuid.uuid4()
    verify(verifier, kept.translation, "accept", client_id=accept_id)
    verify(verifier, kept.translation, "accept", client_id=accept_id)  # re-sent
    verify(verifier, dropped.translation, "reject", comment="Wrong word")
    services.check_analysis(actor=verifier, version=kept, status="confirmed", method="by knowledge")
    version = batch.dataset.versions.get()
    links = services.add_accepted_to_version(actor=curator, batch=batch, version=version)
    assert len(links) == 1
    assert services.add_accepted_to_version(actor=curator, batch=batch, version=version) == []
    assert ElicitedEntry.objects.count() == 1
    document = json.loads(links[0].entry.document)
    assert document["reference"] == "atim" and document["provenance"] == "elicited"
    assert document["morphological_analysis"] == "atim: NA dog"
    assert document["elicitation"]["translator"] == "anonymous"
    assert document["elicitation"]["guideline_version"] == 1
    assert version.entries.count() == 2
    freeze_version(actor=curator, version=version)
    with pytest.raises(services.AlreadyDone, match="frozen"):
        services.add_accepted_to_version(actor=curator, batch=batch, version=version)


def test_withdrawing_takes_back_what_no_frozen_version_holds(steward, curator, batch):
    translator, verifier = people(steward, 2)
    frozen_one, _ = translate(translator, source_of(batch, "dog"), "atim")
    draft_one, _ = translate(translator, source_of(batch, "hello"), "tânisi")
    verify(verifier, frozen_one.translation, "accept")
    first = batch.dataset.versions.get()
    services.add_accepted_to_version(actor=curator, batch=batch, version=first)
    freeze_version(actor=curator, version=first)
    from corpus.services import create_next_version

    second = create_next_version(actor=curator, version=first, new_version="1.1")
    verify(verifier, draft_one.translation, "accept")
    services.add_accepted_to_version(actor=curator, batch=batch, version=second)
    assert second.entries.count() == 3
    outcome = services.withdraw_elicited_work(actor=translator)
    assert outcome == {"withdrawn": 1, "entries_removed": 1, "kept_in_frozen_versions": 1}
    assert first.entries.count() == 2 and second.entries.count() == 2


def test_verifier_queue_and_figures(steward, batch):
    translator, verifier = people(steward, 2)
    version, _ = translate(translator, source_of(batch, "dog"), "atim")
    assert list(to_verify(verifier, batch)) == [version.translation]
    assert list(to_verify(translator, batch)) == []
    verify(verifier, version.translation, "accept")
    figures = {row.user_id: row for row in speaker_figures(batch)}
    assert figures[translator.pk].accepted == 1 and figures[verifier.pk].agreement == 1.0


def test_time_is_measured_by_the_server_and_held_items_share_the_wall_time(steward, batch):
    from datetime import timedelta

    from django.utils import timezone

    translator, = people(steward, 1)
    shown = timezone.now() - timedelta(seconds=40)
    first, _ = translate(translator, source_of(batch, "dog"), "atim", shown_at=shown)
    second, _ = translate(translator, source_of(batch, "hello"), "tânisi", shown_at=shown)
    third, _ = translate(translator, source_of(batch, "I see the dog"), "niwâpamâw atim", shown_at=shown)
    total = first.seconds + second.seconds + third.seconds
    assert 40 <= total <= 46, "three items shown together 40 s ago are paid about 40 s, not 120 s"
    untimed, _ = translate(translator, source_of(batch, "The clinic opens at nine"), "kîkisêpâ")
    assert untimed.seconds == 0


def test_translations_and_verifications_claim_their_time_on_the_clock_ratings_use(steward, batch):
    """Review and elicitation pay from one work clock per person (ledger.worktime): time a rating was paid for is
    not paid again to a translation or a verification shown before it, and each moves the clock on."""
    from datetime import timedelta

    from django.utils import timezone

    from ledger.models import WorkClock

    translator, verifier = people(steward, 2)
    now = timezone.now()
    # A rating paid until ten seconds ago, as review's rating post leaves the clock.
    WorkClock.objects.create(speaker=translator, counted_until=now - timedelta(seconds=10))
    WorkClock.objects.create(speaker=verifier, counted_until=now - timedelta(seconds=10))
    version, _ = translate(translator, source_of(batch, "dog"), "atim", shown_at=now - timedelta(seconds=60))
    assert 10 <= version.seconds <= 10 + CLOCK_SLACK_SECONDS + 1, "only the time since the rating's end"
    assert WorkClock.objects.get(speaker=translator).counted_until > now - timedelta(seconds=10)
    verification, _ = verify(verifier, version.translation, "accept", shown_at=now - timedelta(seconds=60))
    assert 10 <= verification.seconds <= 10 + CLOCK_SLACK_SECONDS + 1
    again, _ = translate(translator, source_of(batch, "hello"), "tânisi", shown_at=now - timedelta(seconds=60))
    assert again.seconds <= CLOCK_SLACK_SECONDS + 1, "the first translation used up the time since the rating"


def test_withdraw_everything_covers_elicited_work_and_says_what_stays(client, steward, curator, batch):
    from corpus.services import freeze_version

    translator, verifier = people(steward, 2)
    kept, _ = translate(translator, source_of(batch, "dog"), "atim")
    translate(translator, source_of(batch, "hello"), "tânisi")
    verify(verifier, kept.translation, "accept")
    version = batch.dataset.versions.get()
    services.add_accepted_to_version(actor=curator, batch=batch, version=version)
    freeze_version(actor=curator, version=version)
    client.force_login(translator)
    page = client.get("/review/me/withdraw-all/").content.decode()
    assert "Withdraw all your ratings and translations?" in page
    assert "1 translation stays: a frozen version holds it." in page
    done = client.post("/review/me/withdraw-all/", follow=True).content.decode()
    assert "1 translation withdrawn and 0 entries taken out of draft versions; 1 stay in frozen versions" in done
    assert Translation.objects.get(pk=kept.translation.pk).status == Translation.Status.ACCEPTED
    assert Translation.objects.filter(translator=translator, status="withdrawn").count() == 1
    assert client.get("/review/me/withdraw-all/").status_code == 404


def test_each_translation_records_the_guideline_version_it_was_written_under(steward, curator, batch):
    translator, verifier = people(steward, 2)
    before, _ = translate(translator, source_of(batch, "dog"), "atim")
    services.update_guideline(actor=curator, batch=batch, guideline="Use the SRO spelling with circumflexes.")
    services.update_guideline(actor=curator, batch=batch, guideline="Use the SRO spelling with circumflexes.")
    after, _ = translate(translator, source_of(batch, "hello"), "tânisi")
    assert (before.guideline_version, after.guideline_version) == (1, 2)
    for version in (before, after):
        verify(verifier, version.translation, "accept")
    links = services.add_accepted_to_version(actor=curator, batch=batch, version=batch.dataset.versions.get())
    assert sorted(json.loads(link.entry.document)["elicitation"]["guideline_version"] for link in links) == [1, 2]
