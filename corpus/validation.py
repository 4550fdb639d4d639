"""Parse and validate a corpus file (SPEC §3.1–3.2), collecting every problem before anything is stored. An
import reads the file an entry at a time (read_corpus), a whole parse words and locates what it cannot read."""

import codecs
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.errors import ApplicationError

from .models import Context, Domain, Register, Segment

DATASET_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,49}$")
BCP47 = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
ENVELOPE_REQUIRED = (
    "id", "version", "language_pair", "source_language", "target_language", "created", "license", "provenance",
)
OPTIONAL_TEXT_FIELDS = ("morphological_analysis", "notes", "variant_class")
CHOICE_FIELDS = {"segment": Segment, "register": Register, "context": Context, "domain": Domain}
# Django recomputes `Choices.values` on every access; entries look them up per field, so once here.
CHOICE_VALUES = {name: frozenset(choices.values) for name, choices in CHOICE_FIELDS.items()}
CHOICE_LISTS = {name: ", ".join(choices.values) for name, choices in CHOICE_FIELDS.items()}
MAX_ID_LENGTH = 200
MAX_PROBLEMS_KEPT = 1000
UNSTORABLE_ESCAPE = re.compile(r"\\u(0000|d[89a-f][0-9a-f]{2})", re.IGNORECASE)
# Bytes decoded at a time by the streaming reader (JsonObjectReader), whose text then stays near a MiB.
READ_CHUNK = 1 << 18
JSON_WHITESPACE = re.compile(r"[ \t\n\r]*")  # as json.decoder skips it


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a corpus file, located as precisely as the file allows."""

    message: str
    field: str = ""
    entry_index: int | None = None
    entry_id: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(_("line %(line)s, column %(column)s") % {"line": self.line, "column": self.column})
        if self.entry_index is not None:
            where.append(_("entry #%(index)s") % {"index": self.entry_index})
        if self.entry_id is not None:
            where.append(_("id %(id)s") % {"id": self.entry_id})
        if self.field:
            where.append(_("field '%(field)s'") % {"field": self.field})
        if not where:
            return self.message
        return _("%(where)s: %(message)s") % {"where": ", ".join(where), "message": self.message}


class CorpusFileError(ApplicationError):
    """The file cannot be imported; `problems` lists everything found (up to MAX_PROBLEMS_KEPT)."""

    def __init__(self, problems: list[Problem], total: int | None = None):
        self.problems = problems[:MAX_PROBLEMS_KEPT]
        self.total = total if total is not None else len(problems)
        super().__init__(f"{self.total} problem(s) in the corpus file; first: {self.problems[0]}")


@dataclass
class ValidEntry:
    position: int
    data: dict[str, Any]
    entry_id: str
    segment: str
    difficulty: int | None
    provenance: str
    register: str
    context: str
    domain: str


@dataclass
class ValidCorpus:
    """A valid corpus file. `entries` is a list when the file was parsed whole, StreamedEntries when it was read
    an entry at a time (read_corpus); `segments` are those of its entries."""

    envelope: dict[str, Any]
    envelope_fields: dict[str, Any]
    entries: "list[ValidEntry] | StreamedEntries"
    warnings: list[str] = field(default_factory=list)
    segments: set[str] = field(default_factory=set)


def describe(value: Any) -> str:
    """A short, safe rendering of a found value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        shown = repr(value) if not isinstance(value, int) or value.bit_length() < 128 else _("a huge integer")
        return shown if len(shown) <= 40 else shown[:37] + "…"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "…"
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, dict):
        return _("an object")
    if isinstance(value, list):
        return _("a list")
    return type(value).__name__


def too_large(size: int, limit: int) -> Problem:
    """The refusal of a file over the upload limit, both sizes in bytes as the reader's language writes numbers."""
    return Problem(_("the file is %(size)s bytes; the limit is %(limit)s bytes")
                   % {"size": number_format(size, force_grouping=True),
                      "limit": number_format(limit, force_grouping=True)})


def unavailable_dataset_id(identifier: str, organization_name: str) -> Problem:
    """The one refusal of a dataset id the importing organization may not use. It says nothing of the dataset
    behind the id (who stewards it, whether it is public, withdrawn or private), so that it reads the same
    whichever it is, through the page, the API and the import_corpus command."""
    return Problem(_("dataset id %(id)s is not available to %(organization)s; choose another dataset id")
                   % {"id": repr(identifier), "organization": organization_name}, field="dataset.id")


def refuse_constant(name: str):
    raise ValueError(_("%(name)s is not a JSON number; write a number or null") % {"name": name})


def refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json.loads keeps the last of duplicate keys silently; a corpus file must not be ambiguous."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(_("the key %(key)s appears twice in one object") % {"key": repr(duplicate)})
    return result


def check_file_size(data: bytes, max_bytes: int) -> None:
    """Refuse a file over `max_bytes`, and an empty one (only whitespace: what bytes.strip() would empty)."""
    if len(data) > max_bytes:
        raise CorpusFileError([too_large(len(data), max_bytes)])
    if not data or data.isspace():
        raise CorpusFileError([Problem(_("the file is empty; expected a JSON object with 'dataset' and 'entries'"))])


def decode_corpus_bytes(data: bytes, max_bytes: int) -> tuple[Any, bool]:
    """Check size and encoding, then parse JSON; each failure is one located Problem.

    Also says whether the text holds a \\u0000 or surrogate escape, the only ways JSON can carry text
    that cannot be stored, so that the costly per-string scan runs only for such files.
    """
    check_file_size(data, max_bytes)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CorpusFileError(
            [Problem(_("the file is not valid UTF-8 (byte 0x%(byte)s at offset %(offset)s); save it as UTF-8")
                     % {"byte": f"{data[exc.start]:02x}", "offset": exc.start}, line=line, column=column)]
        ) from None
    try:
        parsed = json.loads(text, parse_constant=refuse_constant, object_pairs_hook=refuse_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise CorpusFileError(
            [Problem(_("invalid JSON: %(reason)s") % {"reason": exc.msg}, line=exc.lineno, column=exc.colno)]
        ) from None
    except ValueError as exc:
        raise CorpusFileError([Problem(_("invalid JSON: %(reason)s") % {"reason": exc})]) from None
    except RecursionError:
        raise CorpusFileError([Problem(_("invalid JSON: nested too deeply"))]) from None
    return parsed, bool(UNSTORABLE_ESCAPE.search(text))


def unstorable_text(value: Any) -> str | None:
    """Why a string can't be stored faithfully (NUL, unpaired surrogate), scanning nested values."""
    if isinstance(value, str):
        if "\x00" in value:
            return _("contains a NUL character (\\u0000), which cannot be stored")
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return _("contains an unpaired UTF-16 surrogate escape, which is not valid Unicode text")
        return None
    if isinstance(value, dict):
        items = list(value.keys()) + list(value.values())
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        reason = unstorable_text(item)
        if reason:
            return reason
    return None


def parse_iso_date(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).date()
    except ValueError:
        return None


def validate_envelope(envelope: Any, problems: list[Problem]) -> dict[str, Any]:
    """Validate the `dataset` object and return the values the version's columns need."""
    if not isinstance(envelope, dict):
        problems.append(Problem(_("expected an object, found %(found)s") % {"found": describe(envelope)},
                                field="dataset"))
        return {}
    fields: dict[str, Any] = {}
    for name in ENVELOPE_REQUIRED:
        if name not in envelope or envelope[name] is None:
            problems.append(Problem(_("required field is missing"), field=f"dataset.{name}"))
    identifier = envelope.get("id")
    if identifier is not None:
        if not isinstance(identifier, str) or not identifier.strip() or len(identifier) > MAX_ID_LENGTH:
            problems.append(Problem(_("expected a non-empty string of at most %(limit)s characters, found %(found)s")
                                    % {"limit": MAX_ID_LENGTH, "found": describe(identifier)}, field="dataset.id"))
        elif not DATASET_ID.match(identifier):
            problems.append(Problem(_("expected letters, digits, '.', '_' and '-' only (e.g. \"edtekla-dev-v1\"), "
                                      "found %(found)s") % {"found": describe(identifier)}, field="dataset.id"))
        else:
            fields["identifier"] = identifier
    version = envelope.get("version")
    if version is not None:
        if not isinstance(version, str) or not VERSION.match(version):
            problems.append(Problem(_("expected a version such as \"1.0\" (letters, digits, '.', '_', '+', '-'; "
                                      "at most 50), found %(found)s") % {"found": describe(version)},
                                    field="dataset.version"))
        else:
            fields["version"] = version
    pair = envelope.get("language_pair")
    if pair is not None:
        if isinstance(pair, str) and pair.strip() and len(pair) <= 100:
            fields["language_pair"] = pair
        elif isinstance(pair, dict) and isinstance(pair.get("source"), str) and isinstance(pair.get("target"), str):
            fields["language_pair"] = f"{pair['source']}→{pair['target']}"[:100]
        else:
            problems.append(Problem(_("expected a label such as \"EN→CRK\", found %(found)s")
                                    % {"found": describe(pair)}, field="dataset.language_pair"))
    for name in ("source_language", "target_language"):
        value = envelope.get(name)
        if value is None:
            continue
        if isinstance(value, str) and BCP47.match(value) and len(value) <= 35:
            fields[name] = value
        else:
            problems.append(Problem(_("expected a BCP 47 language code such as \"crk\", found %(found)s")
                                    % {"found": describe(value)}, field=f"dataset.{name}"))
    created = envelope.get("created")
    if created is not None:
        parsed = parse_iso_date(created) if isinstance(created, str) else None
        if parsed is None:
            problems.append(Problem(_("expected an ISO 8601 date such as \"2026-05-01\", found %(found)s")
                                    % {"found": describe(created)}, field="dataset.created"))
        else:
            fields["created"] = parsed
    license_id = envelope.get("license")
    if license_id is not None:
        if isinstance(license_id, str) and license_id.strip() and len(license_id) <= 100:
            fields["license"] = license_id
        else:
            problems.append(Problem(_("expected an SPDX licence identifier, found %(found)s")
                                    % {"found": describe(license_id)}, field="dataset.license"))
    provenance = envelope.get("provenance")
    if provenance is not None:
        if isinstance(provenance, list) and all(isinstance(tag, (str, dict)) for tag in provenance):
            fields["provenance"] = provenance
        else:
            problems.append(Problem(_("expected a list of provenance tags, found %(found)s")
                                    % {"found": describe(provenance)}, field="dataset.provenance"))
    reason = unstorable_text(envelope)
    if reason:
        problems.append(Problem(reason, field="dataset"))
    return fields


def provenance_label(value: Any) -> str:
    """The provenance tag used for filtering: the string itself, or a nested object's type/tag/source."""
    if isinstance(value, str):
        return value[:200]
    if isinstance(value, dict):
        for key in ("type", "tag", "source", "kind"):
            if isinstance(value.get(key), str):
                return value[key][:200]
        return json.dumps(value, ensure_ascii=False, sort_keys=True)[:200]
    return ""


def validate_entry(
    position: int, raw: Any, problems: list[Problem], seen_ids: dict[str, int], scan_text: bool = True
) -> ValidEntry | None:
    return validated_entry(position, raw) if check_entry(position, raw, problems, seen_ids, scan_text) else None


def check_entry(position: int, raw: Any, problems: list[Problem], seen_ids: dict[str, int], scan_text: bool) -> bool:
    """Whether `raw` is a valid entry, its problems added to `problems` (validate_entry without the ValidEntry,
    which a streamed file builds when it reads the entry again)."""
    if not isinstance(raw, dict):
        problems.append(Problem(_("expected an object, found %(found)s") % {"found": describe(raw)},
                                entry_index=position))
        return False
    before = len(problems)
    raw_id = raw.get("id")
    shown_id = None if raw_id is None else str(raw_id)[:60]

    def problem(field_name: str, message: str) -> None:
        problems.append(Problem(message, field=field_name, entry_index=position, entry_id=shown_id))

    entry_id = None
    if "id" not in raw or raw_id is None:
        problem("id", _("required field is missing"))
    elif isinstance(raw_id, bool) or not isinstance(raw_id, (int, str)):
        problem("id", _("expected an integer (or an identifier string), found %(found)s") % {"found": describe(raw_id)})
    elif (isinstance(raw_id, str) and not raw_id.strip()) or len(str(raw_id)) > MAX_ID_LENGTH:
        problem("id", _("expected a non-empty identifier of at most %(limit)s characters") % {"limit": MAX_ID_LENGTH})
    else:
        entry_id = str(raw_id)
        if entry_id in seen_ids:
            earlier = seen_ids[entry_id]
            problem("id", _("duplicate id: entry #%(index)s already uses it") % {"index": earlier} if earlier >= 0
                    else _("duplicate id: another entry of this version already uses it"))
        else:
            seen_ids[entry_id] = position
    for name in ("source", "reference"):
        value = raw.get(name)
        if name not in raw or value is None:
            problem(name, _("required field is missing"))
        elif not isinstance(value, str):
            problem(name, _("expected a string, found %(found)s") % {"found": describe(value)})
        elif not value.strip():
            problem(name, _("expected non-empty text, found an empty string"))
    values: dict[str, str] = {}
    for name, allowed in CHOICE_VALUES.items():
        value = raw.get(name)
        if value is None:
            values[name] = ""
        elif not isinstance(value, str) or value not in allowed:
            problem(name, _("unknown value %(found)s; expected one of: %(choices)s")
                    % {"found": describe(value), "choices": CHOICE_LISTS[name]})
        else:
            values[name] = value
    difficulty = raw.get("difficulty")
    if difficulty is not None and (isinstance(difficulty, bool) or not isinstance(difficulty, int)
                                   or not 1 <= difficulty <= 5):
        problem("difficulty", _("expected an integer from 1 to 5, found %(found)s") % {"found": describe(difficulty)})
    provenance = raw.get("provenance")
    if provenance is not None and not isinstance(provenance, (str, dict)):
        problem("provenance", _("expected a string (or an object), found %(found)s") % {"found": describe(provenance)})
    for name in OPTIONAL_TEXT_FIELDS:
        value = raw.get(name)
        if value is not None and not isinstance(value, str):
            problem(name, _("expected a string, found %(found)s") % {"found": describe(value)})
    if isinstance(raw.get("variant_class"), str) and len(raw["variant_class"]) > 200:
        problem("variant_class", _("expected at most %(limit)s characters") % {"limit": 200})
    reason = unstorable_text(raw) if scan_text else None
    if reason:
        problem("", reason)
    return len(problems) == before


def entry_segment(raw: dict[str, Any]) -> str:
    """The segment of a valid entry: development when it names none."""
    return raw.get("segment") or Segment.DEVELOPMENT


def validated_entry(position: int, raw: dict[str, Any]) -> ValidEntry:
    """The ValidEntry of an entry object that validate_entry accepts: read again from a streamed file, it is not
    checked twice. (A choice field it accepts is null or one of the choices, never "".)"""
    return ValidEntry(
        position=position,
        data=raw,
        entry_id=str(raw["id"]),
        segment=entry_segment(raw),
        difficulty=raw.get("difficulty"),
        provenance=provenance_label(raw.get("provenance")),
        register=raw.get("register") or "",
        context=raw.get("context") or "",
        domain=raw.get("domain") or "",
    )


class EntryChecks:
    """Entries validated one at a time (validate_entry), the problems found, and what an import needs of the
    valid ones, so that a file's entries need not all be held at once."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.seen_ids: dict[str, int] = {}
        self.read = 0
        self.valid = 0
        self.unsegmented = 0
        self.segments: set[str] = set()

    def check(self, raw: Any, scan_text: bool) -> bool:
        valid = check_entry(self.read, raw, self.problems, self.seen_ids, scan_text)
        self.read += 1
        if valid:
            self.valid += 1
            self.segments.add(entry_segment(raw))
            self.unsegmented += raw.get("segment") is None
        return valid

    def corpus(self, document: dict[str, Any], entries: "list[ValidEntry] | StreamedEntries") -> ValidCorpus:
        """The corpus of `document`, whose `entries`, if a list, were all checked; else CorpusFileError listing
        the envelope's problems, then the entry list's, then the entries'."""
        problems: list[Problem] = []
        if "dataset" not in document:
            problems.append(Problem(_("required field is missing"), field="dataset"))
        envelope_fields = validate_envelope(document.get("dataset"), problems) if "dataset" in document else {}
        entries_raw = document.get("entries")
        if entries_raw is None:
            problems.append(Problem(_("required field is missing"), field="entries"))
        elif not isinstance(entries_raw, list):
            problems.append(Problem(_("expected a list of entries, found %(found)s") % {"found": describe(entries_raw)},
                                    field="entries"))
        elif not self.read:
            problems.append(Problem(_("the corpus has no entries"), field="entries"))
        problems += self.problems
        if problems:
            raise CorpusFileError(problems)
        warnings = []
        if self.unsegmented:
            # English keeps one wording for every count (scripts match it); other languages agree in number.
            warnings.append(ngettext("%(count)s entries have no segment and were filed as development.",
                                     "%(count)s entries have no segment and were filed as development.",
                                     self.unsegmented) % {"count": self.unsegmented})
        return ValidCorpus(envelope=document["dataset"], envelope_fields=envelope_fields, entries=entries,
                           warnings=warnings, segments=self.segments)


def validate_corpus(document: Any, scan_text: bool = True) -> ValidCorpus:
    """Validate a parsed corpus file; raise CorpusFileError listing every problem found."""
    if not isinstance(document, dict):
        raise CorpusFileError([Problem(_("expected a JSON object with 'dataset' and 'entries', found %(found)s")
                                       % {"found": describe(document)})])
    checks = EntryChecks()
    entries: list[ValidEntry] = []
    if isinstance(document.get("entries"), list):
        for position, raw in enumerate(document["entries"]):
            if checks.check(raw, scan_text):
                entries.append(validated_entry(position, raw))
    return checks.corpus(document, entries)


# ---------------------------------------------------------------------------------------------------------
# Reading a file an entry at a time
# ---------------------------------------------------------------------------------------------------------

# json.loads's reading of a corpus file (decode_corpus_bytes), applied value by value.
CORPUS_DECODER = json.JSONDecoder(parse_constant=refuse_constant, object_pairs_hook=refuse_duplicate_keys)
PLAIN_DECODER = json.JSONDecoder()


class NotStreamed(Exception):
    """The streaming reader leaves the file to a whole parse (decode_corpus_bytes), which words and locates its
    problem: an encoding or JSON error, what the decoder refuses (a repeated key, NaN), a repeated member name,
    trailing data."""


class JsonObjectReader:
    """Reads the JSON object that UTF-8 `data` holds without decoding it whole: READ_CHUNK bytes at a time, of
    which only the text not yet read is kept. `names()` gives each member's name with the reader at its value,
    which the caller reads whole (`value()`), steps over (`skip()`) or, when it is an array (`at("[")`), reads
    one element at a time (`elements()`). Values are read by `decoder`, so each is what json.loads with its
    settings gives, and the grammar between them is JSON's; anything else raises NotStreamed."""

    def __init__(self, data: bytes, decoder: json.JSONDecoder = CORPUS_DECODER):
        self._data = memoryview(data)
        self._json = decoder
        self._utf8 = codecs.getincrementaldecoder("utf-8-sig")()
        self._decoded = 0
        self._text = ""
        self._pos = 0
        self._span = (0, 0)

    def _extend(self) -> bool:
        """Drop the text before the reader and decode more, at least as much as is kept, so that a value longer
        than READ_CHUNK is read again only a few times; False at the end of the data."""
        if self._decoded == len(self._data):
            return False
        kept = self._text[self._pos:]
        chunk = self._data[self._decoded:self._decoded + max(READ_CHUNK, len(kept))]
        self._decoded += len(chunk)
        try:
            self._text = kept + self._utf8.decode(chunk, final=self._decoded == len(self._data))
        except UnicodeDecodeError:
            raise NotStreamed from None
        self._pos = 0
        return True

    def _next(self) -> str:
        """The next character after whitespace, the reader on it; "" at the end of the data."""
        while True:
            self._pos = JSON_WHITESPACE.match(self._text, self._pos).end()
            if self._pos < len(self._text):
                return self._text[self._pos]
            if not self._extend():
                return ""

    def _expect(self, character: str) -> None:
        if self._next() != character:
            raise NotStreamed
        self._pos += 1

    def _after(self, end: str) -> bool:
        """Step over the comma after a member or element (True) or the `end` that closes them (False)."""
        found = self._next()
        if found not in (",", end):
            raise NotStreamed
        self._pos += 1
        return found == ","

    def at(self, character: str) -> bool:
        return self._next() == character

    def value(self) -> Any:
        """The value at the reader, whole. One that ends where the decoded text ends may go on (a number, or
        an error only because the rest is not decoded yet): it is read again with more text."""
        self._next()
        while True:
            try:
                value, end = self._json.raw_decode(self._text, self._pos)
            except json.JSONDecodeError:
                pass
            except (ValueError, RecursionError):
                raise NotStreamed from None
            else:
                if end < len(self._text) or self._decoded == len(self._data):
                    self._span = (self._pos, end)
                    self._pos = end
                    return value
            if not self._extend():
                raise NotStreamed

    def holds(self, pattern: re.Pattern[str]) -> bool:
        """Whether the text of the value just read matches `pattern`."""
        return pattern.search(self._text, *self._span) is not None

    def value_text(self) -> str:
        """The text of the value at the reader, verbatim."""
        self.value()
        return self._text[self._span[0]:self._span[1]]

    def skip(self) -> None:
        """Step over the value at the reader, an array one element at a time."""
        if self.at("["):
            for _ in self.elements():
                pass
        else:
            self.value()

    def names(self) -> Iterator[str]:
        """The object's member names, in order, each given with the reader at its value; a repeated name, or
        anything but whitespace after the object, raises NotStreamed."""
        self._expect("{")
        seen: set[str] = set()
        if self.at("}"):
            self._pos += 1
        else:
            while True:
                if not self.at('"'):
                    raise NotStreamed
                name = self.value()
                if name in seen:
                    raise NotStreamed
                seen.add(name)
                self._expect(":")
                yield name
                if not self._after("}"):
                    break
        if self._next():
            raise NotStreamed

    def elements(self) -> Iterator[Any]:
        """The elements of the array at the reader, one at a time."""
        self._expect("[")
        if self.at("]"):
            self._pos += 1
            return
        while True:
            yield self.value()
            if not self._after("]"):
                return


class StreamedEntries:
    """The entries of a valid corpus file, read from its bytes again each time they are iterated: by a plain
    decoder, quicker than CORPUS_DECODER's, which refused any repeated key on the first reading."""

    def __init__(self, data: bytes, count: int):
        self._data = data
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[ValidEntry]:
        reader = JsonObjectReader(self._data, PLAIN_DECODER)
        for name in reader.names():
            if name == "entries" and reader.at("["):
                for position, raw in enumerate(reader.elements()):
                    yield validated_entry(position, raw)
            else:
                reader.skip()


def read_corpus(data: bytes, max_bytes: int) -> ValidCorpus:
    """decode_corpus_bytes and validate_corpus, an entry at a time: the file's text and its entries are never
    held whole (a 30 MB file took 160 MiB so), and the corpus's entries are read from `data` again when used.
    A file the streaming reader leaves aside (NotStreamed) is parsed whole, so that its problem is worded and
    located as before; every problem of a file that reads as JSON is found in the same order as before."""
    check_file_size(data, max_bytes)
    try:
        return _read_streamed(data)
    except NotStreamed:
        pass
    parsed, scan_text = decode_corpus_bytes(data, max_bytes)
    return validate_corpus(parsed, scan_text=scan_text)


def _read_streamed(data: bytes) -> ValidCorpus:
    """Only an entry's own text can carry a \\u0000 or surrogate escape into it, so each entry is scanned
    for unstorable text when its own text holds one (decode_corpus_bytes asks the whole file)."""
    reader = JsonObjectReader(data)
    checks = EntryChecks()
    document: dict[str, Any] = {}
    for name in reader.names():
        if name == "entries" and reader.at("["):
            document[name] = []  # its elements are checked as they are read
            for raw in reader.elements():
                checks.check(raw, scan_text=reader.holds(UNSTORABLE_ESCAPE))
        else:
            document[name] = reader.value()
    return checks.corpus(document, StreamedEntries(data, checks.valid))
