"""Spreadsheet formats of a version's entries: reading CSV/XLSX uploads and writing CSV/XLSX/JSON tables.

What django-import-export does here, and what it does not:

* Export goes through an import_export `Resource` (`EntryResource`) into a tablib Dataset. Its
  widgets neutralise spreadsheet formulas for CSV and XLSX (`neutralise_formula`: an apostrophe in
  front, undone on import) and give native types (ints, nulls) to XLSX and JSON. tablib writes CSV
  and JSON; XLSX is streamed by openpyxl (`write_xlsx`). import_export's own format classes are not
  used for writing: their IMPORT_EXPORT_ESCAPE_FORMULAE_ON_EXPORT setting deletes a leading "=",
  only "=", and turns every cell, None included, into text.
* Import does NOT use `Resource.import_data`: its row-by-row save, per-row instance lookups and
  its own field cleaning fight the two rules that matter here, all-or-nothing and the SAME
  validation as the JSON import (`corpus.validation.validate_entry`). tablib's readers are not
  used either: its CSV reader silently drops blank lines and its readers refuse ragged rows
  without saying which one, so the row numbers shown to curators would drift from the
  spreadsheet's. `read_table` reads CSV with the standard `csv` module and XLSX with openpyxl,
  keeping the spreadsheet's own row numbers; `corpus.bulk` validates and writes.
"""

import codecs
import csv
import io
import zipfile
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from xml.parsers import expat

import tablib
from django.db.models import QuerySet
from django.utils.formats import number_format
from django.utils.translation import gettext
from import_export import fields, resources, widgets
from import_export.formats import base_formats

from common.spreadsheets import neutralise_formula

from .models import Entry
from .validation import CorpusFileError, Problem, too_large

COLUMNS = (
    "id", "source", "reference", "segment", "difficulty", "provenance", "register", "context", "domain",
    "morphological_analysis", "notes", "variant_class", "document_id",
)
# An update names its entry by id and changes only the columns the file has; a new entry also needs its texts.
REQUIRED_COLUMNS = ("id",)
NEW_ENTRY_COLUMNS = ("source", "reference")
FORMATS = ("csv", "xlsx")
EXPORT_FORMATS = ("csv", "xlsx", "json")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": base_formats.XLSX.CONTENT_TYPE,
    "json": "application/json; charset=utf-8",
}
CSV_DELIMITERS = (",", ";", "\t")
# A cell may be as long as a JSON import allows (the whole upload); the csv module's default is 128 KiB.
csv.field_size_limit(2**31 - 1)
# XLSX is zipped XML: bound what it may expand to and how many rows it may hold (zip bombs).
XLSX_MAX_EXPANSION = 20
XLSX_MAX_ROWS = 1_000_000
XLSX_MAX_MEMBERS = 10_000
ZIP_MAGIC = b"PK\x03\x04"
# What a damaged, truncated or hostile archive raises while it is unzipped.
UNZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, OSError, ValueError,
                NotImplementedError, RuntimeError)
XML_READ_CHUNK = 64 * 1024


def canonical_int(text: str) -> int | None:
    """The int a text of ASCII digits stands for, if writing that int back gives the same text ("7", not "007")."""
    if len(text) <= 18 and text.isascii() and text.isdigit() and str(int(text)) == text:
        return int(text)
    return None


def xlsx_safe(text: str) -> str:
    """XLSX cannot hold most C0 control characters; they become U+FFFD (openpyxl would refuse the file)."""
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    return ILLEGAL_CHARACTERS_RE.sub("\ufffd", text)


class TextWidget(widgets.CharWidget):
    """Text for export. Keyword arguments of `Resource.export` select the format's needs:
    `neutralise_formulae` (CSV, XLSX), `xlsx` (control characters), `force_native_type` (empty → None)."""

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str | None:
        text = "" if value is None else str(value)
        if not text:
            return None if kwargs.get("force_native_type") else ""
        if kwargs.get("xlsx"):
            text = xlsx_safe(text)
        if kwargs.get("neutralise_formulae"):
            text = neutralise_formula(text)
        return text


class EntryIdWidget(TextWidget):
    """The entry id; as a number in typed formats (XLSX, JSON) when it is one, as in the corpus file."""

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str | int | None:
        if kwargs.get("force_native_type") and isinstance(value, str):
            number = canonical_int(value)
            if number is not None:
                return number
        return super().render(value, obj, **kwargs)


class DifficultyWidget(widgets.IntegerWidget):
    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str | int | None:
        if kwargs.get("force_native_type"):
            return value
        return "" if value is None else str(value)


class EntryResource(resources.Resource):
    """One row per entry with the columns of `COLUMNS`; export only (see the module docstring)."""

    id = fields.Field(attribute="entry_id", column_name="id", widget=EntryIdWidget())
    source = fields.Field(attribute="source", column_name="source", widget=TextWidget())
    reference = fields.Field(attribute="reference", column_name="reference", widget=TextWidget())
    segment = fields.Field(attribute="segment", column_name="segment", widget=TextWidget())
    difficulty = fields.Field(attribute="difficulty", column_name="difficulty", widget=DifficultyWidget())
    provenance = fields.Field(attribute="provenance", column_name="provenance", widget=TextWidget())
    register = fields.Field(attribute="register", column_name="register", widget=TextWidget())
    context = fields.Field(attribute="context", column_name="context", widget=TextWidget())
    domain = fields.Field(attribute="domain", column_name="domain", widget=TextWidget())
    morphological_analysis = fields.Field(
        attribute="morphological_analysis", column_name="morphological_analysis", widget=TextWidget()
    )
    notes = fields.Field(attribute="notes", column_name="notes", widget=TextWidget())
    variant_class = fields.Field(attribute="variant_class", column_name="variant_class", widget=TextWidget())
    document_id = fields.Field(attribute="document_id", column_name="document_id", widget=TextWidget())

    class Meta:
        export_order = COLUMNS
        chunk_size = 2000

    def get_export_fields(self, selected_fields=None):
        """The same fields for every row: computed once per resource, not once per row."""
        if selected_fields:
            return super().get_export_fields(selected_fields)
        if not hasattr(self, "_export_fields"):
            self._export_fields = super().get_export_fields()
        return self._export_fields

    def export_field(self, field, instance, **kwargs):
        # No dehydrate_<field> methods here, so skip import_export's per-cell lookup of one.
        return field.export(instance, **kwargs)


EXPORT_OPTIONS: dict[str, dict[str, bool]] = {
    "csv": {"neutralise_formulae": True},
    "xlsx": {"neutralise_formulae": True, "xlsx": True, "force_native_type": True},
    "json": {"force_native_type": True},
}


def export_entries(entries: QuerySet[Entry], file_format: str) -> bytes:
    """The entries as a CSV (UTF-8 with BOM, for Excel), XLSX or JSON (list of row objects) file.

    Callers pass entries already restricted by `selectors.visible_entries`; only the listed
    columns are read, as dicts (no model instances), in one query.
    """
    if file_format not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {file_format!r}")
    rows = entries.order_by("position").values("entry_id", *COLUMNS[1:])
    dataset = EntryResource().export(rows, **EXPORT_OPTIONS[file_format])
    dataset.title = "entries"
    if file_format == "csv":
        return codecs.BOM_UTF8 + dataset.export("csv").encode("utf-8")
    if file_format == "xlsx":
        return write_xlsx(dataset)
    return dataset.export("json").encode("utf-8")


def write_xlsx(dataset: tablib.Dataset) -> bytes:
    """The dataset as one sheet, bold frozen header, streamed by openpyxl's write-only mode.

    tablib's XLSX writer (behind import_export's XLSX format) addresses every cell of an in-memory
    sheet and measures every column: three times slower for 100,000 entries. Every text cell is
    typed as a string, so even an unneutralised "=…" could never become a formula.
    """
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Font

    book = Workbook(write_only=True)
    sheet = book.create_sheet(dataset.title or "entries")
    sheet.freeze_panes = "A2"
    bold = Font(bold=True)
    header = []
    for name in dataset.headers:
        cell = WriteOnlyCell(sheet, value=name)
        cell.font = bold
        header.append(cell)
    sheet.append(header)
    for row in dataset:
        cells = []
        for value in row:
            if isinstance(value, str) and value.startswith("="):
                cell = WriteOnlyCell(sheet, value=value)
                cell.data_type = "s"
                cells.append(cell)
            else:
                cells.append(value)
        sheet.append(cells)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


@dataclass
class Table:
    """An uploaded sheet: lowercased header names and the data rows with their spreadsheet row numbers."""

    headers: list[str]
    rows: list[tuple[int, list[Any]]] = field(default_factory=list)


def read_table(data: bytes, file_format: str, max_bytes: int) -> Table:
    """Read a CSV or XLSX upload; every unreadable file is a CorpusFileError with one clear Problem."""
    if file_format not in FORMATS:
        raise CorpusFileError([Problem(gettext("unknown format %(format)s; choose CSV or XLSX")
                                       % {"format": repr(file_format)})])
    if len(data) > max_bytes:
        raise CorpusFileError([too_large(len(data), max_bytes)])
    if not data.strip():
        raise CorpusFileError([Problem(gettext("the file is empty; expected a header row (id, source, reference, …) "
                                               "and one row per entry"))])
    table = read_csv(data) if file_format == "csv" else read_xlsx(data)
    if not any(table.headers):
        raise CorpusFileError([Problem(gettext("the first row is empty; it must name the columns "
                                               "(id, source, reference, …)"), line=1, column=1)])
    return table


def sniff_delimiter(header_line: str) -> str:
    """Comma, or the semicolon / tab that spreadsheet programs use in some locales, if the header says so."""
    for delimiter in CSV_DELIMITERS:
        names = {name.strip().strip('"').strip().lower() for name in header_line.split(delimiter)}
        if {"id", "source"} <= names:
            return delimiter
    return ","


def read_csv(data: bytes) -> Table:
    if data.startswith(ZIP_MAGIC):
        raise CorpusFileError([Problem(gettext("this is not a CSV file but a spreadsheet workbook (XLSX); "
                                               "choose the XLSX format, or save it as CSV UTF-8"))])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CorpusFileError([Problem(
            gettext("the file is not valid UTF-8 (byte 0x%(byte)s at offset %(offset)s); save it as \"CSV UTF-8\" "
                    "(Excel) or with the UTF-8 encoding (LibreOffice)")
            % {"byte": f"{data[exc.start]:02x}", "offset": exc.start}, line=line, column=column)]) from None
    delimiter = sniff_delimiter(text.split("\n", 1)[0])
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[tuple[int, list[Any]]] = []
    headers: list[str] | None = None
    number = 0  # records, not lines: a quoted cell may span lines but stays one spreadsheet row
    try:
        for number, record in enumerate(reader, start=1):
            if headers is None:
                headers = [cell.strip().lower() for cell in record]
            else:
                rows.append((number, record))
    except csv.Error as exc:
        row = number + 1
        raise CorpusFileError([Problem(gettext("row %(row)s: the CSV cannot be read: %(reason)s")
                                       % {"row": row, "reason": exc})]) from None
    return Table(headers=headers or [], rows=rows)


def read_xlsx(data: bytes) -> Table:
    import openpyxl
    from openpyxl.utils.exceptions import InvalidFileException

    if not data.startswith(ZIP_MAGIC):
        if b"," in data[:4096] or b";" in data[:4096]:
            message = gettext("this is not an XLSX workbook (Excel 2007 or later); old .xls and .ods files are not "
                              "supported, save as .xlsx or CSV UTF-8; if it is a CSV file, choose the CSV format")
        else:
            message = gettext("this is not an XLSX workbook (Excel 2007 or later); old .xls and .ods files are not "
                              "supported, save as .xlsx or CSV UTF-8")
        raise CorpusFileError([Problem(message)])
    check_xlsx_archive(data)
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (InvalidFileException, KeyError, SyntaxError, *UNZIP_ERRORS) as exc:
        raise CorpusFileError([unreadable_workbook(exc)]) from None
    try:
        sheets = [book.active, *book.worksheets]
        sheet = next((s for s in sheets if s is not None and hasattr(s, "iter_rows")), None)
        if sheet is None:
            raise CorpusFileError([Problem(gettext("the XLSX workbook has no worksheet with rows (only charts?)"))])
        headers: list[str] | None = None
        rows: list[tuple[int, list[Any]]] = []
        for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
            if number > XLSX_MAX_ROWS:
                raise CorpusFileError([Problem(gettext("the worksheet has more than %(limit)s rows; split it")
                                               % {"limit": number_format(XLSX_MAX_ROWS, force_grouping=True)})])
            if headers is None:
                headers = ["" if value is None else str(value).strip().lower() for value in values]
            else:
                rows.append((number, list(values)))
    except (KeyError, IndexError, SyntaxError, *UNZIP_ERRORS) as exc:
        raise CorpusFileError([unreadable_workbook(exc)]) from None
    finally:
        book.close()
    return Table(headers=headers or [], rows=rows)


def unreadable_workbook(exc: Exception) -> Problem:
    return Problem(gettext("the XLSX workbook cannot be read (%(error)s); open it in a spreadsheet program and save "
                           "it again as .xlsx") % {"error": type(exc).__name__})


class _PrologRead(Exception):
    """Stops expat where the part's prolog ends: at its DOCTYPE or at its root element."""


def check_xlsx_archive(data: bytes) -> None:
    """Look inside the zip, in memory, before openpyxl does: refuse an archive that does not unzip, that is no
    workbook, that holds too many parts or expands far beyond its size (a zip bomb), and any part declaring
    a DOCTYPE. The standard-library XML parser openpyxl reads worksheets with expands the entities such a
    declaration defines (their text lands in cells; "billion laughs" makes it a server error); spreadsheet
    programs never write one."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except UNZIP_ERRORS as exc:
        raise unzip_error(exc) from None
    if len(members) > XLSX_MAX_MEMBERS:
        raise CorpusFileError([Problem(gettext("the XLSX workbook holds %(count)s parts, more than %(limit)s; "
                                               "expected a .xlsx file saved by a spreadsheet program")
                                       % {"count": number_format(len(members), force_grouping=True),
                                          "limit": number_format(XLSX_MAX_MEMBERS, force_grouping=True)})])
    if "[Content_Types].xml" not in {info.filename for info in members}:
        raise CorpusFileError([Problem(gettext("the file is a zip archive but not an XLSX workbook (it has no "
                                               "[Content_Types].xml); expected an Excel 2007 or later workbook "
                                               "(.xlsx)"))])
    expanded = sum(info.file_size for info in members)
    if expanded > XLSX_MAX_EXPANSION * len(data) and expanded > 50 * 1024 * 1024:
        raise CorpusFileError([Problem(gettext("the XLSX workbook expands to %(size)s bytes, more than %(ratio)s "
                                               "times its size; save it again or use CSV")
                                       % {"size": number_format(expanded, force_grouping=True),
                                          "ratio": XLSX_MAX_EXPANSION})])
    for info in members:
        try:
            declared = declares_doctype(archive, info)
        except UNZIP_ERRORS as exc:
            raise unzip_error(exc) from None
        if declared:
            raise CorpusFileError([Problem(
                gettext("the XLSX workbook's part %(part)s declares a DOCTYPE (XML entities), which spreadsheet "
                        "programs never write, so it was not read; expected a .xlsx file saved by a spreadsheet "
                        "program") % {"part": repr(info.filename[:200])})])


def unzip_error(exc: Exception) -> CorpusFileError:
    cause = gettext("corrupt compressed data") if isinstance(exc, zlib.error) else type(exc).__name__
    return CorpusFileError([Problem(gettext("the XLSX workbook cannot be read: it does not unzip (%(cause)s), so it "
                                            "is truncated or damaged; expected a complete .xlsx file, saved again "
                                            "from the spreadsheet program") % {"cause": cause})])


def declares_doctype(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bool:
    """Whether the part declares a DOCTYPE, read in chunks only up to its root element (a DOCTYPE can only come
    before it) with expat, the parser openpyxl's readers use, so that every encoding it accepts is judged
    alike. A part expat cannot parse is no XML (an image) or fails openpyxl's reader at the same place."""
    parser = expat.ParserCreate()
    found: list[str] = []

    def doctype(name: str, *args: Any) -> None:
        found.append(name)
        raise _PrologRead

    def root(*args: Any) -> None:
        raise _PrologRead

    parser.StartDoctypeDeclHandler = doctype
    parser.StartElementHandler = root
    with archive.open(info) as part:
        try:
            while chunk := part.read(XML_READ_CHUNK):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
        except (_PrologRead, expat.ExpatError):
            pass
    return bool(found)


def is_blank(values: Iterable[Any]) -> bool:
    return all(value is None or (isinstance(value, str) and not value.strip()) for value in values)
