"""Entry search fits the orthographies: diacritics and case optional, syllabics as typed (corpus.search), through
the visibility selector, with `search_text` kept current by every write path."""

import csv
import importlib
import io
import json
from pathlib import Path

import pytest
from django.apps import apps as django_apps
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext

from corpus import bulk
from corpus.models import Entry
from corpus.search import entry_search_text, fold
from corpus.services import add_entry, create_next_version, freeze_version, import_corpus, update_entry

from .conftest import corpus_bytes, entry, publish

pytestmark = pytest.mark.django_db

SRO = "niwâpamâw atim"
SYLLABICS = "ᓂᐚᐸᒫᐤ ᐊᑎᒼ"
SECRET_SRO = "kîsikâw ekwa"


# ---------------------------------------------------------------- the fold, as a pure function

@pytest.mark.parametrize(("typed", "stored"), [
    ("niwapamaw", "niwâpamâw"),
    ("niwâpamâw", "niwapamaw"),
    ("niwapamaw", "niwāpamāw"),
    ("NIWÂPAMÂW", "niwâpamâw"),
    ("Niwāpamāw", "NIWÂPAMÂW"),
    ("ᓂᐚᐸᒫᐤ", "ᓂᐚᐸᒫᐤ"),
    ("ᓂᐋᐧᐸᒫᐤ", "ᓂᐚᐸᒫᐤ"),
    ("ᓂᐋ·ᐸᒫᐤ", "ᓂᐚᐸᒫᐤ"),
    ("ᐙ", "ᐚ"),
    ("ᑿ", "ᑲᐧ"),
    ("tsʼékʼi", "ts'ék'i"),
    ("don’t", "don't"),
    ("ﬁsh", "fish"),
    ("strasse", "Straße"),
])
def test_fold_makes_variants_equal(typed, stored):
    assert fold(typed) == fold(stored)


@pytest.mark.parametrize(("one", "other"), [
    ("ᐊ", "ᐋ"),  # length dots tell syllables apart
    ("ł", "l"),  # no decomposition
    ("कुल", "कल"),  # a Devanagari vowel sign is not a diacritic to drop
])
def test_fold_keeps_what_tells_words_apart(one, other):
    assert fold(one) != fold(other)


def test_search_text_keeps_fields_apart():
    text = entry_search_text("Niwâpamâw", "I see him", "")
    assert text == "niwapamaw\ni see him\n"
    assert fold("niwapamaw i see") not in text


# ---------------------------------------------------------------- searching pages and API

@pytest.fixture
def cree_version(steward):
    entries = [
        entry(1, source="I see him", reference=SRO),
        entry(2, source="I see him", reference=SYLLABICS),
        entry(3, source="plain", reference="niwapamaw"),
        entry(4, "gold_standard", source="It is day", reference=SECRET_SRO),
        entry(5, source="I see the dog", reference="atim", notes="Awâsis wrote this"),
    ]
    version = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None).version
    publish(version.dataset)
    return version


def found(client, version, query) -> set[str]:
    page = client.get(f"/datasets/versions/{version.pk}/entries/", {"q": query})
    assert page.status_code == 200
    ids = {entry.entry_id for entry in page.context["page"].object_list}
    api = client.get(f"/api/v1/dataset-versions/{version.pk}/entries/", {"q": query}).json()
    assert {row["id"] for row in api["results"]} == ids
    return ids


@pytest.mark.parametrize(("query", "ids"), [
    ("niwapamaw", {"1", "3"}),
    ("niwâpamâw", {"1", "3"}),
    ("NIWĀPAMĀW", {"1", "3"}),
    ("wâpam", {"1", "3"}),
    ("ᐚᐸ", {"2"}),
    ("ᐋᐧᐸᒫ", {"2"}),
    ("ᐊᑎᒼ", {"2"}),
    ("awasis", {"5"}),
    ("5", {"5"}),
    ("50%", set()),
])
def test_search_matches_with_and_without_diacritics(client, cree_version, query, ids):
    assert found(client, cree_version, query) == ids


def test_the_search_form_says_diacritics_are_optional(client, cree_version):
    page = client.get(f"/datasets/versions/{cree_version.pk}/entries/", {"q": "niwapamaw"}).content.decode()
    assert 'type="search" name="q" id="id_q" value="niwapamaw" aria-describedby="id_q_helptext"' in page
    assert "Tanisi finds tânisi" in page


def test_no_fixed_text_of_the_interface_quotes_a_word_of_the_demos_secret_entries():
    """The demo's secret entries stay secret on a demo site: no template or translation gives away a word of them
    (the search help once quoted the first word of its gold-standard reference, to every visitor)."""
    root = Path(__file__).resolve().parent.parent
    demo = json.loads((root / "corpus" / "demo" / "demo-en-crk.json").read_text(encoding="utf-8"))
    words = {word for item in demo["entries"] if item["segment"] in ("gold_standard", "held_out")
             for text in (item["source"], item["reference"]) for word in fold(text).split() if len(word) >= 5}
    assert words
    public = {word for item in demo["entries"] if item["segment"] not in ("gold_standard", "held_out")
              for text in (item["source"], item["reference"]) for word in fold(text).split()}
    interface = [*root.glob("templates/**/*.html"), *root.glob("locale/*/LC_MESSAGES/*.po")]
    for path in interface:
        text = fold(path.read_text(encoding="utf-8"))
        assert not {word for word in words - public if word in text}, path


@pytest.mark.parametrize("persona", ["anonymous", "speaker", "outsider", "curator_without_mfa"])
def test_a_hidden_secret_entry_never_matches(client, cree_version, persona, request):
    if persona != "anonymous":
        client.force_login(request.getfixturevalue(persona))
    for query in ("kisikaw", "KÎSIKÂW", "4"):
        assert found(client, cree_version, query) == set()
    assert b"0 entries" in client.get(f"/datasets/versions/{cree_version.pk}/entries/", {"q": "kisikaw"}).content


def test_secret_readers_find_secret_entries_without_diacritics(client, cree_version, governance_user):
    client.force_login(governance_user)
    assert found(client, cree_version, "kisikaw") == {"4"}


def test_search_adds_no_query_to_the_entry_list(client, cree_version, governance_user):
    client.force_login(governance_user)
    url = f"/datasets/versions/{cree_version.pk}/entries/"
    client.get(url)
    with CaptureQueriesContext(connection) as unfiltered:
        client.get(url)
    with CaptureQueriesContext(connection) as searched:
        page = client.get(url, {"q": "niwapamaw"})
    assert page.context["page"].paginator.count == 2
    assert len(searched) <= len(unfiltered)


# ---------------------------------------------------------------- every write path keeps search_text current

def stored(version, entry_id) -> str:
    return version.entries.get(entry_id=entry_id).search_text


def test_import_fills_search_text(cree_version):
    assert stored(cree_version, "1") == entry_search_text("I see him", SRO, "")
    assert stored(cree_version, "5") == "i see the dog\natim\nawasis wrote this"


def test_adding_and_editing_an_entry_keep_search_text_current(client, cree_version, curator):
    added = add_entry(actor=curator, version=cree_version, data={"id": 6, "source": "Hello", "reference": "Tânisi"})
    assert added.search_text == entry_search_text("Hello", "Tânisi", "")
    update_entry(actor=curator, entry=added, changes={"reference": "Tânsi", "notes": "Plains Cree"})
    assert stored(cree_version, "6") == "hello\ntansi\nplains cree"

    client.force_login(curator)
    response = client.post(f"/datasets/entries/{added.pk}/edit/", {
        "entry_id": "6", "source": "Hello there", "reference": "Tânisi kiya", "segment": "development",
        "provenance": "elicited", "notes": "",
    })
    assert response.status_code == 302
    assert stored(cree_version, "6") == "hello there\ntanisi kiya\n"
    assert found(client, cree_version, "tanisi kiya") == {"6"}


def test_bulk_import_keeps_search_text_current(cree_version):
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "source", "reference", "notes"])
    writer.writerow([1, "I see him", "niwâpamâw nâpêw", ""])
    writer.writerow([7, "New one", "Wâpos", "Cottontail"])
    preview = bulk.apply_bulk_import(cree_version, out.getvalue().encode(), "csv")
    assert preview.counts == {"updated": 1, "new": 1}
    assert stored(cree_version, "1") == "i see him\nniwapamaw napew\n"
    assert stored(cree_version, "7") == "new one\nwapos\ncottontail"


def test_a_next_version_keeps_search_text(cree_version):
    freeze_version(actor=None, version=cree_version)
    successor = create_next_version(actor=None, version=cree_version, new_version="1.1")
    assert stored(successor, "1") == stored(cree_version, "1") == entry_search_text("I see him", SRO, "")


def test_saving_an_entry_directly_keeps_search_text_current(cree_version):
    created = Entry.objects.create(version=cree_version, position=99, entry_id="99", source="Ê-", reference="x",
                                   document="{}")
    assert stored(cree_version, "99") == "e-\nx\n"
    created.source = "Ôma"
    created.save(update_fields=["source"])
    assert stored(cree_version, "99") == "oma\nx\n"


# ---------------------------------------------------------------- the migration fills existing rows

def test_the_migration_fills_existing_rows_in_batches_even_of_frozen_versions(cree_version, monkeypatch):
    migration = importlib.import_module("corpus.migrations.0010_entry_search_text")
    monkeypatch.setattr(migration, "BATCH_SIZE", 2)
    cree_version.entries.update(search_text="")
    freeze_version(actor=None, version=cree_version)
    editor = connection.schema_editor(atomic=False)
    if connection.vendor == "postgresql":
        connection.cursor().execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE waits for no deferred check
        with editor:
            migration.fill_search_text(django_apps, editor)
    else:  # SQLite's editor cannot be entered within a test's transaction; only its connection is used there
        migration.fill_search_text(django_apps, editor)
    assert stored(cree_version, "1") == entry_search_text("I see him", SRO, "")
    assert not cree_version.entries.filter(search_text="").exists()
    if connection.vendor == "postgresql":  # the frozen-version triggers are back
        with pytest.raises(IntegrityError, match="frozen"), transaction.atomic():
            cree_version.entries.update(search_text="")
