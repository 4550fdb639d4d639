"""The reads that show entries and record, in the same call, the audit event of the secret ones among them
(`secret_entries.shown`): no other module records or counts shown secret entries."""

from collections.abc import Iterable

from django.db.models import QuerySet

from organizations.audit import record_secret_access
from organizations.permissions import permitted

from ..label_selectors import refuse_blocked_export
from ..models import SECRET_SEGMENTS, DatasetVersion, Entry
from .exports import export_chunks, exported_entries


def shown_entries(user, entries: Iterable[Entry], *, where: str) -> list[Entry]:
    """THE way a response shows entries: they are fetched and the audit event of the secret ones among them
    (`secret_entries.shown`) is recorded in this one call, so no page or API answer shows secret text without its
    event. `where` is the request path."""
    shown = list(entries)
    record_secret_access(user, secret_entries_shown(shown), where)
    return shown


def streamed_entries(user, version: DatasetVersion, entries: QuerySet[Entry], *, where: str) -> QuerySet[Entry]:
    """The same for an export about to be streamed or written whole: the event counts its secret entries (one
    count query, secret readers only) before the queryset is handed back."""
    record_secret_access(user, secret_entries_in(user, version, entries), where)
    return entries


def shown_export_chunks(user, version: DatasetVersion, segments: list[str] | None, *, where: str):
    """The JSON export's chunks, its secret entries counted in the audit event first (see `streamed_entries`). Refused
    (LabelReleaseRequired) to anyone but the steward's own readers while restrictive labels wait for their release."""
    refuse_blocked_export(user, version)
    streamed_entries(user, version, exported_entries(user, version, segments), where=where)
    return export_chunks(user, version, segments)


def secret_entries_shown(entries) -> dict[int, int]:
    """Organization id → how many of these (already fetched) entries are secret, for the audit log."""
    shown: dict[int, int] = {}
    for entry in entries:
        if entry.is_secret:
            organization_id = entry.version.dataset.organization_id
            shown[organization_id] = shown.get(organization_id, 0) + 1
    return shown


def secret_entries_in(user, version: DatasetVersion, entries: QuerySet[Entry]) -> dict[int, int]:
    """The same for a queryset about to be streamed (one count query, only for secret readers)."""
    if not permitted(user, "dataset.see_secret", version.dataset):
        return {}
    return {version.dataset.organization_id: entries.filter(segment__in=SECRET_SEGMENTS).count()}
