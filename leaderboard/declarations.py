"""A method's declaration of the public corpus entries it used (benchmark specification §9.3): whether the
development (or diagnostic) entries went into few-shot prompts, fine-tuning or retrieval, and which. A run card carries
it as its `development_data` member; a method submission as form fields. The rules are in docs/run-cards.md,
"Declarations". Every problem is written in the language of the request being served (a developer reads it on the
submission form as on the API)."""

from typing import Any

from django.utils.translation import gettext as _

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
        return None, [FieldProblem(path, _('expected an object {"used": true|false, ...}, found %(found)s')
                                    % {"found": describe(value)})]
    problems: list[FieldProblem] = []
    unknown = sorted(set(value) - {"used", "uses", "entries", "notes"})
    if unknown:
        problems.append(FieldProblem(f"{path}.{unknown[0]}", _("unknown member; expected used, uses, entries, "
                                                               "notes")))
    used = value.get("used")
    if not isinstance(used, bool):
        problems.append(FieldProblem(f"{path}.used", _("expected true or false, found %(found)s")
                                     % {"found": describe(used)}))
        return None, problems
    notes = value.get("notes", "")
    if not isinstance(notes, str) or len(notes) > NOTES_MAX_LENGTH:
        problems.append(FieldProblem(f"{path}.notes", _("expected text of at most %(limit)s characters")
                                     % {"limit": NOTES_MAX_LENGTH}))
    if not used:
        for name in ("uses", "entries"):
            if value.get(name) not in (None, [], ""):
                problems.append(FieldProblem(f"{path}.{name}", _("must be absent when used is false")))
        return ({"used": False, "notes": notes} if not problems else None), problems
    uses = value.get("uses")
    if not isinstance(uses, list) or not uses:
        problems.append(FieldProblem(f"{path}.uses", _("expected a list of one or more of %(uses)s, found %(found)s")
                                     % {"uses": ", ".join(USES), "found": describe(uses)}))
    else:
        for index, use in enumerate(uses):
            if use not in USES:
                problems.append(FieldProblem(f"{path}.uses[{index}]", _("expected one of %(uses)s, found %(found)s")
                                             % {"uses": ", ".join(USES), "found": describe(use)}))
            elif uses.index(use) != index:
                problems.append(FieldProblem(f"{path}.uses[{index}]", _("%(use)s is named twice") % {"use": use}))
    entries = value.get("entries")
    if entries != "all":
        if not isinstance(entries, list) or not entries:
            problems.append(FieldProblem(f"{path}.entries", _('expected "all" or a list of the entry ids used, '
                                                              "found %(found)s") % {"found": describe(entries)}))
        else:
            seen: dict[str, int] = {}
            for index, entry_id in enumerate(entries):
                if isinstance(entry_id, bool) or not isinstance(entry_id, (str, int)):
                    problems.append(FieldProblem(f"{path}.entries[{index}]", _(
                        "expected an entry id (a string or an integer), found %(found)s")
                        % {"found": describe(entry_id)}))
                elif str(entry_id) in seen:
                    problems.append(FieldProblem(f"{path}.entries[{index}]",
                                                 _("duplicate: entries[%(index)s] names the same entry")
                                                 % {"index": seen[str(entry_id)]}))
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
    return [FieldProblem(f"{path}.entries[{index}]", _("no development or diagnostic entry %(entry)s in %(dataset)s "
                                                       "%(version)s") % {"entry": repr(entry_id[:60]),
                                                                         "dataset": version.dataset.identifier,
                                                                         "version": version.version})
            for index, entry_id in enumerate(named) if entry_id not in public]
