"""The tamper-evident audit log: append an event, verify the chains (one per organization, one site-wide)."""

import hashlib
import json
from contextvars import ContextVar
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from accounts.authentication import token_of
from common.compiled import insert
from common.responses import private

from .models import SITE_CHAIN, AuditAction, AuditEvent, Organization, PendingSecretView, chain_of

GENESIS = "0" * 64
# Models that moved out of the app that created them (governance; review's pay and credit ledger) keep the object
# type the log has always named them by, so that one kind of object is never labelled two ways in the chain
# (docs/architecture.md).
LOGGED_AS = {f"{app}.{model}": f"{logged_app}.{model}" for app, logged_app, models in [
    ("organizations", "governance", ("Organization", "Membership", "Invitation", "AuditEvent")),
    ("submissions", "governance", ("ParticipationTerms", "TermsAcceptance", "MethodSubmission", "SubmissionEvent",
                                   "OwnershipTransfer")),
    ("ledger", "review", ("PayPolicy", "Payment", "SpeakerCredit")),
] for model in models}
# One writer at a time extends a chain (PostgreSQL advisory lock keyed by the chain's organization, 0 for the site
# chain; SQLite serialises writes anyway). Writers of different organizations never wait for each other.
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
def record_event(action: AuditAction, *, actor=None, organization: Organization | None = None, obj=None,
                 details: dict | None = None) -> AuditEvent:
    """Append one event to the chain, inside the caller's transaction (it vanishes if that rolls back)."""
    action = AuditAction(action)  # an action the log does not know is a programming error (ValueError)
    object_type = LOGGED_AS.get(obj._meta.label, obj._meta.label) if obj is not None else ""
    object_id = str(obj.pk) if obj is not None else ""
    actor_id = actor.pk if actor is not None and actor.is_authenticated else None
    event = AuditEvent(organization_id=organization.pk if organization is not None else None, actor_id=actor_id,
                       action=action, object_type=object_type, object_id=object_id, details=details or {},
                       created_at=timezone.now())
    _append(event.organization_id, [event])
    return event


def _append(organization_id: int | None, events: list[AuditEvent]) -> None:
    """Chain `events` (in order, each with its time) after the last event of the organization's chain and store them:
    one writer at a time per chain (the caller's transaction holds the lock until it ends)."""
    chain = chain_of(organization_id)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [CHAIN_LOCK, organization_id or 0])
    previous = AuditEvent.objects.filter(chain=chain).order_by("-id").values_list("hash", flat=True).first() or GENESIS
    for event in events:
        event.chain, event.previous_hash = chain, previous
        event.hash = previous = event_hash(previous, organization_id, event.actor_id, event.action,
                                           event.object_type, event.object_id, event.details, event.created_at)
    if len(events) == 1:
        events[0].save()
    else:
        AuditEvent.objects.bulk_create(events)


SEAL_BATCH = 1000
"""Pending secret views chained per transaction: a batch holds its chains' locks briefly."""


def seal_secret_views(organization: Organization | None = None) -> int:
    """Chain the pending secret views (`PendingSecretView`: all, or the organization's) into the audit log as
    `secret_entries.shown` events, oldest first, each batch in one transaction that also removes its rows;
    how many were sealed. Concurrent sealers take different rows (SKIP LOCKED) and wait for each other's chain."""
    pending = PendingSecretView.objects.order_by("id")
    if organization is not None:
        pending = pending.filter(organization=organization)
    if not pending.exists():  # the common case of a reader: one query, no transaction, no lock
        return 0
    sealed = 0
    while True:
        with transaction.atomic():
            batch = list(pending.select_for_update(skip_locked=True)[:SEAL_BATCH])
            if not batch:
                return sealed
            by_organization: dict[int, list[AuditEvent]] = {}
            for view in batch:
                by_organization.setdefault(view.organization_id, []).append(AuditEvent(
                    organization_id=view.organization_id, actor_id=view.actor_id,
                    action=AuditAction.SECRET_ENTRIES_SHOWN, details=view.details, created_at=view.created_at))
            for organization_id, events in sorted(by_organization.items()):
                _append(organization_id, events)
            PendingSecretView.objects.filter(pk__in=[view.pk for view in batch]).delete()
        sealed += len(batch)


@dataclass(frozen=True)
class ChainBreak:
    event_id: int
    reason: str


def verify_chain() -> tuple[int, ChainBreak | None]:
    """Walk the log in order, every chain at once; return how many events were checked and the first broken link,
    if any. An event's chain must be its organization's (or `site`, which also holds every event logged before
    chains were split): moving an event to another chain breaks both."""
    expected_previous: dict[str, str] = {}
    checked = 0
    for event in AuditEvent.objects.order_by("id").iterator(chunk_size=2000):
        if event.chain not in (SITE_CHAIN, chain_of(event.organization_id)):
            return checked, ChainBreak(event.pk, f"it sits in chain {event.chain!r}, not its organization's")
        if event.previous_hash != expected_previous.get(event.chain, GENESIS):
            return checked, ChainBreak(event.pk, "previous_hash does not name the event before it in its chain "
                                                 "(an event was removed or inserted)")
        recomputed = event_hash(event.previous_hash, event.organization_id, event.actor_id, event.action,
                                event.object_type, event.object_id, event.details, event.created_at)
        if recomputed != event.hash:
            return checked, ChainBreak(event.pk, "its content no longer matches its hash (it was altered)")
        expected_previous[event.chain] = event.hash
        checked += 1
    return checked, None


def record_secret_access(user, shown: dict[int, int], where: str) -> None:
    """One event per request that showed secret entries (or MT output for them): how many, where, and the API
    token used when there was one. `shown` maps organization id → number of secret entries of its corpora in
    the response. Written as a pending view (one INSERT, no wait for the chain), which `seal_secret_views` chains
    into the log within seconds and before any reading of it: on every view of a secret item, so each is one
    prepared statement in the request's own transaction state (`bulk_create` wrapped it in a transaction of its
    own: three round trips). The response is also marked uncacheable (`SecretResponseMiddleware`)."""
    token = token_of(user)
    actor_id = user.pk if user is not None and user.is_authenticated else None
    views = []
    for organization_id, count in shown.items():
        if count:
            details = {"count": count, "where": where[:200]}
            if token is not None:
                details["token"] = token.label
            views.append(PendingSecretView(organization_id=organization_id, actor_id=actor_id, details=details))
    for view in views:
        insert(view)
    if views:
        _mark_secret_response()


_secret_response: ContextVar[list[bool] | None] = ContextVar("secret_response", default=None)


def _mark_secret_response() -> None:
    flag = _secret_response.get()
    if flag is not None:
        flag[0] = True


class SecretResponseMiddleware:
    """A response that showed secret text is `Cache-Control: private, no-store`: no shared cache or browser
    history keeps it after the request. It knows from `record_secret_access`, which every such response calls."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        flag = [False]
        reset = _secret_response.set(flag)
        try:
            response = self.get_response(request)
        finally:
            _secret_response.reset(reset)
        if flag[0]:
            private(response)
            response.headers.pop("Expires", None)
        return response
