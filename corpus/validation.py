"""Parse and validate a corpus file (SPEC §3.1–3.2), collecting every problem before anything is stored. An
import reads the file an entry at a time (read_corpus), a whole parse words and locates what it cannot read."""

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
from common.json_reader import JsonObjectReader, NotStreamed
from common.problems import grouped

from .language_pairs import pair_key
from .models import Context, Domain, FileLayout, Register, Segment

DATASET_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,49}$")
BCP47 = re.compile(r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$")
ENVELOPE_REQUIRED = (
    "id", "version", "language_pair", "source_language", "target_language", "created", "license", "provenance",
)
OPTIONAL_TEXT_FIELDS = ("morphological_analysis", "notes", "variant_class", "document_id")
# Short identifiers among them: a variant class, the text (story, conversation) an entry belongs to.
SHORT_TEXT_LIMIT = 200
SHORT_TEXT_FIELDS = ("variant_class", "document_id")
# A source, reference or note is a sentence or a paragraph: 10,000 characters is far beyond one, and keeps a page
# of entries light on a phone (a single text of megabytes would freeze the entry list).
ENTRY_TEXT_LIMIT = 10_000


def text_too_long(count: int) -> str:
    """Why a text of `count` characters is refused (more than ENTRY_TEXT_LIMIT)."""
    return _("expected at most %(limit)s characters, found %(count)s") % {"limit": grouped(ENTRY_TEXT_LIMIT),
                                                                          "count": grouped(count)}
CHOICE_FIELDS = {"segment": Segment, "register": Register, "context": Context, "domain": Domain}
# Django recomputes `Choices.values` on every access; entries look them up per field, so once here.
CHOICE_VALUES = {name: frozenset(choices.values) for name, choices in CHOICE_FIELDS.items()}
CHOICE_LISTS = {name: ", ".join(choices.values) for name, choices in CHOICE_FIELDS.items()}
MAX_ID_LENGTH = 200
MAX_PROBLEMS_KEPT = 1000
UNSTORABLE_ESCAPE = re.compile(r"\\u(0000|d[89a-f][0-9a-f]{2})", re.IGNORECASE)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a corpus file, located as precisely as the file allows."""

    message: str
    field: str = ""
    entry_index: int | None = None
    entry_id: str | None = None
    line: int | None = None
    column: int | None = None
    # For a field the file lacks: the import parameter that supplies it (SUPPLIED_FIELDS, SEGMENT_MAP), else "".
    parameter: str = ""
    # What the file gives that the parameter maps (an unknown segment name), else None.
    value: str | None = None

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
    an entry at a time (read_corpus); `segments` are those of its entries. `envelope` is what the version stores
    verbatim for its `layout` (FileLayout): the `dataset` object, the file's object without `entries`, or None
    for a bare list; `envelope_fields` are the version's columns, from the file or from the import's parameters."""

    envelope: dict[str, Any] | None
    envelope_fields: dict[str, Any]
    entries: "list[ValidEntry] | StreamedEntries"
    warnings: list[str] = field(default_factory=list)
    segments: set[str] = field(default_factory=set)
    layout: str = FileLayout.DATASET

    @property
    def envelope_text(self) -> str:
        return json.dumps(self.envelope, ensure_ascii=False)


# The envelope fields an import may supply when the file lacks them: field → the parameter's name (the import
# page's field, the API's query or form parameter; the import_corpus command's option is --NAME-WITH-DASHES).
SUPPLIED_FIELDS = {
    "id": "dataset_id",
    "version": "dataset_version",
    "language_pair": "language_pair",
    "source_language": "source_language",
    "target_language": "target_language",
    "created": "created",
    "license": "license",
}


# The import parameter that maps segment names the file uses to the four segments ("basic=development,advanced=
# held_out"): never guessed, always asked for.
SEGMENT_MAP = "segment_map"


def option_name(parameter: str) -> str:
    return "--" + parameter.replace("_", "-")


def segment_map_of(supplied: dict[str, Any] | None, problems: list[Problem]) -> dict[str, str]:
    """The segment map an import gives (SEGMENT_MAP): a mapping, or text of `name=segment` pairs separated by commas
    or new lines. Each name must be one the file may use that is not a segment already, each target one of the four
    segments; every problem is added to `problems`."""
    given = (supplied or {}).get(SEGMENT_MAP)
    if not given:
        return {}
    if isinstance(given, dict):
        pairs = [(str(name), str(segment)) for name, segment in given.items()]
    else:
        pairs = []
        for item in re.split(r"[,\n]", str(given)):
            if not item.strip():
                continue
            name, equals, segment = item.partition("=")
            if not equals or not name.strip():
                problems.append(Problem(_("expected name=segment, found %(found)s") % {"found": describe(item.strip())},
                                        field=SEGMENT_MAP, parameter=SEGMENT_MAP))
                continue
            pairs.append((name.strip(), segment.strip()))
    mapping: dict[str, str] = {}
    for name, segment in pairs:
        if name in CHOICE_VALUES["segment"]:
            problems.append(Problem(_("%(name)s is a segment already; only names that are not segments are mapped")
                                    % {"name": describe(name)}, field=SEGMENT_MAP, parameter=SEGMENT_MAP))
        elif segment not in CHOICE_VALUES["segment"]:
            problems.append(Problem(_("maps %(name)s to %(found)s; expected one of: %(choices)s")
                                    % {"name": describe(name), "found": describe(segment),
                                       "choices": CHOICE_LISTS["segment"]}, field=SEGMENT_MAP, parameter=SEGMENT_MAP))
        else:
            mapping[name] = segment
    return mapping


@dataclass(frozen=True)
class CorpusMode:
    """What reading a file's entries depends on in its envelope and the import. `strict_ids`: the corpus format (a
    `dataset` object with an `id`) requires every entry's id; the upstream shapes may leave ids out, and, as the
    harness numbers them, an entry without one is its position (from 0). `default_segment`: the segment of an entry
    that names none: the envelope's `segment` (the corpus builder's whole-file segment), else development.
    `segment_map`: the segments the curator gave the file's own segment names (SEGMENT_MAP), as (name, segment)
    pairs; an entry with a name it does not map is collected, not refused on its own (EntryChecks asks for it)."""

    strict_ids: bool = True
    default_segment: str = Segment.DEVELOPMENT
    segment_given: bool = False
    segment_map: tuple[tuple[str, str], ...] = ()

    def mapped(self, name: Any) -> Any:
        """A segment name as stored: the segment it is mapped to, else itself."""
        return dict(self.segment_map).get(name, name) if isinstance(name, str) else name


def envelope_segment(document: Any) -> Any:
    """The whole file's `segment`, as the envelope gives it (in `dataset`, else beside the entries), or None."""
    if not isinstance(document, dict):
        return None
    inner = document.get("dataset")
    if isinstance(inner, dict) and inner.get("segment") is not None:
        return inner["segment"]
    return document.get("segment")


def corpus_mode(document: Any, segment_map: dict[str, str] | None = None) -> CorpusMode:
    """The CorpusMode of a parsed file (or of the members read so far), with the import's segment map."""
    pairs = tuple(sorted((segment_map or {}).items()))
    if not isinstance(document, dict):
        return CorpusMode(strict_ids=False, segment_map=pairs)
    inner = document.get("dataset")
    given = envelope_segment(document)
    segment = dict(pairs).get(given, given) if isinstance(given, str) else given
    known = isinstance(segment, str) and segment in CHOICE_VALUES["segment"]
    return CorpusMode(strict_ids=isinstance(inner, dict) and "id" in inner,
                      default_segment=segment if known else Segment.DEVELOPMENT,
                      segment_given=segment is not None, segment_map=pairs)


def file_layout(document: Any) -> str:
    if isinstance(document, list):
        return FileLayout.LIST
    if isinstance(document.get("dataset"), dict) and set(document) <= {"dataset", "entries"}:
        return FileLayout.DATASET
    return FileLayout.OBJECT


def stored_envelope(document: Any, layout: str, mode: "CorpusMode | None" = None) -> dict[str, Any] | None:
    """The envelope a version stores, its whole-file `segment` as the segment map maps it."""
    if layout == FileLayout.LIST:
        return None
    envelope = document["dataset"] if layout == FileLayout.DATASET else {
        name: value for name, value in document.items() if name != "entries"}
    if mode is not None and isinstance(envelope.get("segment"), str):
        envelope = {**envelope, "segment": mode.mapped(envelope["segment"])}
    return envelope


def reference_key(raw: dict[str, Any]) -> str:
    """The member holding an entry's reference: `reference`, or `target` as several corpus builders write it."""
    return "target" if "reference" not in raw and "target" in raw else "reference"


def entry_reference(raw: dict[str, Any]) -> str:
    return raw[reference_key(raw)]


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


def unstorable_string(value: str) -> str | None:
    """Why a string can't be stored faithfully (NUL, unpaired surrogate)."""
    if "\x00" in value:
        return _("contains a NUL character (\\u0000), which cannot be stored")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _("contains an unpaired UTF-16 surrogate escape, which is not valid Unicode text")
    return None


def unstorable_text(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first string, nested at any depth in `value`, that can't be stored faithfully: its path below `path`
    (a member name at its object's path, described as a member name) and why."""
    if isinstance(value, str):
        reason = unstorable_string(value)
        return None if reason is None else (path, reason)
    if isinstance(value, dict):
        for key, item in value.items():
            reason = unstorable_string(key) if isinstance(key, str) else None
            if reason:
                return path, _("a member name %(reason)s") % {"reason": reason}
            found = unstorable_text(item, f"{path}.{key}" if path else str(key))
            if found:
                return found
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found = unstorable_text(item, f"{path}[{position}]")
            if found:
                return found
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


Found = tuple[str, Any]  # where in the file (or which parameter) a value came from, and the value


def first_found(*candidates: Found) -> Found | None:
    return next((candidate for candidate in candidates if candidate[1] is not None), None)


def pair_sides(pair: Any) -> tuple[Any, Any]:
    """The source and target languages a `language_pair` names: an object's `source`/`target`, or the two codes
    of a written pair ("eng-crk", "EN→CRK")."""
    if isinstance(pair, dict):
        return pair.get("source"), pair.get("target")
    if isinstance(pair, str):
        key = pair_key(pair)
        if key:
            source, target = key.split(">", 1)
            return source, target
    return None, None


def supplied_values(supplied: dict[str, Any] | None) -> dict[str, str]:
    """The import's parameters that were given (non-empty), by field name."""
    values: dict[str, str] = {}
    for name, parameter in SUPPLIED_FIELDS.items():
        value = (supplied or {}).get(parameter)
        if value is not None and str(value).strip():
            values[name] = str(value).strip()
    return values


def validate_envelope(document: Any, problems: list[Problem], supplied: dict[str, Any] | None = None,
                      layout: str = FileLayout.DATASET, mode: "CorpusMode | None" = None) -> dict[str, Any]:
    """The values the version's columns need, each read from the file where the harness's shapes put it (the
    `dataset` object of the corpus format and the corpus builder, the members of a flat file beside `entries`)
    or, when the file lacks it, from `supplied` (SUPPLIED_FIELDS); every problem added to `problems`."""
    if isinstance(document, dict) and "dataset" in document and not isinstance(document["dataset"], dict):
        problems.append(Problem(_("expected an object, found %(found)s") % {"found": describe(document["dataset"])},
                                field="dataset"))
        return {}
    top = document if isinstance(document, dict) else {}
    inner = top.get("dataset") or {}
    given = supplied_values(supplied)
    strict = corpus_mode(document).strict_ids

    def member(name: str) -> list[Found]:
        return [(f"dataset.{name}", inner.get(name)), (name, top.get(name))]

    def from_provenance(name: str) -> list[Found]:
        return [(f"{path}.{name}", value.get(name)) for path, value in member("provenance") if isinstance(value, dict)]

    name_fallback = inner.get("name")
    fallbacks: dict[str, list[Found]] = {
        # The corpus builder names its dataset (`dataset.name`, e.g. "edtekla-dev-v1") instead of giving an id.
        "id": [("dataset.name", name_fallback)] if isinstance(name_fallback, str)
        and DATASET_ID.match(name_fallback) and len(name_fallback) <= MAX_ID_LENGTH else [],
        # The harness reads a licence the envelope's provenance gives when the envelope gives none.
        "license": from_provenance("license"),
    }
    exact: dict[str, list[Found]] = {
        "id": [("dataset.id", inner.get("id")), ("corpus_id", top.get("corpus_id"))],
        "version": member("version"),
        "language_pair": member("language_pair"),
        "source_language": member("source_language") + member("source_lang"),
        "target_language": member("target_language") + member("target_lang"),
        "created": member("created"),
        "license": member("license"),
    }
    resolved: dict[str, Found] = {}
    for name, parameter in SUPPLIED_FIELDS.items():
        found = first_found(*exact[name])
        if found is not None and name in given and given[name] != str(found[1]):
            problems.append(Problem(
                _("the file gives %(found)s but %(parameter)s gives %(given)s; leave the parameter out or make them "
                  "agree") % {"found": describe(found[1]), "parameter": parameter, "given": describe(given[name])},
                field=found[0], parameter=parameter))
            continue
        if found is None and name in given:
            found = (parameter, given[name])
        if found is None:
            found = first_found(*fallbacks.get(name, []))
        if found is not None:
            resolved[name] = found
    pair = resolved.get("language_pair")
    if pair is not None:
        for name, side in zip(("source_language", "target_language"), pair_sides(pair[1]), strict=True):
            if name not in resolved and isinstance(side, str):
                resolved[name] = (f"{pair[0]}.{name.split('_')[0]}", side)
    if "language_pair" not in resolved and isinstance(resolved.get("source_language", (0, None))[1], str) \
            and isinstance(resolved.get("target_language", (0, None))[1], str):
        resolved["language_pair"] = ("", f"{resolved['source_language'][1]}→{resolved['target_language'][1]}")
    # A pair label follows from the two languages: while one is missing, only the language is asked for.
    languages_missing = not {"source_language", "target_language"} <= resolved.keys()
    for name, parameter in SUPPLIED_FIELDS.items():
        if name == "language_pair" and languages_missing:
            continue
        if name not in resolved and not any(problem.parameter == parameter for problem in problems):
            problems.append(Problem(
                _("not in the file; give it as %(parameter)s: a field of the import page, the option %(option)s of "
                  "the import_corpus command, or the API's parameter %(parameter)s")
                % {"parameter": parameter, "option": option_name(parameter)},
                field=f"dataset.{name}", parameter=parameter))

    fields: dict[str, Any] = {}
    if "id" in resolved:
        where, identifier = resolved["id"]
        if not isinstance(identifier, str) or not identifier.strip() or len(identifier) > MAX_ID_LENGTH:
            problems.append(Problem(_("expected a non-empty string of at most %(limit)s characters, found %(found)s")
                                    % {"limit": MAX_ID_LENGTH, "found": describe(identifier)}, field=where))
        elif not DATASET_ID.match(identifier):
            problems.append(Problem(_("expected letters, digits, '.', '_' and '-' only (e.g. \"edtekla-dev-v1\"), "
                                      "found %(found)s") % {"found": describe(identifier)}, field=where))
        else:
            fields["identifier"] = identifier
    if "version" in resolved:
        where, version = resolved["version"]
        if not isinstance(version, str) or not VERSION.match(version):
            problems.append(Problem(_("expected a version such as \"1.0\" (letters, digits, '.', '_', '+', '-'; "
                                      "at most 50), found %(found)s") % {"found": describe(version)}, field=where))
        else:
            fields["version"] = version
    if "language_pair" in resolved:
        where, pair_value = resolved["language_pair"]
        if isinstance(pair_value, str) and pair_value.strip() and len(pair_value) <= 100:
            fields["language_pair"] = pair_value
        elif isinstance(pair_value, dict) and isinstance(pair_value.get("source"), str) \
                and isinstance(pair_value.get("target"), str):
            fields["language_pair"] = f"{pair_value['source']}→{pair_value['target']}"[:100]
        else:
            problems.append(Problem(_("expected a label such as \"EN→CRK\", found %(found)s")
                                    % {"found": describe(pair_value)}, field=where))
    for name in ("source_language", "target_language"):
        if name not in resolved:
            continue
        where, value = resolved[name]
        if isinstance(value, str) and BCP47.match(value) and len(value) <= 35:
            fields[name] = value
        else:
            problems.append(Problem(_("expected a BCP 47 language code such as \"crk\", found %(found)s")
                                    % {"found": describe(value)}, field=where))
    if "created" in resolved:
        where, created = resolved["created"]
        parsed = parse_iso_date(created) if isinstance(created, str) else None
        if parsed is None:
            problems.append(Problem(_("expected an ISO 8601 date such as \"2026-05-01\", found %(found)s")
                                    % {"found": describe(created)}, field=where))
        else:
            fields["created"] = parsed
    if "license" in resolved:
        where, license_id = resolved["license"]
        if isinstance(license_id, str) and license_id.strip() and len(license_id) <= 100:
            fields["license"] = license_id
        else:
            problems.append(Problem(_("expected an SPDX licence identifier, found %(found)s")
                                    % {"found": describe(license_id)}, field=where))
    provenance = first_found(*member("provenance"))
    if provenance is None:
        if strict:  # the corpus format's envelope requires it (SPEC §3.1); the upstream shapes may leave it out
            problems.append(Problem(_("required field is missing"), field="dataset.provenance"))
        else:
            fields["provenance"] = []
    elif isinstance(provenance[1], dict) or (isinstance(provenance[1], list)
                                             and all(isinstance(tag, (str, dict)) for tag in provenance[1])):
        fields["provenance"] = provenance[1]
    else:
        problems.append(Problem(_("expected a list of provenance tags, found %(found)s")
                                % {"found": describe(provenance[1])}, field=provenance[0]))
    segment = envelope_segment(document)
    mapped = (mode or CorpusMode()).mapped(segment)
    if segment is not None and (not isinstance(mapped, str) or mapped not in CHOICE_VALUES["segment"]):
        where = "dataset.segment" if inner.get("segment") is not None else "segment"
        if isinstance(segment, str):
            problems.append(Problem(unknown_segment_message(segment), field=where, parameter=SEGMENT_MAP,
                                    value=segment))
        else:
            problems.append(Problem(_("unknown value %(found)s; expected one of: %(choices)s")
                                    % {"found": describe(segment), "choices": CHOICE_LISTS["segment"]}, field=where))
    found = (unstorable_text(stored_envelope(document, layout), "dataset" if layout == FileLayout.DATASET else "")
             or unstorable_text(given))
    if found:
        problems.append(Problem(found[1], field=found[0]))
    return fields


def unknown_segment_message(name: str, count: int = 0) -> str:
    """What to do with a segment name that is none of the four: map it (it is never guessed). The example maps it
    to a secret segment: copied as it is, it keeps the entries hidden rather than publishing them."""
    values = {"name": describe(name), "count": count, "choices": CHOICE_LISTS["segment"],
              "example": f"{name[:40]}=held_out"}
    if not count:
        return _("unknown segment %(name)s; map it to one of %(choices)s with segment_map (a field of the import page, "
                 "the option --segment-map of the import_corpus command, or the API's parameter segment_map, e.g. "
                 "%(example)s)") % values
    return ngettext("unknown segment %(name)s in %(count)s entry; map it to one of %(choices)s with segment_map (a "
                    "field of the import page, the option --segment-map of the import_corpus command, or the API's "
                    "parameter segment_map, e.g. %(example)s)",
                    "unknown segment %(name)s in %(count)s entries; map it to one of %(choices)s with segment_map (a "
                    "field of the import page, the option --segment-map of the import_corpus command, or the API's "
                    "parameter segment_map, e.g. %(example)s)", count) % values


def provenance_label(value: Any) -> str:
    """The provenance tag used for filtering: the string itself, or a nested object's type/tag/source (or the
    corpus builder's source_name)."""
    if isinstance(value, str):
        return value[:200]
    if isinstance(value, dict):
        for key in ("type", "tag", "source", "kind", "source_name"):
            if isinstance(value.get(key), str):
                return value[key][:200]
        return json.dumps(value, ensure_ascii=False, sort_keys=True)[:200]
    return ""


def validate_entry(
    position: int, raw: Any, problems: list[Problem], seen_ids: dict[str, int], scan_text: bool = True
) -> ValidEntry | None:
    return validated_entry(position, raw) if check_entry(position, raw, problems, seen_ids, scan_text) else None


@dataclass
class UnknownSegment:
    """A segment name a file uses that is none of the four and that the import does not map: how many entries use
    it, and the first of them."""

    count: int
    entry_index: int
    entry_id: str | None


def check_entry(position: int, raw: Any, problems: list[Problem], seen_ids: dict[str, int], scan_text: bool,
                mode: CorpusMode = CorpusMode(), unknown_segments: dict[str, UnknownSegment] | None = None) -> bool:
    """Whether `raw` is a valid entry, its problems added to `problems` (validate_entry without the ValidEntry,
    which a streamed file builds when it reads the entry again). Its reference may be its `target`; without
    `mode.strict_ids`, an entry without an `id` member has its position as id. A segment name that is none of the
    four is read through `mode.segment_map`; with `unknown_segments`, one the map lacks is collected there (the
    import asks for it once per name) instead of refused at the entry."""
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
    if "id" not in raw and not mode.strict_ids:
        entry_id = str(position)
        if entry_id in seen_ids:
            problem("id", _("duplicate id: this entry has none, so its id is its position, which entry #%(index)s "
                            "already uses") % {"index": seen_ids[entry_id]})
        else:
            seen_ids[entry_id] = position
    elif "id" not in raw or raw_id is None:
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
    for name in ("source", reference_key(raw)):
        value = raw.get(name)
        if name not in raw or value is None:
            problem(name, _("required field is missing"))
        elif not isinstance(value, str):
            problem(name, _("expected a string, found %(found)s") % {"found": describe(value)})
        elif not value.strip():
            problem(name, _("expected non-empty text, found an empty string"))
        elif len(value) > ENTRY_TEXT_LIMIT:
            problem(name, text_too_long(len(value)))
    values: dict[str, str] = {}
    for name, allowed in CHOICE_VALUES.items():
        value = mode.mapped(raw.get(name)) if name == "segment" else raw.get(name)
        if value is None:
            values[name] = ""
        elif name == "segment" and unknown_segments is not None and isinstance(value, str) and value not in allowed:
            seen = unknown_segments.setdefault(value, UnknownSegment(0, position, shown_id))
            seen.count += 1
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
        elif isinstance(value, str) and name in SHORT_TEXT_FIELDS and len(value) > SHORT_TEXT_LIMIT:
            problem(name, _("expected at most %(limit)s characters") % {"limit": SHORT_TEXT_LIMIT})
        elif isinstance(value, str) and len(value) > ENTRY_TEXT_LIMIT:
            problem(name, text_too_long(len(value)))
    found = unstorable_text(raw) if scan_text else None
    if found:
        problem(*found)
    return len(problems) == before


def entry_segment(raw: dict[str, Any], mode: CorpusMode = CorpusMode()) -> str:
    """The segment of a valid entry: its own as the segment map maps it, else the file's (development unless its
    envelope names one)."""
    return mode.mapped(raw.get("segment")) or mode.default_segment


def validated_entry(position: int, raw: dict[str, Any], mode: CorpusMode = CorpusMode()) -> ValidEntry:
    """The ValidEntry of an entry object that validate_entry accepts: read again from a streamed file, it is not
    checked twice. (A choice field it accepts is null or one of the choices, never "".) An entry whose segment name
    the import mapped is stored with the segment it was mapped to, its other members as they came."""
    if isinstance(raw.get("segment"), str) and mode.mapped(raw["segment"]) != raw["segment"]:
        raw = {**raw, "segment": mode.mapped(raw["segment"])}
    return ValidEntry(
        position=position,
        data=raw,
        entry_id=str(raw["id"]) if "id" in raw else str(position),
        segment=entry_segment(raw, mode),
        difficulty=raw.get("difficulty"),
        provenance=provenance_label(raw.get("provenance")),
        register=raw.get("register") or "",
        context=raw.get("context") or "",
        domain=raw.get("domain") or "",
    )


class EntryChecks:
    """Entries validated one at a time (validate_entry), the problems found, and what an import needs of the
    valid ones, so that a file's entries need not all be held at once. `mode` is what the envelope says of them."""

    def __init__(self, mode: CorpusMode = CorpusMode()) -> None:
        self.mode = mode
        self.problems: list[Problem] = []
        self.seen_ids: dict[str, int] = {}
        self.read = 0
        self.valid = 0
        self.unsegmented = 0
        self.segments: set[str] = set()
        self.unknown_segments: dict[str, UnknownSegment] = {}

    def check(self, raw: Any, scan_text: bool) -> bool:
        unknown = sum(seen.count for seen in self.unknown_segments.values())
        valid = check_entry(self.read, raw, self.problems, self.seen_ids, scan_text, self.mode,
                            self.unknown_segments)
        valid = valid and unknown == sum(seen.count for seen in self.unknown_segments.values())
        self.read += 1
        if valid:
            self.valid += 1
            self.segments.add(entry_segment(raw, self.mode))
            self.unsegmented += raw.get("segment") is None
        return valid

    def corpus(self, document: Any, entries: "list[ValidEntry] | StreamedEntries",
               supplied: dict[str, Any] | None = None) -> ValidCorpus:
        """The corpus of `document` (a file's object, or its bare list of entries), whose entries, if a list, were
        all checked; else CorpusFileError listing the envelope's problems, then the entry list's, then the
        entries'."""
        problems: list[Problem] = []
        layout = file_layout(document)
        segment_map_of(supplied, problems)
        envelope_fields = validate_envelope(document, problems, supplied, layout, self.mode)
        entries_raw = document if layout == FileLayout.LIST else document.get("entries")
        if entries_raw is None:
            problems.append(Problem(_("required field is missing"), field="entries"))
        elif not isinstance(entries_raw, list):
            problems.append(Problem(_("expected a list of entries, found %(found)s") % {"found": describe(entries_raw)},
                                    field="entries"))
        elif not self.read:
            problems.append(Problem(_("the corpus has no entries"), field="entries"))
        problems += [Problem(unknown_segment_message(name, seen.count), field="segment", entry_index=seen.entry_index,
                             entry_id=seen.entry_id, parameter=SEGMENT_MAP, value=name)
                     for name, seen in self.unknown_segments.items()]
        problems += self.problems
        if problems:
            raise CorpusFileError(problems)
        warnings = []
        if self.unsegmented and not self.mode.segment_given:
            # English keeps one wording for every count (scripts match it); other languages agree in number.
            warnings.append(ngettext("%(count)s entries have no segment and were filed as development.",
                                     "%(count)s entries have no segment and were filed as development.",
                                     self.unsegmented) % {"count": self.unsegmented})
        return ValidCorpus(envelope=stored_envelope(document, layout, self.mode), envelope_fields=envelope_fields,
                           entries=entries, warnings=warnings, segments=self.segments, layout=layout)


def validate_corpus(document: Any, scan_text: bool = True, supplied: dict[str, Any] | None = None) -> ValidCorpus:
    """Validate a parsed corpus file; raise CorpusFileError listing every problem found. The file is the corpus
    format's object, one of the harness's other objects holding `entries`, or a bare list of entry objects."""
    if not isinstance(document, (dict, list)) or (isinstance(document, list)
                                                   and not any(isinstance(raw, dict) for raw in document)):
        raise CorpusFileError([Problem(_("expected a JSON object with 'dataset' and 'entries', found %(found)s")
                                       % {"found": describe(document)})])
    mode = corpus_mode(document, segment_map_of(supplied, []))
    checks = EntryChecks(mode)
    entries: list[ValidEntry] = []
    listed = document if isinstance(document, list) else document.get("entries")
    if isinstance(listed, list):
        for position, raw in enumerate(listed):
            if checks.check(raw, scan_text):
                entries.append(validated_entry(position, raw, mode))
    return checks.corpus(document, entries, supplied)


# ---------------------------------------------------------------------------------------------------------
# Reading a file an entry at a time
# ---------------------------------------------------------------------------------------------------------

# json.loads's reading of a corpus file (decode_corpus_bytes), applied value by value.
CORPUS_DECODER = json.JSONDecoder(parse_constant=refuse_constant, object_pairs_hook=refuse_duplicate_keys)
PLAIN_DECODER = json.JSONDecoder()


class StreamedEntries:
    """The entries of a valid corpus file, read from its bytes again each time they are iterated: by a plain
    decoder, quicker than CORPUS_DECODER's, which refused any repeated key on the first reading."""

    def __init__(self, data: bytes, count: int, mode: CorpusMode = CorpusMode()):
        self._data = data
        self._count = count
        self._mode = mode

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[ValidEntry]:
        reader = JsonObjectReader(self._data, PLAIN_DECODER)
        for name in reader.names():
            if name == "entries" and reader.at("["):
                for position, raw in enumerate(reader.elements()):
                    yield validated_entry(position, raw, self._mode)
            else:
                reader.skip()


def read_corpus(data: bytes, max_bytes: int, supplied: dict[str, Any] | None = None) -> ValidCorpus:
    """decode_corpus_bytes and validate_corpus, an entry at a time: the file's text and its entries are never
    held whole (a 30 MB file took 160 MiB so), and the corpus's entries are read from `data` again when used.
    A file the streaming reader leaves aside (NotStreamed) is parsed whole, so that its problem is worded and
    located as before; every problem of a file that reads as JSON is found in the same order as before."""
    check_file_size(data, max_bytes)
    try:
        return _read_streamed(data, supplied)
    except NotStreamed:
        pass
    parsed, scan_text = decode_corpus_bytes(data, max_bytes)
    return validate_corpus(parsed, scan_text=scan_text, supplied=supplied)


def _check_streamed_entries(data: bytes, checks: EntryChecks) -> None:
    """Check the entries of `data` again, the other members stepped over (_read_streamed)."""
    reader = JsonObjectReader(data, CORPUS_DECODER)
    for name in reader.names():
        if name == "entries" and reader.at("["):
            for raw in reader.elements():
                checks.check(raw, scan_text=reader.holds(UNSTORABLE_ESCAPE))
        else:
            reader.skip()


def _read_streamed(data: bytes, supplied: dict[str, Any] | None = None) -> ValidCorpus:
    """Only an entry's own text can carry a \\u0000 or surrogate escape into it, so each entry is scanned
    for unstorable text when its own text holds one (decode_corpus_bytes asks the whole file). A bare list of
    entries is left to the whole parse (NotStreamed). Entries are checked as the members read before them say
    (CorpusMode); when a member after them says otherwise (a `dataset` after the entries), they are read again."""
    reader = JsonObjectReader(data, CORPUS_DECODER)
    checks: EntryChecks | None = None
    document: dict[str, Any] = {}
    segment_map = segment_map_of(supplied, [])
    for name in reader.names():
        if name == "entries" and reader.at("["):
            checks = EntryChecks(corpus_mode(document, segment_map))
            document[name] = []  # its elements are checked as they are read
            for raw in reader.elements():
                checks.check(raw, scan_text=reader.holds(UNSTORABLE_ESCAPE))
        else:
            document[name] = reader.value()
    mode = corpus_mode(document, segment_map)
    if checks is None:
        checks = EntryChecks(mode)
    elif checks.mode != mode:
        checks = EntryChecks(mode)
        _check_streamed_entries(data, checks)
    return checks.corpus(document, StreamedEntries(data, checks.valid, mode), supplied)
