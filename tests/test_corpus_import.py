"""Corpus import: every problem reported together, nothing stored on error, lossless round trip."""

import hashlib
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from corpus.models import Dataset, DatasetVersion, Entry
from corpus.selectors import export_chunks
from corpus.services import (
    FrozenVersionError,
    VersionRefused,
    add_entry,
    create_next_version,
    freeze_version,
    import_corpus,
    update_entry,
)
from corpus.validation import CorpusFileError

from .conftest import corpus_bytes, entry, publish

pytestmark = pytest.mark.django_db


def problems_of(data: bytes, organization) -> list[str]:
    with pytest.raises(CorpusFileError) as excinfo:
        import_corpus(data=data, organization=organization, actor=None)
    return [str(problem) for problem in excinfo.value.problems]


def assert_nothing_stored():
    assert Dataset.objects.count() == 0
    assert DatasetVersion.objects.count() == 0
    assert Entry.objects.count() == 0


def test_valid_file_is_imported_with_every_field(steward):
    outcome = import_corpus(
        data=corpus_bytes([entry(1, difficulty=2, domain="medical", register="formal",
                                                    context="question", provenance="elicited", notes="n")]),
        organization=steward,
        actor=None,
    )
    assert outcome.created and outcome.entry_count == 1
    stored = Entry.objects.get()
    assert (stored.entry_id, stored.segment, stored.difficulty, stored.domain, stored.register, stored.context) == (
        "1", "development", 2, "medical", "formal", "question")
    assert outcome.version.dataset.organization == steward
    assert len(outcome.version.sha256) == 64


def test_every_problem_is_reported_together_and_nothing_is_stored(steward):
    entries = [
        entry(1, difficulty=0),
        entry(2, difficulty=6),
        entry(3, domain="astrology"),
        entry(3),
        {"id": 5, "source": "only a source"},
        entry(6, segment="secretest"),
        {"id": "7", "source": 12, "reference": ["a"]},
        entry(8, register="slang"),
        entry(9, difficulty="3"),
        entry(10, difficulty=True),
    ]
    messages = problems_of(corpus_bytes(entries), steward)
    expected_fragments = [
        "entry #0, id 1, field 'difficulty': expected an integer from 1 to 5, found 0",
        "entry #1, id 2, field 'difficulty': expected an integer from 1 to 5, found 6",
        "entry #2, id 3, field 'domain': unknown value \"astrology\"; expected one of: conv, ecommerce",
        "entry #3, id 3, field 'id': duplicate id: entry #2 already uses it",
        "entry #4, id 5, field 'reference': required field is missing",
        "entry #5, id 6, field 'segment': unknown segment \"secretest\" in 1 entry; map it to one of development, "
        "diagnostic, gold_standard, held_out",
        "entry #6, id 7, field 'source': expected a string, found 12",
        "entry #6, id 7, field 'reference': expected a string, found a list",
        "entry #7, id 8, field 'register': unknown value \"slang\"",
        "entry #8, id 9, field 'difficulty': expected an integer from 1 to 5, found \"3\"",
        "entry #9, id 10, field 'difficulty': expected an integer from 1 to 5, found true",
    ]
    for fragment in expected_fragments:
        assert any(fragment in message for message in messages), (fragment, messages)
    assert len(messages) == len(expected_fragments)
    # The example it gives, copied as it is, keeps the entries secret rather than publishing them.
    assert any(message.endswith("e.g. secretest=held_out)") for message in messages), messages
    assert_nothing_stored()


def test_missing_id_and_wrong_id_type(steward):
    messages = problems_of(corpus_bytes([{"source": "a", "reference": "b"}, {"id": 1.5, "source": "a",
                                                                              "reference": "b"}]), steward)
    assert "entry #0, field 'id': required field is missing" in messages
    assert any("entry #1, id 1.5, field 'id': expected an integer" in m for m in messages)


def test_envelope_problems_name_the_field(steward):
    data = json.dumps({"dataset": {"id": "x y", "version": 1, "language_pair": "EN→CRK", "source_language": "en",
                                   "target_language": "not a code!", "created": "May 2026", "license": "CC-BY-4.0"},
                       "entries": [entry(1)]}).encode()
    messages = problems_of(data, steward)
    assert "field 'dataset.provenance': required field is missing" in messages
    assert any(m.startswith("field 'dataset.id': expected letters, digits") for m in messages)
    assert any(m.startswith("field 'dataset.version': expected a version such as") for m in messages)
    assert any(m.startswith("field 'dataset.target_language': expected a BCP 47") for m in messages)
    assert any(m.startswith("field 'dataset.created': expected an ISO 8601 date") for m in messages)
    assert_nothing_stored()


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (b'{"dataset": {"id": "x",\n  "version": }', "line 2, column 14: invalid JSON: Expecting value"),
        ('{"dataset": "caf\xe9"}'.encode("latin-1"), "not valid UTF-8 (byte 0xe9 at offset 16)"),
        (b"", "the file is empty"),
        (b"[1, 2]", "expected a JSON object with 'dataset' and 'entries', found a list"),
        (b'{"dataset": {}, "entries": {}}', "field 'entries': expected a list of entries, found an object"),
        (b'{"dataset": {}, "entries": []}', "field 'entries': the corpus has no entries"),
    ],
)
def test_unreadable_files_get_located_messages(steward, data, fragment):
    messages = problems_of(data, steward)
    assert any(fragment in message for message in messages), messages
    assert_nothing_stored()


def test_file_over_the_size_limit_is_refused(steward, settings):
    settings.CORPUS_MAX_UPLOAD_BYTES = 100
    messages = problems_of(corpus_bytes([entry(1)]), steward)
    assert len(messages) == 1 and "the limit is 100 bytes" in messages[0]
    assert_nothing_stored()


@pytest.mark.parametrize("hostile", ["\\u0000", "\\ud800"])
def test_text_that_cannot_be_stored_is_refused(steward, hostile):
    raw = corpus_bytes([entry(1)]).replace(b"source public-1", b"source " + hostile.encode())
    messages = problems_of(raw, steward)
    assert any("entry #0, id 1, field 'source'" in m and ("NUL" in m or "surrogate" in m) for m in messages), messages
    assert_nothing_stored()


@pytest.mark.parametrize("extra, located", [
    ({"notes": "a\x00b"}, "field 'notes'"),
    ({"metadata": {"speaker": {"village": "x\x00y"}}}, "field 'metadata.speaker.village'"),
    ({"metadata": {"a\x00b": 1}}, "field 'metadata': a member name contains a NUL"),
])
def test_a_nul_character_is_located_at_its_field(steward, extra, located):
    messages = problems_of(corpus_bytes([{**entry(1), **extra}]), steward)
    assert any(m.startswith(f"entry #0, id 1, {located}") for m in messages), messages
    assert_nothing_stored()


def test_a_nul_character_in_the_envelope_names_its_field(steward):
    document = json.loads(corpus_bytes([entry(1)]))
    document["dataset"]["description"] = "a\x00b"
    messages = problems_of(json.dumps(document).encode(), steward)
    assert any(m.startswith("field 'dataset.description'") and "NUL" in m for m in messages), messages
    assert_nothing_stored()


def test_hostile_strings_are_stored_verbatim(steward):
    hostile = "<script>alert('x')</script> '; DROP TABLE corpus_entry; -- \u202eRTL override"
    import_corpus(data=corpus_bytes([entry(1, notes=hostile)]), organization=steward, actor=None)
    assert Entry.objects.get().notes == hostile


def test_a_curator_is_told_what_characters_an_entry_holds_that_the_page_cannot_show(client, steward, curator,
                                                                                     speaker):
    """A right-to-left override shows "live" for "evil"; a zero-width space cannot be seen at all: the entry keeps
    them, and its page names them to curators, not to other readers."""
    import_corpus(data=corpus_bytes([entry(1, source="\u202elive", reference="ni\u200bwâpamâw")]),
                  organization=steward, actor=None)
    stored = Entry.objects.get()
    assert stored.source == "\u202elive"
    client.force_login(curator)
    page = client.get(f"/datasets/entries/{stored.pk}/").content.decode()
    assert 'id="hidden-characters"' in page
    assert "Source: <code>U+202E RIGHT-TO-LEFT OVERRIDE</code>" in page
    assert "Reference: <code>U+200B ZERO WIDTH SPACE</code>" in page
    publish(stored.version.dataset)
    client.force_login(speaker)
    other = client.get(f"/datasets/entries/{stored.pk}/")
    assert other.status_code == 200 and "live" in other.content.decode()
    assert 'id="hidden-characters"' not in other.content.decode()


def test_same_file_twice_is_already_imported(steward):
    data = corpus_bytes([entry(1), entry(2)])
    first = import_corpus(data=data, organization=steward, actor=None)
    second = import_corpus(data=data, organization=steward, actor=None)
    assert first.created and not second.created
    assert "already imported" in second.message
    assert Entry.objects.count() == 2 and DatasetVersion.objects.count() == 1


def test_same_version_with_other_content_is_refused(steward):
    import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None)
    messages = problems_of(corpus_bytes([entry(1), entry(2)]), steward)
    assert any("field 'dataset.version': version '1.0' of 'test-en-crk' is already stored with different content"
               in m for m in messages)
    assert Entry.objects.count() == 1


def test_new_version_of_same_dataset_is_a_separate_row(steward):
    import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None)
    import_corpus(data=corpus_bytes([entry(1), entry(2)], version="1.1"), organization=steward, actor=None)
    assert DatasetVersion.objects.filter(dataset__identifier="test-en-crk").count() == 2


def test_dataset_of_another_organization_is_refused(steward, other_org):
    import_corpus(data=corpus_bytes([entry(1)]), organization=steward, actor=None)
    messages = problems_of(corpus_bytes([entry(1)], version="2.0"), other_org)
    assert messages == ["field 'dataset.id': dataset id 'test-en-crk' is not available to Other Nation; "
                        "choose another dataset id"]


def test_missing_segment_defaults_to_development_with_a_warning(steward):
    outcome = import_corpus(
        data=corpus_bytes([{"id": 1, "source": "a", "reference": "b"}]),
        organization=steward,
        actor=None,
    )
    assert Entry.objects.get().segment == "development"
    assert outcome.warnings == ["1 entries have no segment and were filed as development."]


def test_upstream_string_ids_and_nested_provenance_are_kept(steward):
    upstream = {"id": "tatoeba_11207167", "source": "a", "reference": "b",
                "provenance": {"type": "corpus", "source": "tatoeba", "license": "CC-BY-2.0-FR"}}
    import_corpus(data=corpus_bytes([upstream]), organization=steward, actor=None)
    stored = Entry.objects.get()
    assert stored.entry_id == "tatoeba_11207167" and stored.provenance == "corpus"
    assert json.loads(stored.document) == upstream


ROUND_TRIP_TEXTS = [
    "niwâpamâw atim",  # Plains Cree, SRO with circumflexes
    "ᓂᐚᐸᒫᐤ ᐊᑎᒼ",  # Cree syllabics
    "e\u0301 combining acute vs \u00e9 precomposed",  # combining characters, not normalised
    "emoji 🦬🪶 and ZWJ 👩🏽‍🏫",
    "עברית and العربية right-to-left",
    "tab\tnewline\nquote\" backslash\\",
]


def test_import_export_import_round_trips_every_byte(steward, governance_user):
    entries = [
        {"id": index, "source": text, "reference": text[::-1], "segment": segment, "difficulty": None,
         "provenance": "elicited", "morphological_analysis": None, "notes": text, "extra_field": {"kept": [1, None]}}
        for index, (text, segment) in enumerate(
            zip(ROUND_TRIP_TEXTS, ["development", "gold_standard"] * 3, strict=False), 1)
    ]
    original = corpus_bytes(entries, provenance=["elicited", {"nested": True}], notes=None)
    outcome = import_corpus(data=original, organization=steward, actor=None)
    exported = b"".join(export_chunks(governance_user, outcome.version))
    assert json.loads(exported) == json.loads(original)
    for text in ROUND_TRIP_TEXTS:
        assert json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8") in exported

    Entry.objects.all().delete()
    DatasetVersion.objects.all().delete()
    Dataset.objects.all().delete()
    again = import_corpus(data=exported, organization=steward, actor=None)
    assert again.version.sha256 == hashlib.sha256(exported).hexdigest()
    re_exported = b"".join(export_chunks(governance_user, again.version))
    assert re_exported == exported


def test_export_command_writes_the_same_format(steward, tmp_path):
    outcome = import_corpus(
        data=corpus_bytes([entry(1, notes="niwâpamâw atim"), entry(2, "gold_standard")]),
        organization=steward,
        actor=None,
    )
    target = tmp_path / "out.json"
    call_command("export_corpus", "test-en-crk", "1.0", "--segments", "development", "-o", str(target))
    exported = json.loads(target.read_bytes())
    assert [e["id"] for e in exported["entries"]] == [1]
    assert exported["entries"][0]["notes"] == "niwâpamâw atim"
    assert exported["dataset"] == json.loads(outcome.version.envelope)


def test_import_command_reports_problems_and_stores_nothing(steward, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_bytes(corpus_bytes([entry(1, difficulty=6), entry(1)]))
    with pytest.raises(CommandError, match="2 problem"):
        call_command("import_corpus", str(bad), "--org", "steward")
    err = capsys.readouterr().err
    assert "entry #0, id 1, field 'difficulty'" in err and "duplicate id" in err
    assert_nothing_stored()
    good = tmp_path / "good.json"
    good.write_bytes(corpus_bytes([entry(1)]))
    call_command("import_corpus", str(good), "--org", "steward")
    call_command("import_corpus", str(good), "--org", "steward")
    out = capsys.readouterr().out
    assert "Imported 1 entries" in out and "already imported" in out


def test_import_command_unknown_org(tmp_path, db):
    with pytest.raises(CommandError, match="No organization with slug 'nope'"):
        call_command("import_corpus", str(tmp_path / "x.json"), "--org", "nope")


def test_frozen_version_cannot_change_and_next_version_can(steward, curator):
    version = import_corpus(data=corpus_bytes([entry(1), entry(2)]), organization=steward, actor=None).version
    freeze_version(version=version, actor=None)
    version.refresh_from_db()
    with pytest.raises(FrozenVersionError, match="frozen"):
        add_entry(actor=curator, version=version, data=entry(3))
    with pytest.raises(FrozenVersionError):
        update_entry(actor=curator, entry=version.entries.get(entry_id="1"), changes={"notes": "changed"})
    successor = create_next_version(version=version, new_version="1.1", actor=None)
    assert successor.entries.count() == 2 and not successor.is_frozen
    added = add_entry(actor=curator, version=successor, data=entry(3))
    successor.refresh_from_db()
    assert added.position == 2 and successor.entry_count == 3
    assert json.loads(successor.envelope)["version"] == "1.1"
    assert version.entries.count() == 2
    with pytest.raises(VersionRefused, match="already exists") as refused:
        create_next_version(version=version, new_version="1.1", actor=None)
    assert refused.value.field == "new_version"


def test_edits_keep_sha256_equal_to_the_exported_file(steward, governance_user):
    actor = governance_user
    version = import_corpus(data=corpus_bytes([entry(1), entry(2)]), organization=steward, actor=None).version
    entry_one = version.entries.get(entry_id="1")
    updated = update_entry(actor=actor, entry=entry_one, changes={"difficulty": 4, "notes": "edited"})
    version.refresh_from_db()
    exported = b"".join(export_chunks(governance_user, version))
    assert hashlib.sha256(exported).hexdigest() == version.sha256
    assert json.loads(updated.document) == {**entry(1), "difficulty": 4, "notes": "edited"}
    with pytest.raises(CorpusFileError, match="duplicate id"):
        add_entry(actor=actor, version=version, data=entry(2))
    with pytest.raises(CorpusFileError, match="difficulty"):
        update_entry(actor=actor, entry=updated, changes={"difficulty": 9})


def test_database_refuses_changes_to_frozen_entries_on_postgresql(steward):
    from django.db import IntegrityError, connection, transaction

    if connection.vendor != "postgresql":
        pytest.skip("the trigger exists on PostgreSQL only")
    version = freeze_version(
        version=import_corpus(
            data=corpus_bytes([entry(1), entry(2)]),
            organization=steward,
            actor=None,
        ).version,
        actor=None,
    )
    for statement in (
        "UPDATE corpus_entry SET source = 'tampered' WHERE version_id = %s",
        "DELETE FROM corpus_entry WHERE version_id = %s",
    ):
        with pytest.raises(IntegrityError, match="frozen dataset version"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(statement, [version.pk])
    with pytest.raises(IntegrityError, match="frozen"), transaction.atomic():
        Entry.objects.create(version=version, position=9, entry_id="9", source="s", reference="r", document="{}")
    assert sorted(version.entries.values_list("source", flat=True)) == ["source public-1", "source public-2"]


@pytest.mark.parametrize(("raw", "fragment"), [
    (b'{"dataset": {"id": "x", "id": "y"}, "entries": []}', "invalid JSON: the key 'id' appears twice in one object"),
    (b'{"dataset": {}, "entries": [{"id": 1, "difficulty": NaN}]}', "invalid JSON: NaN is not a JSON number"),
    (b'{"dataset": {}, "entries": [{"id": ' + b"9" * 5000 + b"}]}", "invalid JSON: Exceeds the limit"),
])
def test_ambiguous_or_unrepresentable_json_is_refused(steward, raw, fragment):
    messages = problems_of(raw, steward)
    assert any(fragment in m for m in messages), messages
    assert_nothing_stored()


@pytest.mark.parametrize("version", ["9\r\nX-Evil: 1", '1"; x="', "1 0", "", "a" * 51])
def test_versions_that_cannot_be_named_safely_are_refused(steward, version):
    messages = problems_of(corpus_bytes([entry(1)], version=version), steward)
    assert any(m.startswith("field 'dataset.version': expected a version") for m in messages), messages


def test_long_integer_ids_are_refused(steward):
    messages = problems_of(corpus_bytes([entry(int("7" * 250))]), steward)
    assert any("field 'id': expected a non-empty identifier of at most 200 characters" in m for m in messages)


def test_a_text_longer_than_ten_thousand_characters_is_refused_at_its_entry_and_field(steward):
    """One source of megabytes would freeze every page listing the version's entries."""
    longest = "ê" * 10_000
    messages = problems_of(corpus_bytes([entry(1, source=longest), entry(2, source=longest + "x"),
                                         entry(3, notes="n" * 10_001), entry(4, document_id="d" * 10_001)]), steward)
    assert messages == ["entry #1, id 2, field 'source': expected at most 10,000 characters, found 10,001",
                        "entry #2, id 3, field 'notes': expected at most 10,000 characters, found 10,001",
                        "entry #3, id 4, field 'document_id': expected at most 200 characters"], messages
    assert_nothing_stored()
    import_corpus(data=corpus_bytes([entry(1, source=longest)]), organization=steward, actor=None)
    assert Entry.objects.get().source == longest


def test_reimporting_an_exported_copy_is_recognised(steward, governance_user):
    original = corpus_bytes([entry(1, notes="niwâpamâw"), entry(2, "gold_standard")])
    version = import_corpus(data=original, organization=steward, actor=None).version
    exported = b"".join(export_chunks(governance_user, version))
    assert exported != original
    again = import_corpus(data=exported, organization=steward, actor=None)
    assert not again.created and again.version == version
