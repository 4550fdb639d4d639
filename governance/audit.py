"""The tamper-evident audit log: append an event, verify the chain."""

import hashlib
import json
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from .models import AuditEvent, Organization

GENESIS = "0" * 64
# One writer at a time extends the chain (PostgreSQL advisory lock; SQLite serialises writes anyway).
CHAIN_LOCK = 7_306_231


def event_hash(previous_hash: str, organization_id, actor_id, action: str, object_type: str, object_id: str,
               details: dict, created_at) -> str:
    payload = {
        "previous_hash": previous_hash, "organization": organization_id, "actor": actor_id, "action": action,
        "object_type": object_type, "object_id": object_id, "details": details,
        "created_at": created_at.isoformat(timespec="microseconds"),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


@transaction.atomic
def record_event(action: str, *, actor=None, organization: Organization | None = None, obj=None,
                 details: dict | None = None) -> AuditEvent:
    """Append one event to the chain, inside the caller's transaction (it vanishes if that rolls back)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CHAIN_LOCK])
    previous = AuditEvent.objects.order_by("-id").values_list("hash", flat=True).first() or GENESIS
    details = details or {}
    object_type = obj._meta.label if obj is not None else ""
    object_id = str(obj.pk) if obj is not None else ""
    created_at = timezone.now()
    actor_id = actor.pk if actor is not None and actor.is_authenticated else None
    organization_id = organization.pk if organization is not None else None
    event = AuditEvent(
        organization_id=organization_id, actor_id=actor_id, action=action, object_type=object_type,
        object_id=object_id, details=details, created_at=created_at, previous_hash=previous,
        hash=event_hash(previous, organization_id, actor_id, action, object_type, object_id, details, created_at),
    )
    event.save()
    return event


@dataclass(frozen=True)
class ChainBreak:
    event_id: int
    reason: str


def verify_chain() -> tuple[int, ChainBreak | None]:
    """Walk the log in order; return how many events were checked and the first broken link, if any."""
    expected_previous = GENESIS
    checked = 0
    for event in AuditEvent.objects.order_by("id").iterator(chunk_size=2000):
        if event.previous_hash != expected_previous:
            return checked, ChainBreak(event.pk, "previous_hash does not name the event before it "
                                                 "(an event was removed or inserted)")
        recomputed = event_hash(event.previous_hash, event.organization_id, event.actor_id, event.action,
                                event.object_type, event.object_id, event.details, event.created_at)
        if recomputed != event.hash:
            return checked, ChainBreak(event.pk, "its content no longer matches its hash (it was altered)")
        expected_previous = event.hash
        checked += 1
    return checked, None


def record_secret_access(user, shown: dict[int, int], where: str) -> None:
    """One event per request that showed secret entries (or MT output for them): how many, and where.
    `shown` maps organization id → number of secret entries of its corpora in the response."""
    for organization_id, count in shown.items():
        if count:
            record_event("secret_entries.shown", actor=user, organization=Organization(pk=organization_id),
                         details={"count": count, "where": where[:200]})
