"""Reading and checking source texts, from a page, a CSV or JSON file or the API: every problem at once, each naming
its row (CSV line, JSON index) and field, and what was expected. Nothing here writes."""

import csv
import io
import json
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from corpus.models import Domain, Register, Segment

from .models import MAX_TEXT_LENGTH, Origin
from .texts import text_key

MAX_SOURCES_PER_UPLOAD = 2000
MAX_UPLOAD_BYTES = 2 * 1024 * 1024
COLUMNS = ("source", "context", "difficulty", "register", "domain", "segment", "origin", "origin_name",
           "origin_license")
REQUIRED_COLUMNS = ("source", "difficulty", "register", "domain")


@dataclass(frozen=True)
class SourceProblem:
    """`where` is "line 4" (CSV), "sources[3]" (JSON) or "" (the file as a whole)."""

    where: str
    field: str
    message: str

    def __str__(self) -> str:
        place = ", ".join(part for part in (self.where, self.field) if part)
        return f"{place}: {self.message}" if place else self.message


@dataclass(frozen=True)
class SourceRow:
    text: str
    context: str
    difficulty: int
    register: str
    domain: str
    segment: str
    origin: str
    origin_name: str
    origin_license: str

    @property
    def key(self) -> str:
        return text_key(self.text)


class SourceFileError(Exception):
    def __init__(self, problems: list[SourceProblem]):
        super().__init__("; ".join(str(problem) for problem in problems[:5]))
        self.problems = problems


def read_csv(data: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(where, fields) per data row of a UTF-8 CSV whose first row names the columns."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SourceFileError([SourceProblem("", "", _("the file is not UTF-8 text (byte %(position)d)")
                                             % {"position": error.start})]) from error
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
        if not header:
            raise SourceFileError([SourceProblem("", "", _("the file is empty: the first row names the columns, such "
                                                           "as %(columns)s") % {"columns": ", ".join(COLUMNS)})])
        names = [name.strip().lower() for name in header]
        unknown = [name for name in names if name not in COLUMNS]
        missing = [name for name in REQUIRED_COLUMNS if name not in names]
        first = _("line %(line)d") % {"line": 1}
        problems = [SourceProblem(first, name, _("unknown column; expected any of %(columns)s")
                                  % {"columns": ", ".join(COLUMNS)}) for name in unknown]
        problems += [SourceProblem(first, name, _("required column missing"))
                     for name in missing]
        if problems:
            raise SourceFileError(problems)
        rows = []
        for values in reader:
            where = _("line %(line)d") % {"line": reader.line_num}
            if not any(value.strip() for value in values):
                continue
            if len(values) != len(names):
                raise SourceFileError([SourceProblem(where, "", _(
                    "expected %(expected)d values (one per column), found %(found)d") % {
                    "expected": len(names), "found": len(values)})])
            rows.append((where, dict(zip(names, values, strict=True))))
    except csv.Error as error:
        raise SourceFileError([SourceProblem(_("line %(line)d") % {"line": reader.line_num}, "",
                                             _("not valid CSV: %(error)s") % {"error": error})]) from error
    return rows


def read_json(data: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(where, fields) per object of a JSON list of sources, or of an object's `sources` list."""
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as error:
        raise SourceFileError([SourceProblem("", "", _("the file is not UTF-8 text (byte %(position)d)")
                                             % {"position": error.start})]) from error
    except json.JSONDecodeError as error:
        raise SourceFileError([SourceProblem(_("line %(line)d, column %(column)d") % {
            "line": error.lineno, "column": error.colno}, "", _("not valid JSON: %(error)s") % {"error": error.msg})
        ]) from error
    if isinstance(document, dict) and "sources" in document:
        document = document["sources"]
    if not isinstance(document, list):
        raise SourceFileError([SourceProblem("", "", _("expected a list of sources, or an object whose “sources” is "
                                                       "one"))])
    rows = []
    for index, item in enumerate(document):
        where = f"sources[{index}]"
        if not isinstance(item, dict):
            raise SourceFileError([SourceProblem(where, "", _("expected an object with the fields %(columns)s")
                                                 % {"columns": ", ".join(COLUMNS)})])
        rows.append((where, item))
    return rows


def as_text(value: Any) -> str | None:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def checked_rows(raw_rows: list[tuple[str, dict[str, Any]]], taken_keys: set[str]) -> list[SourceRow]:
    """The rows as sources, or SourceFileError with every problem found. `taken_keys` are the text keys the batch
    already holds: a source given twice (in the file or the batch) is refused."""
    problems: list[SourceProblem] = []
    if not raw_rows:
        raise SourceFileError([SourceProblem("", "", _("no sources found: give at least one"))])
    if len(raw_rows) > MAX_SOURCES_PER_UPLOAD:
        raise SourceFileError([SourceProblem("", "", _("%(count)d sources; at most %(limit)d are taken at once")
                                             % {"count": len(raw_rows), "limit": MAX_SOURCES_PER_UPLOAD})])
    seen: dict[str, str] = {}
    rows = []
    for where, fields in raw_rows:
        unknown = sorted(set(fields) - set(COLUMNS))
        for name in unknown:
            problems.append(SourceProblem(where, name, _("unknown field; expected any of %(columns)s")
                                          % {"columns": ", ".join(COLUMNS)}))
        values = {}
        for name in COLUMNS:
            value = as_text(fields.get(name))
            if value is None:
                problems.append(SourceProblem(where, name, _("expected text")))
                value = ""
            values[name] = value
        before = len(problems)
        text = values["source"]
        if not text:
            problems.append(SourceProblem(where, "source", _("empty: give the text to translate")))
        elif len(text) > MAX_TEXT_LENGTH:
            problems.append(SourceProblem(where, "source", _("%(length)d characters; at most %(limit)d")
                                          % {"length": len(text), "limit": MAX_TEXT_LENGTH}))
        if len(values["context"]) > MAX_TEXT_LENGTH:
            problems.append(SourceProblem(where, "context", _("%(length)d characters; at most %(limit)d")
                                          % {"length": len(values["context"]), "limit": MAX_TEXT_LENGTH}))
        difficulty = values["difficulty"]
        if difficulty not in {"1", "2", "3", "4", "5"}:
            problems.append(SourceProblem(where, "difficulty", _("“%(found)s” is not a tier; expected 1 to 5")
                                          % {"found": difficulty[:20]}))
        for name, choices in (("register", Register.values), ("domain", Domain.values)):
            if values[name] not in choices:
                problems.append(SourceProblem(where, name, _("“%(found)s” is unknown; expected one of %(choices)s")
                                              % {"found": values[name][:40], "choices": ", ".join(choices)}))
        segment = values["segment"] or Segment.DEVELOPMENT
        if segment not in Segment.values:
            problems.append(SourceProblem(where, "segment", _("“%(found)s” is unknown; expected one of %(choices)s")
                                          % {"found": segment[:40], "choices": ", ".join(Segment.values)}))
        origin = values["origin"] or Origin.COMMUNITY
        if origin not in Origin.values:
            problems.append(SourceProblem(where, "origin", _("“%(found)s” is unknown; expected one of %(choices)s")
                                          % {"found": origin[:40], "choices": ", ".join(Origin.values)}))
        elif origin == Origin.PUBLIC_SOURCE and not (values["origin_name"] and values["origin_license"]):
            problems.append(SourceProblem(where, "origin_name", _(
                "a public source needs its name (origin_name) and its licence (origin_license, an SPDX identifier)")))
        elif origin == Origin.MACHINE_PROPOSED and not values["origin_name"]:
            problems.append(SourceProblem(where, "origin_name", _(
                "a machine-proposed source names the system that proposed it (origin_name)")))
        for name, limit in (("origin_name", 300), ("origin_license", 100)):
            if len(values[name]) > limit:
                problems.append(SourceProblem(where, name, _("%(length)d characters; at most %(limit)d")
                                              % {"length": len(values[name]), "limit": limit}))
        if text:
            key = text_key(text)
            if key in taken_keys:
                problems.append(SourceProblem(where, "source", _("already a source of this batch")))
            elif key in seen:
                problems.append(SourceProblem(where, "source", _("the same source as %(other)s")
                                              % {"other": seen[key]}))
            seen.setdefault(key, where)
        if len(problems) == before and not unknown:
            rows.append(SourceRow(text, values["context"], int(difficulty), values["register"], values["domain"],
                                  segment, origin, values["origin_name"], values["origin_license"]))
    if problems:
        raise SourceFileError(problems)
    return rows
