"""CSV/XLSX bulk import (dry run → confirm, all or nothing) and the tabular CSV/XLSX/JSON export."""

import csv
import datetime
import io
import json

import openpyxl
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from common.spreadsheets import neutralise_formula, restore_formula
from corpus import bulk
from corpus.models import Entry, StagedImport
from corpus.resources import COLUMNS
from corpus.services import add_entry, content_sha256, freeze_version, import_corpus
from corpus.validation import CorpusFileError

from .conftest import SECRET_MARK, corpus_bytes, entry

SRO = "niwâpamâw atim"
SYLLABICS = "ᓂᐚᐸᒫᐤ ᐊᑎᒼ"
FORMULA = "=cmd|' /C calc'!A0"


def csv_bytes(rows, header=("id", "source", "reference")) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def xlsx_bytes(rows, header=("id", "source", "reference")) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(list(header))
    for row in rows:
        sheet.append(list(row))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def upload(client, version, data: bytes, file_format="csv", name=None):
    name = name or f"entries.{file_format}"
    return client.post(
        reverse("corpus:bulk_import", args=[version.pk]),
        {"file": SimpleUploadedFile(name, data), "format": file_format},
    )


def confirm(client, version, staged_pk):
    return client.post(reverse("corpus:bulk_import_confirm", args=[version.pk, staged_pk]))


def export(client, version, file_format):
    return client.get(reverse("corpus:bulk_export", args=[version.pk, file_format]))


def snapshot(version):
    """Everything an import could change: the version's fingerprint and every entry row."""
    version.refresh_from_db()
    rows = list(version.entries.order_by("position").values_list("entry_id", "position", "document"))
    return version.sha256, version.entry_count, rows


def csv_rows(content: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(content.decode("utf-8-sig"))))


def xlsx_cells(content: bytes):
    sheet = openpyxl.load_workbook(io.BytesIO(content)).active
    return [[cell for cell in row] for row in sheet.iter_rows()]


# ---------------------------------------------------------------- dry run


def test_preview_lists_every_invalid_row_with_row_number_id_field_and_changes_nothing(client, curator, public_version):
    before = snapshot(public_version)
    data = csv_bytes(
        [
            [10, "a new source", "a new reference", "2", "development"],
            [11, "source", "", "9", "bogus"],
            [1, "source public-1 edited", "reference public-1", "1", "development"],
            [10, "again", "again", "", ""],
            ["", "no id here", "reference", "", ""],
        ],
        header=("id", "source", "reference", "difficulty", "segment"),
    )
    client.force_login(curator)
    response = upload(client, public_version, data)

    assert response.status_code == 400
    preview = response.context["preview"]
    found = {(p.row, p.entry_id, p.field) for p in preview.problems}
    assert found == {
        (3, "11", "reference"),
        (3, "11", "difficulty"),
        (3, "11", "segment"),
        (5, "10", "id"),
        (6, None, "id"),
    }
    messages = {(p.row, p.field): p.message for p in preview.problems}
    assert messages[(3, "difficulty")] == 'expected an integer from 1 to 5, found 9'
    assert "expected one of: development, diagnostic" in messages[(3, "segment")]
    assert messages[(5, "id")] == "duplicate id: row 2 already uses it"
    assert [(r.row, r.action) for r in preview.rows] == [
        (2, "new"), (3, "invalid"), (4, "updated"), (5, "invalid"), (6, "invalid"),
    ]
    assert preview.rows[2].changed == ("source",)
    page = response.content.decode()
    assert "nothing will be imported" in page and "Confirm import" not in page
    assert "duplicate id: row 2 already uses it" in page
    assert preview.staged is None and not StagedImport.objects.exists()
    assert snapshot(public_version) == before


def test_valid_dry_run_stages_the_file_and_still_changes_nothing(client, governance_user, public_version):
    before = snapshot(public_version)
    client.force_login(governance_user)
    response = upload(client, public_version, csv_bytes([[20, "source", "reference"]]))

    assert response.status_code == 200
    staged = StagedImport.objects.get()
    assert (staged.user, staged.version, staged.format) == (governance_user, public_version, "csv")
    assert response.context["preview"].staged == staged
    assert reverse("corpus:bulk_import_confirm", args=[public_version.pk, staged.pk]) in response.content.decode()
    assert snapshot(public_version) == before


# ---------------------------------------------------------------- confirm


def test_confirm_applies_every_row_and_refreshes_the_version(client, curator, public_version):
    before_sha = snapshot(public_version)[0]
    data = csv_bytes(
        [
            [1, "source public-1 edited", "reference public-1", "", "formal"],  # update: source, register
            [2, "source public-2", "reference public-2", "2", "formal"],  # exactly as stored: skipped
            [30, "thirty", "thirty ref", "5", ""],  # new, no provenance
            ["ab-7", "text id", "text id ref", "", ""],  # new, id stays text
        ],
        header=("id", "source", "reference", "difficulty", "register"),
    )
    client.force_login(curator)
    preview = upload(client, public_version, data).context["preview"]
    assert preview.summary == "2 new, 1 updated, 1 unchanged"

    response = confirm(client, public_version, preview.staged.pk)

    assert response.status_code == 302 and response.url == reverse("corpus:version", args=[public_version.pk])
    sha, count, rows = snapshot(public_version)
    assert count == 6 and sha == content_sha256(public_version) and sha != before_sha
    first = json.loads(public_version.entries.get(entry_id="1").document)
    assert first["source"] == "source public-1 edited" and first["register"] == "formal"
    assert "difficulty" not in first  # emptied cell: the field is removed
    assert first["domain"] == "conv" and first["provenance"] == "elicited"  # columns not in the file: kept
    new = public_version.entries.get(entry_id="30")
    assert new.position == 4 and new.difficulty == 5 and new.provenance == "elicited"
    assert json.loads(new.document) == {"id": 30, "source": "thirty", "reference": "thirty ref", "difficulty": 5,
                                        "provenance": "elicited"}
    assert json.loads(public_version.entries.get(entry_id="ab-7").document)["id"] == "ab-7"
    assert public_version.entries.get(entry_id="ab-7").position == 5
    assert not StagedImport.objects.exists()
    follow = client.get(response.url)
    assert "2 new, 1 updated, 1 unchanged" in follow.content.decode()


def test_one_bad_row_means_nothing_is_stored(public_version):
    before = snapshot(public_version)
    data = csv_bytes([[40, "ok", "ok"], [1, "changed", "changed"], [41, "ok", ""], [42, "ok", "ok"]])

    with pytest.raises(bulk.BulkImportRejected) as caught:
        bulk.apply_bulk_import(public_version, data, "csv")

    assert [(p.row, p.entry_id, p.field) for p in caught.value.preview.problems] == [(4, "41", "reference")]
    assert snapshot(public_version) == before
    assert not Entry.objects.filter(entry_id__in=["40", "42"]).exists()


def test_confirm_validates_the_staged_bytes_again(client, curator, public_version):
    """Whatever is stored as staged, confirm re-reads and re-validates it: nothing is trusted."""
    before = snapshot(public_version)
    staged = StagedImport.objects.create(
        user=curator, version=public_version, format="csv",
        content=csv_bytes([[50, "fine", "fine"], [51, "bad difficulty", "x", "7"]],
                          header=("id", "source", "reference", "difficulty")),
    )
    client.force_login(curator)
    response = confirm(client, public_version, staged.pk)

    assert response.status_code == 400
    assert [(p.row, p.field) for p in response.context["preview"].problems] == [(3, "difficulty")]
    assert snapshot(public_version) == before


def test_only_the_uploader_can_confirm_a_staged_file(client, curator, governance_user, public_version):
    before = snapshot(public_version)
    client.force_login(curator)
    staged = upload(client, public_version, csv_bytes([[60, "s", "r"]])).context["preview"].staged
    client.force_login(governance_user)

    response = confirm(client, public_version, staged.pk)

    assert response.status_code == 302 and response.url == reverse("corpus:bulk_import", args=[public_version.pk])
    assert snapshot(public_version) == before and StagedImport.objects.filter(pk=staged.pk).exists()


def test_xlsx_import(client, curator, public_version):
    data = xlsx_bytes(
        [
            [70, SRO, SYLLABICS, 3.0, "gold_standard", None],  # Excel numbers are floats
            [71, 1984, "a number in a text column", None, None, "'=a quoted formula"],
            [None, None, None, None, None, None],  # blank row: ignored
            ["72", "text", "ref", "4", "diagnostic", None],
        ],
        header=("id", "source", "reference", "difficulty", "segment", "notes"),
    )
    client.force_login(curator)
    response = upload(client, public_version, data, "xlsx")
    assert response.status_code == 200, response.context["preview"].problems
    preview = response.context["preview"]
    assert (preview.summary, preview.blank_rows) == ("3 new, 0 updated, 0 unchanged", 1)
    assert [r.row for r in preview.rows] == [2, 3, 5]

    assert confirm(client, public_version, preview.staged.pk).status_code == 302

    seventy = public_version.entries.get(entry_id="70")
    assert (seventy.source, seventy.reference, seventy.difficulty, seventy.segment) == (SRO, SYLLABICS, 3,
                                                                                        "gold_standard")
    assert json.loads(seventy.document)["id"] == 70
    seventy_one = public_version.entries.get(entry_id="71")
    assert seventy_one.source == "1984" and seventy_one.notes == "=a quoted formula"  # the export escape undone
    assert public_version.entries.get(entry_id="72").difficulty == 4


def test_xlsx_cells_of_the_wrong_type_are_reported_not_coerced(public_version):
    data = xlsx_bytes([[1, datetime.datetime(2026, 5, 1), "reference public-1", True]],
                      header=("id", "source", "reference", "difficulty"))
    preview = bulk.preview_bulk_import(public_version, data, "xlsx")
    assert {(p.row, p.field): p.message for p in preview.problems} == {
        (2, "source"): "expected a string, found datetime",
        (2, "difficulty"): "expected an integer from 1 to 5, found true",
    }


def test_xlsx_row_numbers_match_the_sheet(curator, public_version):
    data = xlsx_bytes([[80, "s", "r"], [None, None, None], [None, None, None], [81, "s", None]])
    preview = bulk.preview_bulk_import(public_version, data, "xlsx")
    assert [(p.row, p.entry_id, p.field) for p in preview.problems] == [(5, "81", "reference")]


# ---------------------------------------------------------------- frozen versions


def test_frozen_version_is_refused_at_confirm_and_nothing_changes(client, curator, public_version):
    client.force_login(curator)
    staged = upload(client, public_version, csv_bytes([[90, "s", "r"]])).context["preview"].staged
    freeze_version(version=public_version, actor=None)
    before = snapshot(public_version)

    response = confirm(client, public_version, staged.pk)

    assert response.status_code == 409
    assert "is frozen" in response.context["refusal"] and "Nothing was imported" in response.content.decode()
    assert snapshot(public_version) == before
    with pytest.raises(bulk.FrozenVersionError):
        bulk.apply_bulk_import(public_version, csv_bytes([[91, "s", "r"]]), "csv")
    assert snapshot(public_version) == before


def test_frozen_version_page_offers_no_upload(client, curator, public_version):
    freeze_version(version=public_version, actor=None)
    client.force_login(curator)
    page = client.get(reverse("corpus:bulk_import", args=[public_version.pk]))
    assert page.status_code == 200 and "is frozen" in page.content.decode()
    assert 'type="file"' not in page.content.decode()
    response = upload(client, public_version, csv_bytes([[92, "s", "r"]]))
    assert response.status_code == 409 and not StagedImport.objects.exists()


# ---------------------------------------------------------------- rights


def test_outsider_is_forbidden_and_anonymous_is_sent_to_login(client, outsider, curator, public_version):
    before = snapshot(public_version)
    url = reverse("corpus:bulk_import", args=[public_version.pk])
    staged = StagedImport.objects.create(user=curator, version=public_version, format="csv",
                                         content=csv_bytes([[93, "s", "r"]]))
    confirm_url = reverse("corpus:bulk_import_confirm", args=[public_version.pk, staged.pk])

    for response in (client.get(url), upload(client, public_version, csv_bytes([[94, "s", "r"]])),
                     client.post(confirm_url)):
        assert response.status_code == 302 and response.url.startswith(reverse("account_login"))

    client.force_login(outsider)
    assert client.get(url).status_code == 403
    assert upload(client, public_version, csv_bytes([[94, "s", "r"]])).status_code == 403
    assert client.post(confirm_url).status_code == 403
    assert snapshot(public_version) == before and StagedImport.objects.count() == 1


def test_private_dataset_is_not_even_found_by_outsiders(client, outsider, steward):
    version = import_corpus(data=corpus_bytes([entry(1)], id="private-set"), organization=steward, actor=None).version
    client.force_login(outsider)
    assert client.get(reverse("corpus:bulk_import", args=[version.pk])).status_code == 404
    assert export(client, version, "csv").status_code == 404


def test_version_page_links_to_import_for_curators_only_and_to_exports_for_all(client, curator, public_version):
    import_url = reverse("corpus:bulk_import", args=[public_version.pk])
    page = client.get(reverse("corpus:version", args=[public_version.pk])).content.decode()
    assert import_url not in page
    for file_format in ("csv", "xlsx", "json"):
        assert reverse("corpus:bulk_export", args=[public_version.pk, file_format]) in page
    client.force_login(curator)
    assert import_url in client.get(reverse("corpus:version", args=[public_version.pk])).content.decode()


# ---------------------------------------------------------------- file problems


@pytest.mark.parametrize(
    ("data", "file_format", "expected"),
    [
        (b"", "csv", "the file is empty"),
        (b"   \n", "csv", "the file is empty"),
        ("id,source,reference\n1,caf\xe9,x\n".encode("latin-1"), "csv", "not valid UTF-8"),
        (b"id,source,notes\n99,a,b\n", "csv", "reference"),  # a new entry needs its reference
        (b"identifier,text\n1,a\n", "csv", "missing required column: id"),
        (b"id,source,reference,source\n1,a,b,c\n", "csv", "named more than once: source"),
        (b"id,source,reference\n", "csv", "no entries below it"),
        (b"id,source,reference\n1,a,b\n", "xlsx", "not an XLSX workbook"),
        (b"PK\x03\x04 this is not really a zip", "xlsx", "cannot be read"),
        (b"\x00\x01binary", "xlsx", "not an XLSX workbook"),
    ],
)
def test_unreadable_files_get_a_clear_message(client, curator, public_version, data, file_format, expected):
    before = snapshot(public_version)
    client.force_login(curator)
    response = upload(client, public_version, data, file_format)
    assert response.status_code == 400
    shown = [str(p) for p in (response.context["file_problems"] or response.context["preview"].problems)]
    assert any(expected in message for message in shown), shown
    assert snapshot(public_version) == before and not StagedImport.objects.exists()


def test_xlsx_uploaded_as_csv_is_named(curator, public_version):
    with pytest.raises(CorpusFileError) as caught:
        bulk.preview_bulk_import(public_version, xlsx_bytes([[1, "a", "b"]]), "csv")
    assert "choose the XLSX format" in str(caught.value.problems[0])


def test_upload_size_is_limited(client, curator, public_version, settings):
    settings.CORPUS_MAX_UPLOAD_BYTES = 50
    client.force_login(curator)
    response = upload(client, public_version, csv_bytes([[1, "x" * 60, "y"]]))
    assert response.status_code == 400
    assert "the limit is 50 bytes" in str(response.context["file_problems"][0])
    with pytest.raises(CorpusFileError):
        bulk.preview_bulk_import(public_version, csv_bytes([[1, "x" * 60, "y"]]), "csv")


def test_unknown_columns_are_ignored_with_a_warning(client, curator, public_version):
    client.force_login(curator)
    data = csv_bytes([[95, "s", "r", "blue"]], header=("id", "source", "reference", "colour"))
    response = upload(client, public_version, data)
    assert response.status_code == 200
    assert any("'colour'" in warning for warning in response.context["preview"].warnings)
    assert "colour" in response.content.decode()
    confirm(client, public_version, response.context["preview"].staged.pk)
    assert "colour" not in public_version.entries.get(entry_id="95").document


def test_ragged_csv_row_is_reported(public_version):
    data = b"id,source,reference\n96,niw\xc3\xa2pam\xc3\xa2w, atim,reference\n"
    preview = bulk.preview_bulk_import(public_version, data, "csv")
    assert [(p.row, p.entry_id) for p in preview.problems] == [(2, "96")]
    assert "double quotes" in preview.problems[0].message


def test_semicolon_separated_csv_is_read(public_version):
    preview = bulk.preview_bulk_import(public_version, b"id;source;reference\n97;a, b;c\n", "csv")
    assert preview.is_valid and preview.creates[0][1].data == {"id": 97, "source": "a, b", "reference": "c",
                                                               "provenance": "elicited"}


def test_hostile_text_is_escaped_in_the_preview(client, curator, public_version):
    client.force_login(curator)
    data = csv_bytes([["<b>98</b>", "<script>alert(1)</script>", "r", "<img src=x onerror=alert(1)>"]],
                     header=("id", "source", "reference", "segment"))
    response = upload(client, public_version, data)
    page = response.content.decode()
    assert response.status_code == 400
    assert "<img src=x" not in page and "<b>98</b>" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


# ---------------------------------------------------------------- export


@pytest.mark.parametrize("file_format", ["csv", "xlsx", "json"])
def test_anonymous_export_holds_no_secret_text_but_curator_export_does(client, curator, public_version, file_format):
    anonymous = export(client, public_version, file_format)
    assert anonymous.status_code == 200
    assert anonymous["Content-Disposition"].endswith(f'-entries.{file_format}"')
    assert "no-store" in anonymous["Cache-Control"]

    client.force_login(curator)
    mine = export(client, public_version, file_format)

    def texts(response):
        if file_format == "csv":
            return [row["source"] for row in csv_rows(response.content)]
        if file_format == "json":
            return [row["source"] for row in json.loads(response.content)]
        return [row[1].value for row in xlsx_cells(response.content)[1:]]

    assert texts(anonymous) == ["source public-1", "source public-2"]
    assert SECRET_MARK.encode() not in anonymous.content  # plain bytes, for CSV and JSON
    assert not any(SECRET_MARK in str(cell.value) for row in
                   (xlsx_cells(anonymous.content) if file_format == "xlsx" else []) for cell in row)
    assert texts(mine) == ["source public-1", "source public-2", f"source {SECRET_MARK}-gold_standard-3",
                           f"source {SECRET_MARK}-held_out-4"]


def test_export_columns_and_types(client, public_version):
    rows = json.loads(export(client, public_version, "json").content)
    assert list(rows[0]) == list(COLUMNS)
    assert rows[0]["id"] == 1 and rows[0]["difficulty"] == 1 and rows[0]["notes"] is None
    header = xlsx_cells(export(client, public_version, "xlsx").content)[0]
    assert [cell.value for cell in header] == list(COLUMNS)
    assert list(csv_rows(export(client, public_version, "csv").content)[0]) == list(COLUMNS)


@pytest.mark.parametrize("file_format", ["csv", "xlsx", "json"])
def test_export_query_count_does_not_grow_with_entries(client, curator, steward, file_format,
                                                       django_assert_max_num_queries):
    version = import_corpus(
        data=corpus_bytes([entry(i, "gold_standard" if i % 2 else "development")
                                              for i in range(1, 301)], id="many"),
        organization=steward,
        actor=None,
    ).version
    client.force_login(curator)
    # Constant: the export itself plus auditing the secret entries shown (count, chain lock, last hash, insert).
    with django_assert_max_num_queries(12):
        response = export(client, version, file_format)
    assert response.status_code == 200
    if file_format == "json":
        assert len(json.loads(response.content)) == 300


def test_unknown_export_format_is_not_found(client, public_version):
    assert export(client, public_version, "xml").status_code == 404


# ---------------------------------------------------------------- text fidelity and hostile strings


def test_plains_cree_survives_csv_import_then_export(client, curator, public_version):
    client.force_login(curator)
    data = csv_bytes([[100, SRO, SYLLABICS, "ni-wâpam-â-w", "ᐊᑎᒼ = dog"]],
                     header=("id", "source", "reference", "morphological_analysis", "notes"))
    confirm(client, public_version, upload(client, public_version, data).context["preview"].staged.pk)

    stored = public_version.entries.get(entry_id="100")
    assert (stored.source, stored.reference) == (SRO, SYLLABICS)
    row = [r for r in csv_rows(export(client, public_version, "csv").content) if r["id"] == "100"][0]
    assert (row["source"], row["reference"], row["morphological_analysis"], row["notes"]) == (
        SRO, SYLLABICS, "ni-wâpam-â-w", "ᐊᑎᒼ = dog")
    assert SRO.encode("utf-8") in export(client, public_version, "csv").content
    json_row = [r for r in json.loads(export(client, public_version, "json").content) if r["id"] == 100][0]
    assert (json_row["source"], json_row["reference"]) == (SRO, SYLLABICS)


HOSTILE = {
    "source": FORMULA,
    "reference": "+SUM(A1:A9)",
    "morphological_analysis": "-ak",
    "notes": "@HYPERLINK(\"http://example.invalid\")",
    "variant_class": "'=already quoted",
}


def test_exports_neutralise_formulas_and_json_keeps_the_exact_text(client, curator, public_version):
    add_entry(actor=curator, version=public_version, data={"id": 110, **HOSTILE, "provenance": "elicited"})
    client.force_login(curator)

    row = [r for r in csv_rows(export(client, public_version, "csv").content) if r["id"] == "110"][0]
    for name, text in HOSTILE.items():
        assert row[name] == "'" + text, name

    cells = [r for r in xlsx_cells(export(client, public_version, "xlsx").content) if r[0].value == 110][0]
    by_name = dict(zip(COLUMNS, cells, strict=True))
    for name, text in HOSTILE.items():
        assert by_name[name].data_type == "s" and by_name[name].value == "'" + text, name

    json_row = [r for r in json.loads(export(client, public_version, "json").content) if r["id"] == 110][0]
    for name, text in HOSTILE.items():
        assert json_row[name] == text, name


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_export_then_import_changes_nothing(client, curator, steward, file_format):
    """Exporting and re-importing gives back the stored entries: escapes undone, JSON values kept."""
    entries = [
        entry(1, "development", difficulty=2, provenance={"type": "elicited", "speaker": "A"}, **HOSTILE),
        {"id": "x-2", "source": SRO, "reference": SYLLABICS},  # no segment, id stored as text
        entry(3, "gold_standard", domain="medical", notes=None),
    ]
    version = import_corpus(data=corpus_bytes(entries, id="roundtrip"), organization=steward, actor=None).version
    before = snapshot(version)
    client.force_login(curator)
    exported = export(client, version, file_format).content

    response = upload(client, version, exported, file_format)

    preview = response.context["preview"]
    assert preview.is_valid and preview.summary == "0 new, 0 updated, 3 unchanged"
    assert preview.staged is None and "Nothing to import" in response.content.decode()
    assert snapshot(version) == before


def test_formula_escape_is_undone_exactly_once():
    for text in [FORMULA, "-ak", "'=x", "''+y", "plain", "'quoted", "", "ᐊ=ᑎ"]:
        assert restore_formula(neutralise_formula(text)) == text
    assert neutralise_formula("'quoted") == "'quoted" and neutralise_formula("=1") == "'=1"


# ---------------------------------------------------------------- scale


def is_read(sql: str) -> bool:
    """A SELECT, or on PostgreSQL the server-side cursor `.iterator()` reads through (DECLARE … CURSOR FOR SELECT)."""
    sql = " ".join(sql.split()).upper()
    return sql.startswith("SELECT") or (sql.startswith("DECLARE") and " CURSOR FOR SELECT " in sql)


def test_apply_runs_no_query_per_row(steward):
    version = import_corpus(
        data=corpus_bytes([entry(i) for i in range(1, 501)], id="scale"),
        organization=steward,
        actor=None,
    ).version
    rows = [[i, f"edited {i}", f"reference public-{i}"] for i in range(1, 501)]
    rows += [[i, f"new {i}", f"new ref {i}"] for i in range(501, 2001)]

    with CaptureQueriesContext(connection) as captured:
        preview = bulk.apply_bulk_import(version, csv_bytes(rows), "csv")

    assert preview.summary == "1,500 new, 500 updated, 0 unchanged"
    statements = [query["sql"] for query in captured.captured_queries]
    reads = [sql for sql in statements if is_read(sql)]
    # The version lock, the existing entries, then the refresh: the count, the documents (sha256), the dataset and
    # the public documents (the public download's sha256) — whatever the number of rows.
    assert len(reads) <= 6, reads
    assert len(statements) <= 60, len(statements)  # batches, not rows
    version.refresh_from_db()
    assert version.entry_count == 2000 and version.sha256 == content_sha256(version)
    assert version.entries.get(entry_id="7").source == "edited 7"
    assert version.entries.get(entry_id="2000").position == 1999


def test_an_update_file_needs_only_the_id_and_the_columns_it_changes(client, curator, public_version):
    """The page's help says only the present columns are updated: a file of `id` and `notes` updates the notes."""
    client.force_login(curator)
    before = {row.entry_id: (row.source, row.reference) for row in public_version.entries.all()}
    response = upload(client, public_version, b"id,notes\n1,Checked with the elders in May.\n", "csv")
    preview = response.context["preview"]
    assert response.status_code == 200 and preview.is_valid and not preview.problems
    assert confirm(client, public_version, preview.staged.pk).status_code == 302
    entry = public_version.entries.get(entry_id="1")
    assert entry.notes == "Checked with the elders in May."
    assert {row.entry_id: (row.source, row.reference) for row in public_version.entries.all()} == before


@pytest.mark.parametrize("rows, field, fragment", [
    (b"id,segment\n3,\n", "segment", "under development"),
    (b"id,segment\n4,development\n", "segment", "would publish its text"),
    (b"id,segment\n3,diagnostic\n", "segment", "would publish its text"),
    (b"id,provenance\n1,\n", "provenance", "where this entry comes from"),
])
def test_a_row_may_not_publish_a_secret_entry_nor_empty_what_every_entry_keeps(client, curator, public_version, rows,
                                                                               field, fragment):
    """An emptied segment cell would file a gold-standard entry under development, public at once; a typed public
    segment would do the same; an emptied provenance would lose where the text comes from. Each is an invalid row
    named by its row, id and field, and confirming is not offered: nothing changes."""
    client.force_login(curator)
    before = snapshot(public_version)
    response = upload(client, public_version, rows, "csv")
    preview = response.context["preview"]
    assert not preview.is_valid and preview.staged is None
    [problem] = preview.problems
    assert (problem.row, problem.entry_id, problem.field) == (2, rows.split(b"\n")[1].split(b",")[0].decode(), field)
    assert fragment in problem.message and fragment in response.content.decode()
    assert snapshot(public_version) == before
    client.logout()
    assert SECRET_MARK not in export(client, public_version, "csv").content.decode()


def test_a_row_may_file_a_public_entry_as_secret_and_a_secret_one_under_another_secret_segment(
        client, curator, public_version):
    client.force_login(curator)
    response = upload(client, public_version, b"id,segment\n2,held_out\n3,held_out\n", "csv")
    preview = response.context["preview"]
    assert preview.is_valid, preview.problems
    assert confirm(client, public_version, preview.staged.pk).status_code == 302
    assert dict(public_version.entries.filter(entry_id__in=["2", "3"]).values_list("entry_id", "segment")) == {
        "2": "held_out", "3": "held_out"}


def test_the_entry_form_may_not_publish_a_secret_entry(client, curator, public_version):
    client.force_login(curator)
    gold = public_version.entries.get(entry_id="3")
    page = client.get(reverse("corpus:entry_edit", args=[gold.pk]))
    form = page.context["form"]
    data = {name: ("" if value is None else value) for name, value in form.initial.items()}
    data["segment"] = "development"
    answer = client.post(reverse("corpus:entry_edit", args=[gold.pk]), data)
    assert answer.status_code == 400 and "would publish its text" in answer.content.decode()
    gold.refresh_from_db()
    assert gold.segment == "gold_standard"


def test_an_entry_secret_by_its_files_whole_file_segment_stays_secret_whatever_a_row_does(client, curator, steward):
    """Entries without a segment of their own, in a file whose envelope files them all under gold_standard: a row
    that changes their notes, one that empties or repeats the segment cell, or one that names development, never
    files them under a public segment."""
    gold = [{key: value for key, value in entry(n, "gold_standard").items() if key != "segment"} for n in (1, 2, 3)]
    version = import_corpus(data=corpus_bytes(gold, segment="gold_standard"), organization=steward, actor=None).version
    assert set(version.entries.values_list("segment", flat=True)) == {"gold_standard"}
    client.force_login(curator)
    kept = upload(client, version, b"id,notes,segment\n1,checked,\n2,checked,gold_standard\n3,checked,held_out\n")
    preview = kept.context["preview"]
    assert preview.is_valid, preview.problems
    assert confirm(client, version, preview.staged.pk).status_code == 302
    assert dict(version.entries.values_list("entry_id", "segment")) == {
        "1": "gold_standard", "2": "gold_standard", "3": "held_out"}
    assert version.entries.get(entry_id="1").notes == "checked"
    refused = upload(client, version, b"id,segment\n1,development\n").context["preview"]
    assert [(problem.row, problem.field) for problem in refused.problems] == [(2, "segment")]
    assert set(version.entries.values_list("segment", flat=True)) == {"gold_standard", "held_out"}
