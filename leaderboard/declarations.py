"""A method's declaration of the public corpus entries it used (benchmark specification §9.3): whether the
development (or diagnostic) entries went into few-shot prompts, fine-tuning or retrieval, and which. A run card carries
it as its `development_data` member; a method submission as form fields. The rules are in docs/run-cards.md,
"Declarations"."""

from typing import Any

from common.problems import FieldProblem
from corpus.models import DatasetVersion, Entry
from corpus.selectors import public_segment
from corpus.validation import describe

USES = ("few-shot", "fine-tuning", "retrieval", "other")
NOTES_MAX_LENGTH = 500
MEMBER = "development_data"


def declaration_problems(value: Any, path: str = MEMBER) -> tuple[dict[str, Any] | None, list[FieldProblem]]:
    """(the declaration as it is stored, its problems): `{"used": false}`, or `{"used": true, "uses": [...],
    "entries": "all" | [entry ids], "notes": "..."}` with at least one use and entries named."""
    if not isinstance(value, dict):
        return None, [FieldProblem(path, f"expected an object {{\"used\": true|false, ...}}, found {describe(value)}")]
    problems: list[FieldProblem] = []
    unknown = sorted(set(value) - {"used", "uses", "entries", "notes"})
    if unknown:
        problems.append(FieldProblem(f"{path}.{unknown[0]}", "unknown member; expected used, uses, entries, notes"))
    used = value.get("used")
    if not isinstance(used, bool):
        problems.append(FieldProblem(f"{path}.used", f"expected true or false, found {describe(used)}"))
        return None, problems
    notes = value.get("notes", "")
    if not isinstance(notes, str) or len(notes) > NOTES_MAX_LENGTH:
        problems.append(FieldProblem(f"{path}.notes", f"expected text of at most {NOTES_MAX_LENGTH} characters"))
    if not used:
        for name in ("uses", "entries"):
            if value.get(name) not in (None, [], ""):
                problems.append(FieldProblem(f"{path}.{name}", "must be absent when used is false"))
        return ({"used": False, "notes": notes} if not problems else None), problems
    uses = value.get("uses")
    if not isinstance(uses, list) or not uses:
        problems.append(FieldProblem(f"{path}.uses", f"expected a list of one or more of {', '.join(USES)}, found "
                                                     f"{describe(uses)}"))
    else:
        for index, use in enumerate(uses):
            if use not in USES:
                problems.append(FieldProblem(f"{path}.uses[{index}]", f"expected one of {', '.join(USES)}, found "
                                                                      f"{describe(use)}"))
            elif uses.index(use) != index:
                problems.append(FieldProblem(f"{path}.uses[{index}]", f"{use} is named twice"))
    entries = value.get("entries")
    if entries != "all":
        if not isinstance(entries, list) or not entries:
            problems.append(FieldProblem(f"{path}.entries", "expected \"all\" or a list of the entry ids used, found "
                                                            f"{describe(entries)}"))
        else:
            seen: dict[str, int] = {}
            for index, entry_id in enumerate(entries):
                if isinstance(entry_id, bool) or not isinstance(entry_id, (str, int)):
                    problems.append(FieldProblem(f"{path}.entries[{index}]", "expected an entry id (a string or an "
                                                                            f"integer), found {describe(entry_id)}"))
                elif str(entry_id) in seen:
                    problems.append(FieldProblem(f"{path}.entries[{index}]",
                                                 f"duplicate: entries[{seen[str(entry_id)]}] names the same entry"))
                else:
                    seen[str(entry_id)] = index
            entries = list(seen)
    if problems:
        return None, problems
    return {"used": True, "uses": uses, "entries": entries, "notes": notes}, []


def unknown_entries(declaration: dict[str, Any], version: DatasetVersion, path: str = MEMBER) -> list[FieldProblem]:
    """The declared entries that are not public (development or diagnostic) entries of the version: a secret entry
    is named like a missing one, so the answer tells nothing of the secret segments."""
    named = declaration.get("entries")
    if not declaration.get("used") or not isinstance(named, list):
        return []
    public = set(Entry.objects.filter(public_segment(), version=version, entry_id__in=named)
                 .values_list("entry_id", flat=True))
    return [FieldProblem(f"{path}.entries[{index}]", f"no development or diagnostic entry {entry_id[:60]!r} in "
                                                     f"{version.dataset.identifier} {version.version}")
            for index, entry_id in enumerate(named) if entry_id not in public]
