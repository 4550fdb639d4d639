"""The harness's other corpus shapes import without hand-editing (page, API, command), whatever they lack is asked
for by name, everything is kept verbatim and exported back in the shape it came in. Fixtures are written here by
hand after the shapes the harness's corpus_build (schema.Corpus, the EdTeKLA builder), its fetch-from-source
builders and corpus_loader read."""

import hashlib
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from corpus.models import Dataset, DatasetVersion, Entry, FileLayout
from corpus.selectors import export_chunks
from corpus.services import create_next_version, import_corpus, update_entry
from corpus.validation import CorpusFileError, read_corpus

from .conftest import proven

pytestmark = pytest.mark.django_db

# schema.Corpus.to_dict: a flat envelope (corpus_id, language_pair object, whole-file segment, a provenance
# object holding the licence), entries with provenance and metadata objects, `entries` before `provenance`.
FLAT = {
    "corpus_id": "tatoeba-eng-crk-dev",
    "version": "3",
    "language_pair": {"source": "eng", "target": "crk"},
    "segment": "development",
    "created": "2026-04-30T12:00:00Z",
    "entry_count": 2,
    "domains": ["conv"],
    "entries": [
        {"id": "tatoeba_11207167", "source": "Hello.", "reference": "tânisi.", "domain": "conv", "difficulty": 1,
         "register": "conversational", "provenance": {"source_name": "tatoeba", "source_id": "11207167",
                                                      "license": "CC-BY-2.0", "url": "https://tatoeba.org"},
         "metadata": {"length": 1}},
        {"id": "tatoeba_2", "source": "I see the dog.", "reference": "niwâpamâw atim.", "domain": "conv",
         "difficulty": 2, "register": "conversational", "provenance": {"source_name": "tatoeba"},
         "metadata": {}},
    ],
    "provenance": {"builder": "champollion-corpora-builder", "license": "CC-BY-2.0", "seed": 7},
}

# The EdTeKLA builder: {"dataset": {name, version, description, source_attribution, access}, "entries",
# "language_pair"} with ids from 0, null difficulty, an empty provenance string and a nested metadata object.
BUILDER = {
    "dataset": {
        "name": "edtekla-dev-v1",
        "version": "1.0",
        "description": "EDTeKLA Plains Cree textbook corpus (2 dev entries)",
        "source_attribution": "EDTeKLA Project",
        "access": "private",
    },
    "entries": [
        {"id": 0, "source": "I am going home.", "reference": "nikîwân.", "difficulty": 2, "provenance": "textbook",
         "metadata": {"lemma": "kîwêw", "fst_tags": "V+AI+Ind+1Sg", "notes": "", "source_line": 12}},
        {"id": 1, "source": "dog", "reference": "atim", "difficulty": None, "provenance": "",
         "metadata": {"lemma": "atim", "fst_tags": "N+A+Sg", "notes": "ᐊᑎᒼ", "source_line": None}},
    ],
    "language_pair": {"source": "eng", "target": "crk", "source_name": "English", "target_name": "Plains Cree"},
}

# The fetch-from-source builders (FLORES+, GlobalVoices, TICO-19…): source_lang/target_lang, `target`.
FETCHED = {
    "source_lang": "eng",
    "target_lang": "crk",
    "entry_count": 2,
    "domain": "news",
    "source_dataset": "flores-devtest",
    "entries": [{"source": "The river is high.", "target": "misihkamiw sîpiy.", "id": "1"},
                {"source": "Snow fell.", "target": "mispon.", "id": "2"}],
}

# corpus_loader's flat list: entries without ids (the harness numbers them from 0).
BARE_LIST = [{"source": "hello", "reference": "tânisi"}, {"source": "dog", "target": "atim", "segment": "diagnostic"}]

SUPPLIED_FOR_BUILDER = {"created": "2026-05-01", "license": "CC-BY-NC-SA-4.0"}
SUPPLIED_FOR_FETCHED = {"dataset_id": "flores-eng-crk", "dataset_version": "1.0", "created": "2026-05-01",
                        "license": "CC-BY-SA-4.0"}
SUPPLIED_FOR_LIST = {"dataset_id": "hand-list", "dataset_version": "0.1", "source_language": "en",
                     "target_language": "crk", "created": "2026-05-01", "license": "CC0-1.0"}


def as_bytes(document) -> bytes:
    return json.dumps(document, ensure_ascii=False, indent=2).encode("utf-8")


@pytest.fixture
def reader(governance_user):
    return governance_user


def test_flat_envelope_is_imported_and_kept(steward, reader):
    data = as_bytes(FLAT)
    outcome = import_corpus(data=data, organization=steward, actor=None)
    version = outcome.version
    assert outcome.created and outcome.warnings == []  # the file's segment names every entry's
    assert (version.dataset.identifier, version.version, version.language_pair, version.source_language,
            version.target_language, version.license, str(version.created)) == (
        "tatoeba-eng-crk-dev", "3", "eng→crk", "eng", "crk", "CC-BY-2.0", "2026-04-30")
    assert version.layout == FileLayout.OBJECT and version.sha256 == hashlib.sha256(data).hexdigest()
    assert version.provenance == FLAT["provenance"]
    assert json.loads(version.envelope) == {key: value for key, value in FLAT.items() if key != "entries"}
    stored = list(version.entries.order_by("position"))
    assert [json.loads(entry.document) for entry in stored] == FLAT["entries"]
    assert stored[0].entry_id == "tatoeba_11207167" and stored[0].provenance == "tatoeba"
    back = json.loads(b"".join(export_chunks(proven(reader), version)))
    assert back == FLAT  # every member and entry, as given
    assert list(back)[-1] == "entries"  # entries come last in the export's canonical layout


def test_whole_file_segment_files_unsegmented_entries_and_is_checked(steward):
    secret = {**FLAT, "corpus_id": "held-out-set", "segment": "held_out"}
    version = import_corpus(data=as_bytes(secret), organization=steward, actor=None).version
    assert set(version.entries.values_list("segment", flat=True)) == {"held_out"}
    assert version.public_hash_is_keyed  # secret entries: the public is shown a keyed hash
    with pytest.raises(CorpusFileError) as refused:
        import_corpus(data=as_bytes({**FLAT, "corpus_id": "x", "segment": "devtest"}), organization=steward,
                      actor=None)
    assert [(problem.field, problem.parameter, problem.value) for problem in refused.value.problems] == [
        ("segment", "segment_map", "devtest")]
    assert "map it to one of development, diagnostic, gold_standard, held_out" in refused.value.problems[0].message
    assert not Dataset.objects.filter(identifier="x").exists()


def test_builder_file_asks_for_what_it_lacks_then_imports(steward, reader):
    data = as_bytes(BUILDER)
    with pytest.raises(CorpusFileError) as refused:
        import_corpus(data=data, organization=steward, actor=None)
    missing = {problem.field: problem.parameter for problem in refused.value.problems}
    assert missing == {"dataset.created": "created", "dataset.license": "license"}
    assert "give it as created" in str(refused.value.problems[0])
    assert "--created" in str(refused.value.problems[0])
    assert DatasetVersion.objects.count() == 0 and Entry.objects.count() == 0

    version = import_corpus(data=data, organization=steward, actor=None, supplied=SUPPLIED_FOR_BUILDER).version
    assert (version.dataset.identifier, version.version, version.source_language, version.target_language,
            version.language_pair, version.license) == (
        "edtekla-dev-v1", "1.0", "eng", "crk", "eng→crk", "CC-BY-NC-SA-4.0")
    assert version.sha256 == hashlib.sha256(data).hexdigest()
    assert list(version.entries.order_by("position").values_list("entry_id", flat=True)) == ["0", "1"]
    assert json.loads(version.entries.get(entry_id="0").document)["metadata"]["source_line"] == 12
    back = b"".join(export_chunks(proven(reader), version))
    assert json.loads(back) == {"dataset": BUILDER["dataset"], "language_pair": BUILDER["language_pair"],
                                "entries": BUILDER["entries"]}
    # The exported copy is the same content: importing it again changes nothing.
    again = import_corpus(data=back, organization=steward, actor=None, supplied=SUPPLIED_FOR_BUILDER)
    assert not again.created and again.version == version


def test_target_instead_of_reference(steward, reader):
    version = import_corpus(data=as_bytes(FETCHED), organization=steward, actor=None,
                            supplied=SUPPLIED_FOR_FETCHED).version
    assert list(version.entries.order_by("position").values_list("reference", flat=True)) == [
        "misihkamiw sîpiy.", "mispon."]
    assert (version.source_language, version.target_language, version.language_pair) == ("eng", "crk", "eng→crk")
    assert json.loads(b"".join(export_chunks(proven(reader), version)))["entries"] == FETCHED["entries"]
    # An edit of the reference keeps it where the entry had it.
    entry = version.entries.get(entry_id="2")
    updated = update_entry(actor=reader, entry=entry, changes={"reference": "mispon!", "notes": None})
    assert json.loads(updated.document) == {"source": "Snow fell.", "target": "mispon!", "id": "2"}
    assert updated.reference == "mispon!"


def test_bare_list_is_numbered_like_the_harness_and_exported_as_a_list(steward, reader):
    data = as_bytes(BARE_LIST)
    with pytest.raises(CorpusFileError) as refused:
        import_corpus(data=data, organization=steward, actor=None)
    # The pair label follows from the two languages: only they are asked for.
    assert [problem.parameter for problem in refused.value.problems] == [
        "dataset_id", "dataset_version", "source_language", "target_language", "created", "license"]
    outcome = import_corpus(data=data, organization=steward, actor=None, supplied=SUPPLIED_FOR_LIST)
    version = outcome.version
    assert version.layout == FileLayout.LIST and version.language_pair == "en→crk"
    assert list(version.entries.order_by("position").values_list("entry_id", "segment", "reference")) == [
        ("0", "development", "tânisi"), ("1", "diagnostic", "atim")]
    back = b"".join(export_chunks(proven(reader), version))
    assert json.loads(back) == BARE_LIST
    assert import_corpus(data=back, organization=steward, actor=None, supplied=SUPPLIED_FOR_LIST).created is False
    successor = create_next_version(actor=None, version=version, new_version="0.2")
    assert json.loads(b"".join(export_chunks(proven(reader), successor))) == BARE_LIST


def test_a_list_of_non_entries_is_still_refused_as_before(steward):
    with pytest.raises(CorpusFileError) as refused:
        read_corpus(b"[1, 2]", 1000)
    assert "expected a JSON object with 'dataset' and 'entries', found a list" in str(refused.value.problems[0])


def test_missing_ids_stay_required_in_the_corpus_format_and_positions_must_not_collide(steward):
    with pytest.raises(CorpusFileError) as refused:
        read_corpus(as_bytes([{"source": "a", "reference": "b"}, {"id": 0, "source": "c", "reference": "d"}]),
                    10_000, SUPPLIED_FOR_LIST)
    assert [str(problem) for problem in refused.value.problems] == [
        "entry #1, id 0, field 'id': duplicate id: entry #0 already uses it"]


def test_supplied_value_must_agree_with_the_file(steward):
    with pytest.raises(CorpusFileError) as refused:
        import_corpus(data=as_bytes(FLAT), organization=steward, actor=None, supplied={"dataset_version": "4"})
    [problem] = refused.value.problems
    assert problem.field == "version" and problem.parameter == "dataset_version"
    assert "the file gives \"3\" but dataset_version gives \"4\"" in problem.message
    assert DatasetVersion.objects.count() == 0


def test_bad_supplied_values_are_named(steward):
    with pytest.raises(CorpusFileError) as refused:
        import_corpus(data=as_bytes(BARE_LIST), organization=steward, actor=None,
                      supplied={**SUPPLIED_FOR_LIST, "created": "May 2026", "dataset_id": "no spaces please"})
    fields = {problem.field for problem in refused.value.problems}
    assert fields == {"created", "dataset_id"}
    assert Entry.objects.count() == 0


def test_bad_entries_of_an_upstream_shape_name_the_entry_and_store_nothing(steward):
    bad = {**FLAT, "entries": [FLAT["entries"][0], {"id": "x", "source": "s", "target": ""}]}
    with pytest.raises(CorpusFileError) as refused:
        import_corpus(data=as_bytes(bad), organization=steward, actor=None)
    assert [str(problem) for problem in refused.value.problems] == [
        "entry #1, id x, field 'target': expected non-empty text, found an empty string"]
    assert Entry.objects.count() == 0


def test_entries_are_streamed_for_object_shapes_and_a_list_is_parsed_whole(monkeypatch):
    from corpus import validation

    parsed = []
    original = validation.decode_corpus_bytes
    monkeypatch.setattr(validation, "decode_corpus_bytes", lambda *args: parsed.append(1) or original(*args))
    for document, supplied in ((FLAT, None), (BUILDER, SUPPLIED_FOR_BUILDER), (FETCHED, SUPPLIED_FOR_FETCHED)):
        corpus = read_corpus(as_bytes(document), 100_000, supplied)
        assert isinstance(corpus.entries, validation.StreamedEntries)
    assert not parsed
    read_corpus(as_bytes(BARE_LIST), 100_000, SUPPLIED_FOR_LIST)
    assert parsed


def test_import_page_shows_and_requires_the_missing_fields(client, curator, steward):
    client.force_login(curator)
    page = client.get("/datasets/import/")
    assert 'name="dataset_id"' in page.content.decode() and 'name="license"' in page.content.decode()
    refused = client.post("/datasets/import/", {"organization": "steward",
                                                "file": SimpleUploadedFile("b.json", as_bytes(BUILDER))})
    assert refused.status_code == 400
    form = refused.context["form"]
    assert form.missing == ["created", "license"]
    assert form.fields["created"].required
    assert form.errors["created"] == ["The file does not give it: fill it in here."]
    assert DatasetVersion.objects.count() == 0
    html = refused.content.decode()
    assert "Fields this file lacks" in html and 'name="created"' in html
    accepted = client.post("/datasets/import/", {"organization": "steward", **SUPPLIED_FOR_BUILDER,
                                                 "file": SimpleUploadedFile("b.json", as_bytes(BUILDER))})
    assert accepted.status_code == 302
    assert DatasetVersion.objects.get().license == "CC-BY-NC-SA-4.0"


def test_import_page_without_the_languages_asks_for_them_not_for_the_pair_label(client, curator, steward):
    """The pair label is optional (the two languages make it): a file without languages leaves it optional, so the
    corrected upload can be sent without one."""
    client.force_login(curator)
    upload = {"organization": "steward", "file": SimpleUploadedFile("l.json", as_bytes(BARE_LIST))}
    refused = client.post("/datasets/import/", upload)
    assert refused.status_code == 400
    form = refused.context["form"]
    assert "language_pair" not in form.missing and {"source_language", "target_language"} <= set(form.missing)
    assert not form.fields["language_pair"].required
    assert not re.search(r'<input[^>]*name="language_pair"[^>]*required', refused.content.decode())
    given = {name: value for name, value in SUPPLIED_FOR_LIST.items() if name != "language_pair"}
    accepted = client.post("/datasets/import/", {"organization": "steward", **given,
                                                 "file": SimpleUploadedFile("l.json", as_bytes(BARE_LIST))})
    assert accepted.status_code == 302
    assert DatasetVersion.objects.get().language_pair == f"{given['source_language']}→{given['target_language']}"


def test_a_value_given_on_the_page_that_the_file_contradicts_shows_the_contradiction(client, curator, steward):
    client.force_login(curator)
    refused = client.post("/datasets/import/", {"organization": "steward", "dataset_version": "4",
                                                "file": SimpleUploadedFile("f.json", as_bytes(FLAT))})
    assert refused.status_code == 400
    assert 'the file gives "3" but dataset_version gives "4"' in refused.context["form"].errors["dataset_version"][0]


def test_api_takes_missing_fields_as_query_or_form_parameters(client, curator, steward):
    client.force_login(curator)
    refused = client.post("/api/v1/corpus-imports/?org=steward", as_bytes(FETCHED), content_type="application/json")
    assert refused.status_code == 400
    assert {problem["parameter"] for problem in refused.json()["problems"]} == {
        "dataset_id", "dataset_version", "created", "license"}
    query = "&".join(f"{name}={value}" for name, value in SUPPLIED_FOR_FETCHED.items())
    created = client.post(f"/api/v1/corpus-imports/?org=steward&{query}", as_bytes(FETCHED),
                          content_type="application/json")
    assert created.status_code == 201, created.content
    assert created.json()["version"]["dataset"] == "flores-eng-crk"
    upload = SimpleUploadedFile("list.json", as_bytes(BARE_LIST), content_type="application/json")
    multipart = client.post("/api/v1/corpus-imports/?org=steward", {"file": upload, **SUPPLIED_FOR_LIST})
    assert multipart.status_code == 201, multipart.content
    assert multipart.json()["version"]["entry_count"] == 2


def test_command_takes_missing_fields_as_options(steward, tmp_path, capsys):
    path = tmp_path / "flores.json"
    path.write_bytes(as_bytes(FETCHED))
    with pytest.raises(CommandError, match="4 problem"):
        call_command("import_corpus", str(path), "--org", "steward")
    assert "--dataset-id" in capsys.readouterr().err
    call_command("import_corpus", str(path), "--org", "steward", "--dataset-id", "flores-eng-crk",
                 "--dataset-version", "1.0", "--created", "2026-05-01", "--license", "CC-BY-SA-4.0")
    assert "Imported 2 entries" in capsys.readouterr().out
    out = tmp_path / "out.json"
    call_command("export_corpus", "flores-eng-crk", "1.0", "-o", str(out))
    assert json.loads(out.read_bytes()) == {**{k: v for k, v in FETCHED.items() if k != "entries"},
                                            "entries": FETCHED["entries"]}
