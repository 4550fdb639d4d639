"""Parse and validate a corpus file (SPEC §3.1–3.2), collecting every problem before anything is stored."""

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

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
            where.append(f"line {self.line}, column {self.column}")
        if self.entry_index is not None:
            where.append(f"entry #{self.entry_index}")
        if self.entry_id is not None:
            where.append(f"id {self.entry_id}")
        if self.field:
            where.append(f"field '{self.field}'")
        return f"{', '.join(where)}: {self.message}" if where else self.message


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
    envelope: dict[str, Any]
    envelope_fields: dict[str, Any]
    entries: list[ValidEntry]
    warnings: list[str] = field(default_factory=list)


def describe(value: Any) -> str:
    """A short, safe rendering of a found value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        shown = repr(value) if not isinstance(value, int) or value.bit_length() < 128 else "a huge integer"
        return shown if len(shown) <= 40 else shown[:37] + "…"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "…"
        return json.dumps(shown, ensure_ascii=False)
    return {dict: "an object", list: "a list"}.get(type(value), type(value).__name__)


def unavailable_dataset_id(identifier: str, organization_name: str) -> Problem:
    """The one refusal of a dataset id the importing organization may not use. It says nothing of the dataset
    behind the id (who stewards it, whether it is public, withdrawn or private), so that it reads the same
    whichever it is, through the page, the API and the import_corpus command."""
    return Problem(f"dataset id {identifier!r} is not available to {organization_name}; choose another dataset id",
                   field="dataset.id")


def refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number; write a number or null")


def refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json.loads keeps the last of duplicate keys silently; a corpus file must not be ambiguous."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {duplicate!r} appears twice in one object")
    return result


def decode_corpus_bytes(data: bytes, max_bytes: int) -> tuple[Any, bool]:
    """Check size and encoding, then parse JSON; each failure is one located Problem.

    Also says whether the text holds a \\u0000 or surrogate escape, the only ways JSON can carry text
    that cannot be stored, so that the costly per-string scan runs only for such files.
    """
    if len(data) > max_bytes:
        raise CorpusFileError([Problem(f"the file is {len(data):,} bytes; the limit is {max_bytes:,} bytes")])
    if not data.strip():
        raise CorpusFileError([Problem("the file is empty; expected a JSON object with 'dataset' and 'entries'")])
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise CorpusFileError(
            [Problem(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
                     "save it as UTF-8", line=line, column=column)]
        ) from None
    try:
        parsed = json.loads(text, parse_constant=refuse_constant, object_pairs_hook=refuse_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise CorpusFileError(
            [Problem(f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno)]
        ) from None
    except ValueError as exc:
        raise CorpusFileError([Problem(f"invalid JSON: {exc}")]) from None
    except RecursionError:
        raise CorpusFileError([Problem("invalid JSON: nested too deeply")]) from None
    return parsed, bool(UNSTORABLE_ESCAPE.search(text))


def unstorable_text(value: Any) -> str | None:
    """Why a string can't be stored faithfully (NUL, unpaired surrogate), scanning nested values."""
    if isinstance(value, str):
        if "\x00" in value:
            return "contains a NUL character (\\u0000), which cannot be stored"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "contains an unpaired UTF-16 surrogate escape, which is not valid Unicode text"
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
        problems.append(Problem(f"expected an object, found {describe(envelope)}", field="dataset"))
        return {}
    fields: dict[str, Any] = {}
    for name in ENVELOPE_REQUIRED:
        if name not in envelope or envelope[name] is None:
            problems.append(Problem("required field is missing", field=f"dataset.{name}"))
    identifier = envelope.get("id")
    if identifier is not None:
        if not isinstance(identifier, str) or not identifier.strip() or len(identifier) > MAX_ID_LENGTH:
            problems.append(Problem(f"expected a non-empty string of at most {MAX_ID_LENGTH} characters, "
                                    f"found {describe(identifier)}", field="dataset.id"))
        elif not DATASET_ID.match(identifier):
            problems.append(Problem(f"expected letters, digits, '.', '_' and '-' only (e.g. \"edtekla-dev-v1\"), "
                                    f"found {describe(identifier)}", field="dataset.id"))
        else:
            fields["identifier"] = identifier
    version = envelope.get("version")
    if version is not None:
        if not isinstance(version, str) or not VERSION.match(version):
            problems.append(Problem("expected a version such as \"1.0\" (letters, digits, '.', '_', '+', '-'; "
                                    f"at most 50), found {describe(version)}", field="dataset.version"))
        else:
            fields["version"] = version
    pair = envelope.get("language_pair")
    if pair is not None:
        if isinstance(pair, str) and pair.strip() and len(pair) <= 100:
            fields["language_pair"] = pair
        elif isinstance(pair, dict) and isinstance(pair.get("source"), str) and isinstance(pair.get("target"), str):
            fields["language_pair"] = f"{pair['source']}→{pair['target']}"[:100]
        else:
            problems.append(Problem(f"expected a label such as \"EN→CRK\", found {describe(pair)}",
                                    field="dataset.language_pair"))
    for name in ("source_language", "target_language"):
        value = envelope.get(name)
        if value is None:
            continue
        if isinstance(value, str) and BCP47.match(value) and len(value) <= 35:
            fields[name] = value
        else:
            problems.append(Problem(f"expected a BCP 47 language code such as \"crk\", found {describe(value)}",
                                    field=f"dataset.{name}"))
    created = envelope.get("created")
    if created is not None:
        parsed = parse_iso_date(created) if isinstance(created, str) else None
        if parsed is None:
            problems.append(Problem(f"expected an ISO 8601 date such as \"2026-05-01\", found {describe(created)}",
                                    field="dataset.created"))
        else:
            fields["created"] = parsed
    license_id = envelope.get("license")
    if license_id is not None:
        if isinstance(license_id, str) and license_id.strip() and len(license_id) <= 100:
            fields["license"] = license_id
        else:
            problems.append(Problem(f"expected an SPDX licence identifier, found {describe(license_id)}",
                                    field="dataset.license"))
    provenance = envelope.get("provenance")
    if provenance is not None:
        if isinstance(provenance, list) and all(isinstance(tag, (str, dict)) for tag in provenance):
            fields["provenance"] = provenance
        else:
            problems.append(Problem(f"expected a list of provenance tags, found {describe(provenance)}",
                                    field="dataset.provenance"))
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
    if not isinstance(raw, dict):
        problems.append(Problem(f"expected an object, found {describe(raw)}", entry_index=position))
        return None
    before = len(problems)
    raw_id = raw.get("id")
    shown_id = None if raw_id is None else str(raw_id)[:60]

    def problem(field_name: str, message: str) -> None:
        problems.append(Problem(message, field=field_name, entry_index=position, entry_id=shown_id))

    entry_id = None
    if "id" not in raw or raw_id is None:
        problem("id", "required field is missing")
    elif isinstance(raw_id, bool) or not isinstance(raw_id, (int, str)):
        problem("id", f"expected an integer (or an identifier string), found {describe(raw_id)}")
    elif (isinstance(raw_id, str) and not raw_id.strip()) or len(str(raw_id)) > MAX_ID_LENGTH:
        problem("id", f"expected a non-empty identifier of at most {MAX_ID_LENGTH} characters")
    else:
        entry_id = str(raw_id)
        if entry_id in seen_ids:
            earlier = seen_ids[entry_id]
            problem("id", f"duplicate id: entry #{earlier} already uses it" if earlier >= 0
                    else "duplicate id: another entry of this version already uses it")
        else:
            seen_ids[entry_id] = position
    for name in ("source", "reference"):
        value = raw.get(name)
        if name not in raw or value is None:
            problem(name, "required field is missing")
        elif not isinstance(value, str):
            problem(name, f"expected a string, found {describe(value)}")
        elif not value.strip():
            problem(name, "expected non-empty text, found an empty string")
    values: dict[str, str] = {}
    for name, allowed in CHOICE_VALUES.items():
        value = raw.get(name)
        if value is None:
            values[name] = ""
        elif not isinstance(value, str) or value not in allowed:
            problem(name, f"unknown value {describe(value)}; expected one of: {CHOICE_LISTS[name]}")
        else:
            values[name] = value
    difficulty = raw.get("difficulty")
    if difficulty is not None and (isinstance(difficulty, bool) or not isinstance(difficulty, int)
                                   or not 1 <= difficulty <= 5):
        problem("difficulty", f"expected an integer from 1 to 5, found {describe(difficulty)}")
    provenance = raw.get("provenance")
    if provenance is not None and not isinstance(provenance, (str, dict)):
        problem("provenance", f"expected a string (or an object), found {describe(provenance)}")
    for name in OPTIONAL_TEXT_FIELDS:
        value = raw.get(name)
        if value is not None and not isinstance(value, str):
            problem(name, f"expected a string, found {describe(value)}")
    if isinstance(raw.get("variant_class"), str) and len(raw["variant_class"]) > 200:
        problem("variant_class", "expected at most 200 characters")
    reason = unstorable_text(raw) if scan_text else None
    if reason:
        problem("", reason)
    if len(problems) > before:
        return None
    return ValidEntry(
        position=position,
        data=raw,
        entry_id=entry_id,
        segment=values["segment"] or Segment.DEVELOPMENT,
        difficulty=difficulty,
        provenance=provenance_label(provenance),
        register=values["register"],
        context=values["context"],
        domain=values["domain"],
    )


def validate_corpus(document: Any, scan_text: bool = True) -> ValidCorpus:
    """Validate a parsed corpus file; raise CorpusFileError listing every problem found."""
    problems: list[Problem] = []
    if not isinstance(document, dict):
        raise CorpusFileError([Problem(f"expected a JSON object with 'dataset' and 'entries', "
                                       f"found {describe(document)}")])
    if "dataset" not in document:
        problems.append(Problem("required field is missing", field="dataset"))
    envelope_fields = validate_envelope(document.get("dataset"), problems) if "dataset" in document else {}
    entries_raw = document.get("entries")
    entries: list[ValidEntry] = []
    if entries_raw is None:
        problems.append(Problem("required field is missing", field="entries"))
    elif not isinstance(entries_raw, list):
        problems.append(Problem(f"expected a list of entries, found {describe(entries_raw)}", field="entries"))
    elif not entries_raw:
        problems.append(Problem("the corpus has no entries", field="entries"))
    else:
        seen_ids: dict[str, int] = {}
        for position, raw in enumerate(entries_raw):
            valid = validate_entry(position, raw, problems, seen_ids, scan_text)
            if valid is not None:
                entries.append(valid)
    if problems:
        raise CorpusFileError(problems)
    warnings = []
    unsegmented = sum(1 for entry in entries if entry.data.get("segment") is None)
    if unsegmented:
        warnings.append(f"{unsegmented} entries have no segment and were filed as development.")
    return ValidCorpus(envelope=document["dataset"], envelope_fields=envelope_fields, entries=entries,
                       warnings=warnings)
