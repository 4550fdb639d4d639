"""Entries narrowed by the list's filters, their neighbours in the text they belong to, and counts per value."""

import operator
from collections.abc import Iterable
from dataclasses import dataclass
from functools import reduce

from django.db.models import Count, Q, QuerySet

from ..models import SECRET_SEGMENTS, Entry
from ..search import fold


def distribution(entries: QuerySet[Entry], field: str) -> list[tuple[str, int]]:
    """Counts of entries per value of `field`, most frequent first."""
    rows = entries.order_by().values(field).annotate(n=Count("pk")).order_by("-n", field)
    return [(row[field] if row[field] not in (None, "") else "—", row["n"]) for row in rows]


def filter_entries(entries: QuerySet[Entry], filters: dict) -> QuerySet[Entry]:
    """Narrow already-visible entries by the entry filters (segment, difficulty, domain, register,
    provenance, and `q`: text in source, reference or notes, diacritics and case optional (corpus.search),
    or an exact id)."""
    for name in ("segment", "domain", "register", "provenance"):
        if filters.get(name):
            entries = entries.filter(**{name: filters[name]})
    if filters.get("difficulty") is not None:
        entries = entries.filter(difficulty=filters["difficulty"])
    if filters.get("q"):
        query = filters["q"]
        entries = entries.filter(Q(search_text__contains=fold(query)) | Q(entry_id=query))
    return entries


@dataclass(frozen=True)
class Neighbour:
    """A sentence of the same text (`Entry.document_id`) next to an entry: what a reader may be shown as context."""

    entry_id: int
    source: str
    is_secret: bool


def document_neighbours(entries: Iterable[Entry], *, before: int = 2,
                        after: int = 1) -> dict[int, tuple[list[Neighbour], list[Neighbour]]]:
    """Entry pk → the sentences just before and just after it in its text, in order (entries sharing a
    `document_id` in one version, by position): one query for any number of entries, none when no entry names a
    text. Who may read a secret neighbour is the caller's rule."""
    entries = list(entries)
    wanted = {(entry.version_id, entry.document_id) for entry in entries if entry.document_id}
    if not wanted:
        return {}
    texts: dict[tuple[int, str], list[tuple[int, int, str, str]]] = {}
    rows = (Entry.objects.filter(reduce(operator.or_, (Q(version_id=version, document_id=document)
                                                       for version, document in wanted)))
            .order_by("position").values_list("version_id", "document_id", "pk", "position", "source", "segment"))
    for version, document, pk, position, source, segment in rows:
        texts.setdefault((version, document), []).append((pk, position, source, segment))
    found = {}
    for entry in entries:
        text = texts.get((entry.version_id, entry.document_id)) if entry.document_id else None
        if not text:
            continue
        at = next(index for index, row in enumerate(text) if row[0] == entry.pk)
        lines = [Neighbour(pk, source, segment in SECRET_SEGMENTS) for pk, _, source, segment in text]
        found[entry.pk] = (lines[max(0, at - before):at], lines[at + 1:at + 1 + after])
    return found
