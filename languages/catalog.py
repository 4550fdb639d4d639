"""The interface strings a community can translate: read from the shipped French catalogs, which list every
string with where it appears. Only strings a speaker meets while rating are offered (RATER_FACING)."""

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import polib
from django.conf import settings

# Where a string must appear (a path prefix in the catalog's `#:` references) to be offered for translation.
RATER_FACING = (
    "templates/base.html", "templates/home.html", "templates/includes/", "templates/languages/choose.html",
    "templates/allauth/", "templates/review/rate.html", "templates/review/queue.html", "templates/review/done.html",
    "templates/review/not_serving.html", "templates/review/instructions.html", "templates/review/rating_scale.html",
    "templates/review/rating_label.html", "templates/review/service_worker.js", "review/rating_texts.py",
    "static/js/",
)
REFERENCE_LOCALE = "fr_CA"
DOMAINS = ("django", "djangojs")


@dataclass(frozen=True)
class SourceString:
    """One English interface string, with the French translation shown beside it as a second reference."""

    msgctxt: str
    msgid: str
    msgid_plural: str
    french: str
    french_plural: str
    occurrences: tuple[tuple[str, int], ...]
    note: str

    @property
    def where(self) -> str:
        return ", ".join(f"{file}:{line}" for file, line in self.occurrences)

    @property
    def key(self) -> tuple[str, str]:
        return (self.msgctxt, self.msgid)


def catalog_paths() -> list[Path]:
    base = Path(settings.LOCALE_PATHS[0]) / REFERENCE_LOCALE / "LC_MESSAGES"
    return [base / f"{domain}.po" for domain in DOMAINS]


def rater_facing_strings() -> tuple[SourceString, ...]:
    """Read again only when a catalog file changed (a deployment), not per request."""
    paths = catalog_paths()
    return _read(tuple((str(path), path.stat().st_mtime_ns if path.exists() else 0) for path in paths))


@lru_cache(maxsize=2)
def _read(files: tuple[tuple[str, int], ...]) -> tuple[SourceString, ...]:
    found: dict[tuple[str, str], SourceString] = {}
    for path, mtime in files:
        if not mtime:
            continue
        for entry in polib.pofile(path):
            occurrences = tuple((file, int(line or 0)) for file, line in entry.occurrences)
            if entry.obsolete or not any(file.startswith(RATER_FACING) for file, _ in entry.occurrences):
                continue
            plural = entry.msgstr_plural or {}
            string = SourceString(
                msgctxt=entry.msgctxt or "", msgid=entry.msgid, msgid_plural=entry.msgid_plural or "",
                french=plural.get(0, entry.msgstr), french_plural=plural.get(1, ""), occurrences=occurrences,
                note=entry.comment or "",
            )
            found.setdefault(string.key, string)
    return tuple(sorted(found.values(), key=lambda string: (string.occurrences[:1], string.msgid)))
