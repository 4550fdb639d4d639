"""The tamper-evident audit log: append an event, verify the chains (one per organization, one site-wide)."""

import hashlib
import json
from contextvars import ContextVar
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone
from django.utils.cache import patch_cache_control

from accounts.authentication import token_of

from .models import SITE_CHAIN, AuditAction, AuditEvent, Organization, chain_of

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
    organization_id = organization.pk if organization is not None else None
    chain = chain_of(organization_id)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [CHAIN_LOCK, organization_id or 0])
    previous = AuditEvent.objects.filter(chain=chain).order_by("-id").values_list("hash", flat=True).first() or GENESIS
    details = details or {}
    object_type = LOGGED_AS.get(obj._meta.label, obj._meta.label) if obj is not None else ""
    object_id = str(obj.pk) if obj is not None else ""
    created_at = timezone.now()
    actor_id = actor.pk if actor is not None and actor.is_authenticated else None
    event = AuditEvent(
        organization_id=organization_id, actor_id=actor_id, action=action, object_type=object_type,
        object_id=object_id, details=details, created_at=created_at, chain=chain, previous_hash=previous,
        hash=event_hash(previous, organization_id, actor_id, action, object_type, object_id, details, created_at),
    )
    event.save()
    return event


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
    the response. The response is also marked uncacheable (`SecretResponseMiddleware`)."""
    token = token_of(user)
    for organization_id, count in shown.items():
        if count:
            details = {"count": count, "where": where[:200]}
            if token is not None:
                details["token"] = token.label
            record_event(AuditAction.SECRET_ENTRIES_SHOWN, actor=user, organization=Organization(pk=organization_id),
                         details=details)
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
            patch_cache_control(response, private=True, no_store=True)
            response.headers.pop("Expires", None)
        return response
