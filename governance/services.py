"""Writes for decisions: propose, amend, sign, settle (execute, reject), expire, withdraw, and the policy that
sets k. Every transition is appended to the organization's audit log; signers are e-mailed after commit.

Rules (docs/governance.md):

* where one signature decides (k = 1, or a payload that restricts), the proposal is that signature and executes
  at once: today's one click, and withdrawing or restricting data is never slowed down;
* otherwise k distinct eligible members other than the proposer sign the exact payload (its hash), each in a
  session that proved its second factor; members in conflict are excluded; a decision whose eligible n < k does
  not open;
* changing the payload makes every earlier signature stale; a member signs a revision once;
* it executes once, when k counted approvals are present and its least open time has passed, counting only
  signers who are still governance staff; it expires unexecuted.
"""

import hashlib
import json
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from accounts.models import User
from common import errors
from common.errors import ApplicationError, ErrorKind
from common.sentences import Sentence
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require
from organizations.selectors import mfa_enabled

from . import kinds, selectors
from .models import MAX_THRESHOLD, Decision, DecisionPolicy, DecisionState, Signature, Verdict

POLICY_KIND = "governance.policy"
COMMENT_MAX_LENGTH = 4000
MAX_WAIT_HOURS = 24 * 90


class GovernanceError(ApplicationError):
    """A refused decision action, with the field at fault when there is one."""


class NotAllowed(GovernanceError, errors.NotAllowed):
    """The actor may not take this part in the decision (not governance staff, the proposer, in conflict, no
    second factor)."""


class DecisionConflict(GovernanceError):
    """The decision's state refuses it: stale, expired, closed, too few eligible signers, k out of range."""

    default_kind = ErrorKind.CONFLICT


def canonical_json(value: Any) -> str:
    """The one serialisation a payload is hashed in: sorted keys, no spaces, UTF-8 as is."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def payload_digest(*, kind: str, organization_id: int, subject: str, payload: dict) -> str:
    """SHA-256 of what is signed: the kind, the organization, the subject and the payload together."""
    document = {"kind": kind, "organization": organization_id, "subject": subject, "payload": payload}
    return hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()


def _canonical_payload(payload: dict) -> dict:
    """The payload as JSON reads it back (tuples become lists, keys strings), so its hash never depends on how the
    caller built it."""
    try:
        return json.loads(canonical_json(payload))
    except (TypeError, ValueError) as error:
        raise GovernanceError(_("The decision's payload must be plain JSON data."), "payload") from error


def _details(decision: Decision, **more) -> dict:
    return {"decision": str(decision.public_id), "kind": decision.kind, "subject": decision.subject,
            "revision": decision.revision, "payload_hash": decision.payload_hash, **more}


def _notify(decision: Decision, event: str) -> None:
    from .tasks import notify_signers

    decision_id = decision.pk
    transaction.on_commit(lambda: notify_signers.delay(decision_id, event))


def _names(user_ids) -> list[str]:
    return sorted(User.objects.filter(pk__in=list(user_ids)).values_list("email", flat=True))


@transaction.atomic
def propose(*, actor: User, organization: Organization, kind: str, subject: str, summary: Sentence,
            payload: dict) -> Decision:
    """Open a decision, or — where one signature decides — take it at once (the returned decision is then
    executed, and a refusal of the action rolls everything back, as the one-click action did). `summary` is shown
    to each reader in their language."""
    definition = kinds.get(kind)
    require(actor, "organization.govern", organization, error=NotAllowed)
    payload = _canonical_payload(payload)
    definition.check(organization, payload)
    conflicts = definition.conflicts(organization, payload)
    if actor.pk in conflicts:
        raise NotAllowed(_("You cannot propose this decision: you %(reason)s.") % {"reason": conflicts[actor.pk]})
    policy = selectors.policy_of(organization, kind)
    fast = definition.restricting(payload)
    alone = fast or policy.threshold == 1
    already = Decision.objects.select_for_update().filter(organization=organization, kind=kind, subject=subject,
                                                          state=DecisionState.OPEN).first()
    if already is not None:
        if not alone:
            raise DecisionConflict(_("A decision on this is already open (proposed by %(proposer)s on %(date)s); "
                                     "sign it, or its proposer changes it.") % {
                "proposer": already.proposer.email, "date": f"{already.opened_at:%Y-%m-%d}"}, "subject")
        # A restriction (or k = 1) overtakes the open decision on the same subject.
        _close(already, DecisionState.WITHDRAWN, actor, AuditAction.DECISION_WITHDRAWN,
               Sentence(gettext_noop("Overtaken by a decision taken at once.")))
    now = timezone.now()
    excluded = selectors.exclusions(organization, kind, payload, actor.pk)
    eligible = selectors.governance_member_ids(organization.pk) - set(excluded)
    if not alone and len(eligible) < policy.threshold:
        raise DecisionConflict(_(
            "This decision needs %(k)s signatures, but only %(n)s members may sign it (governance staff other than "
            "the proposer and those in conflict: excluded %(excluded)s). Add governance staff, or lower k by a "
            "policy decision.") % {"k": policy.threshold, "n": len(eligible),
                                   "excluded": "; ".join(f"{email}" for email in _names(excluded)) or "—"},
            "threshold")
    decision = Decision.objects.create(
        organization=organization, kind=kind, subject=subject[:200], summary=str(summary)[:300],
        summary_sentence=summary.as_json(), payload=payload,
        payload_hash=payload_digest(kind=kind, organization_id=organization.pk, subject=subject[:200],
                                    payload=payload),
        proposer=actor, threshold=1 if alone else policy.threshold, eligible_count=len(eligible), fast=fast,
        opened_at=now, executable_after=now + timedelta(hours=0 if alone else policy.wait_hours),
        expires_at=now + timedelta(days=definition.expires_after_days),
    )
    record_event(AuditAction.DECISION_OPENED, actor=actor, organization=organization, obj=decision,
                 details=_details(decision, threshold=decision.threshold, eligible=len(eligible), fast=fast,
                                  excluded={str(pk): reason for pk, reason in excluded.items()}))
    if alone:
        Signature.objects.create(decision=decision, signer=actor, verdict=Verdict.APPROVE, revision=decision.revision,
                                 payload_hash=decision.payload_hash, as_proposer=True)
        _execute(decision, actor, contain_refusal=False)
    else:
        _notify(decision, "opened")
    return decision


def _locked(decision: Decision) -> Decision:
    return Decision.objects.select_for_update(of=("self",)).select_related("organization", "proposer").get(
        pk=decision.pk)


def _refuse_closed(decision: Decision, now) -> None:
    if decision.state != DecisionState.OPEN:
        raise DecisionConflict(_("This decision is closed (%(state)s); nothing can be signed or changed.") % {
            "state": decision.get_state_display()}, "decision")
    if decision.expires_at <= now:
        raise DecisionConflict(_("This decision expired on %(date)s without being executed; propose it again.") % {
            "date": f"{decision.expires_at:%Y-%m-%d %H:%M} UTC"}, "decision")


@transaction.atomic
def amend(*, actor: User, decision: Decision, changes: dict[str, Any]) -> Decision:
    """The proposer changes the editable fields of an open decision: a new revision with a new hash, every
    signature given before is stale, and the least open time starts again."""
    decision = _locked(decision)
    now = timezone.now()
    _refuse_closed(decision, now)
    if decision.proposer_id != actor.pk:
        raise NotAllowed(_("Only the proposer changes a decision; others sign or reject it."))
    require(actor, "organization.govern", decision.organization, error=NotAllowed)
    definition = kinds.get(decision.kind)
    unknown = sorted(set(changes) - set(definition.editable))
    if unknown:
        raise GovernanceError(_("These fields cannot be changed: %(fields)s (changeable: %(editable)s).") % {
            "fields": ", ".join(unknown), "editable": ", ".join(definition.editable) or "—"}, unknown[0])
    payload = _canonical_payload({**decision.payload, **changes})
    if payload == decision.payload:
        raise GovernanceError(_("Nothing changed: the payload is the same."), "payload")
    definition.check(decision.organization, payload)
    policy = selectors.policy_of(decision.organization, decision.kind)
    before = decision.payload_hash
    stale = decision.signatures.filter(revision=decision.revision).count()
    decision.payload = payload
    decision.revision += 1
    decision.payload_hash = payload_digest(kind=decision.kind, organization_id=decision.organization_id,
                                           subject=decision.subject, payload=payload)
    decision.executable_after = now + timedelta(hours=policy.wait_hours)
    decision.save(update_fields=["payload", "revision", "payload_hash", "executable_after"])
    record_event(AuditAction.DECISION_AMENDED, actor=actor, organization=decision.organization, obj=decision,
                 details=_details(decision, previous_hash=before, stale_signatures=stale,
                                  changed=sorted(changes)))
    _notify(decision, "amended")
    return decision


@transaction.atomic
def sign(*, actor: User, decision: Decision, verdict: str, payload_hash: str, checked: list[str] | None = None,
         comment: str = "") -> Signature:
    """Sign the exact payload the signer read (`payload_hash`): approve, or reject with a comment. Signing the same
    revision again returns the first signature (it counts once). Then settle: execute when due, or reject when k
    approvals can no longer be reached."""
    decision = _locked(decision)
    now = timezone.now()
    _refuse_closed(decision, now)
    require(actor, "organization.govern", decision.organization, error=NotAllowed)
    if not mfa_enabled(actor):
        raise NotAllowed(_("Signing needs a session that proved its second factor: sign in again with your "
                           "authenticator code (My account → Two-factor authentication)."))
    if actor.pk == decision.proposer_id:
        raise NotAllowed(_("You proposed this decision: the proposer does not sign it."))
    conflicts = kinds.get(decision.kind).conflicts(decision.organization, decision.payload)
    if actor.pk in conflicts:
        raise NotAllowed(_("You may not sign this decision: you %(reason)s.") % {"reason": conflicts[actor.pk]})
    if payload_hash != decision.payload_hash:
        raise DecisionConflict(_("The decision changed since you read it (revision %(revision)s, hash %(hash)s…): "
                                 "read it again before signing.") % {
            "revision": decision.revision, "hash": decision.payload_hash[:12]}, "payload_hash")
    existing = decision.signatures.filter(signer=actor, revision=decision.revision).first()
    if existing is not None:
        return existing
    if verdict not in Verdict.values:
        raise GovernanceError(_("Choose approve or reject."), "verdict")
    comment = (comment or "").strip()
    if len(comment) > COMMENT_MAX_LENGTH:
        raise GovernanceError(_("The comment has %(count)s characters; at most %(limit)s are kept.") % {
            "count": len(comment), "limit": COMMENT_MAX_LENGTH}, "comment")
    if "\x00" in comment:
        raise GovernanceError(_("The comment holds a NUL character, which cannot be stored."), "comment")
    if verdict == Verdict.REJECT and not comment:
        raise GovernanceError(_("Write why you reject it: the other signers and the proposer read it."), "comment")
    offered = dict(kinds.get(decision.kind).checks)
    checked = list(dict.fromkeys(checked or []))
    unknown = [key for key in checked if key not in offered]
    if unknown:
        raise GovernanceError(_("Unknown check %(check)s; expected one of: %(expected)s.") % {
            "check": unknown[0], "expected": ", ".join(offered) or "—"}, "checked")
    if verdict == Verdict.APPROVE and offered and not checked:
        raise GovernanceError(_("Tick what you checked before approving."), "checked")
    signature = Signature.objects.create(
        decision=decision, signer=actor, verdict=verdict, checked=[{"key": key, "label": str(offered[key])}
                                                                   for key in checked],
        comment=comment, revision=decision.revision, payload_hash=decision.payload_hash)
    record_event(AuditAction.DECISION_SIGNED, actor=actor, organization=decision.organization, obj=decision,
                 details=_details(decision, verdict=verdict, checked=checked,
                                  **({"comment": comment} if comment else {})))
    settle(decision=decision, now=now)
    return signature


def _close(decision: Decision, state: str, actor, action: AuditAction, note: Sentence | str = "", **details) -> None:
    """Close the decision with its outcome (a sentence shown in each reader's language; a refusal's message, already
    written in the language of the request that met it, as it is)."""
    decision.state = state
    decision.closed_at = timezone.now()
    _set_outcome(decision, note)
    decision.save(update_fields=["state", "closed_at", "outcome_note", "outcome_sentence"])
    record_event(action, actor=actor, organization=decision.organization, obj=decision,
                 details=_details(decision, **({"note": decision.outcome_note} if note else {}), **details))


def _set_outcome(decision: Decision, note: Sentence | str | None) -> None:
    decision.outcome_note = str(note or "")[:2000]
    decision.outcome_sentence = note.as_json() if isinstance(note, Sentence) else None


def _execute(decision: Decision, actor: User, *, contain_refusal: bool) -> None:
    """Run the kind's action once. A refusal of the action either rolls everything back (the proposal where one
    signature decides: the proposer sees the refusal, nothing is stored) or marks the decision failed."""
    definition = kinds.get(decision.kind)
    if not contain_refusal:
        note = definition.execute(decision, actor)
    else:
        try:
            with transaction.atomic():
                note = definition.execute(decision, actor)
        except ApplicationError as refusal:
            _close(decision, DecisionState.FAILED, actor, AuditAction.DECISION_FAILED, refusal.message)
            return
    decision.executed_by = actor
    decision.state = DecisionState.EXECUTED
    decision.closed_at = timezone.now()
    _set_outcome(decision, note)
    decision.counted_signers = [signature.signer_id for signature in selectors.counted_approvals(decision)]
    decision.save(update_fields=["executed_by", "state", "closed_at", "outcome_note", "outcome_sentence",
                                 "counted_signers"])
    record_event(AuditAction.DECISION_EXECUTED, actor=actor, organization=decision.organization, obj=decision,
                 details=_details(decision, signers=decision.counted_signers,
                                  **({"note": decision.outcome_note} if note else {})))


def settle(*, decision: Decision, now=None) -> str:
    """Look at an open decision (locked by the caller) and move it on if it is due: executed when k counted
    approvals are present and the least open time has passed, rejected when k can no longer be reached, expired
    past its date. Returns the state."""
    now = now or timezone.now()
    if decision.state != DecisionState.OPEN:
        return decision.state
    if decision.expires_at <= now:
        _close(decision, DecisionState.EXPIRED, None, AuditAction.DECISION_EXPIRED)
        return decision.state
    approvals = selectors.counted_approvals(decision)
    if len(approvals) >= decision.threshold:
        if now >= decision.executable_after:
            _execute(decision, approvals[-1].signer, contain_refusal=True)
        return decision.state
    rejected_by = {signature.signer_id for signature in selectors.current_rejections(decision)}
    still_possible = selectors.eligible_ids(decision.organization, decision.kind, decision.payload,
                                            decision.proposer_id) - rejected_by
    if len(still_possible) < decision.threshold:
        _close(decision, DecisionState.REJECTED, None, AuditAction.DECISION_REJECTED, Sentence(
            gettext_noop("%(count)s of the members who may sign rejected it: %(k)s approvals can no longer be "
                         "reached."), {"count": len(rejected_by), "k": decision.threshold}))
    return decision.state


def settle_due() -> dict[str, int]:
    """For the worker (beat): execute the decisions whose least open time has passed, expire the outdated. Each
    in its own transaction, so one failure stops nothing else."""
    counts: dict[str, int] = {}
    now = timezone.now()
    due = Decision.objects.filter(state=DecisionState.OPEN, executable_after__lte=now).values_list("pk", flat=True)
    for pk in list(due):
        with transaction.atomic():
            decision = Decision.objects.select_for_update(of=("self",)).select_related("organization").get(pk=pk)
            state = settle(decision=decision, now=now)
        counts[state] = counts.get(state, 0) + 1
    return counts


@transaction.atomic
def execute_now(*, actor: User, decision: Decision) -> Decision:
    """A member asks a due decision to execute (the worker does it too, within minutes)."""
    decision = _locked(decision)
    require(actor, "organization.govern", decision.organization, error=NotAllowed)
    now = timezone.now()
    _refuse_closed(decision, now)
    if now < decision.executable_after:
        raise DecisionConflict(_("It stays open until %(date)s at least (its least open time).") % {
            "date": f"{decision.executable_after:%Y-%m-%d %H:%M} UTC"}, "decision")
    settle(decision=decision, now=now)
    return decision


@transaction.atomic
def withdraw(*, actor: User, decision: Decision, reason: str = "") -> Decision:
    """The proposer takes back an open decision."""
    decision = _locked(decision)
    if decision.state != DecisionState.OPEN:
        raise DecisionConflict(_("This decision is closed (%(state)s).") % {"state": decision.get_state_display()},
                               "decision")
    if decision.proposer_id != actor.pk:
        raise NotAllowed(_("Only the proposer withdraws a decision."))
    _close(decision, DecisionState.WITHDRAWN, actor, AuditAction.DECISION_WITHDRAWN, (reason or "").strip())
    return decision


def supersede(*, actor: User | None, organization: Organization, kind: str, subject: str, reason: str) -> int:
    """The owning app changed what an open decision names (e.g. the labels a release decision lists): its payload
    can no longer be what is signed, so it closes as withdrawn with the reason, inside the caller's transaction.
    Returns how many closed."""
    closed = 0
    for decision in Decision.objects.select_for_update(of=("self",)).select_related("organization").filter(
            organization=organization, kind=kind, subject=subject, state=DecisionState.OPEN):
        _close(decision, DecisionState.WITHDRAWN, actor, AuditAction.DECISION_WITHDRAWN, reason)
        closed += 1
    return closed


# The policy: k per kind, itself decided under the current k of `governance.policy`.

def check_policy(organization: Organization, payload: dict) -> None:
    """k between 1 and the number of members who could sign a decision someone else proposes."""
    kind_name = payload.get("kind")
    if not isinstance(kind_name, str):
        raise GovernanceError(_("Choose the kind of decision whose k changes."), "kind")
    kinds.get(kind_name)
    threshold = payload.get("threshold")
    if isinstance(threshold, bool) or not isinstance(threshold, int):
        raise GovernanceError(_("k is a whole number of signatures, e.g. 2."), "threshold")
    if threshold < 1:
        raise DecisionConflict(_("k = %(k)s: a decision needs at least 1 signature (k ≥ 1).") % {"k": threshold},
                               "threshold")
    staff = len(selectors.governance_member_ids(organization.pk))
    if threshold > 1 and (threshold > staff - 1 or threshold > MAX_THRESHOLD):
        signers = max(staff - 1, 1)
        raise DecisionConflict(ngettext(
            "k = %(k)s is more than n: %(organization)s has %(staff)s governance staff, so at most %(n)s member "
            "other than the proposer can sign a decision. Choose k between 1 and %(n)s, or add governance staff "
            "first.",
            "k = %(k)s is more than n: %(organization)s has %(staff)s governance staff, so at most %(n)s members "
            "other than the proposer can sign a decision. Choose k between 1 and %(n)s, or add governance staff "
            "first.", signers) % {"k": threshold, "organization": organization.name, "staff": staff, "n": signers},
            "threshold")
    hours = payload.get("min_open_hours")
    if hours is not None and (isinstance(hours, bool) or not isinstance(hours, int)
                              or not 0 <= hours <= MAX_WAIT_HOURS):
        raise GovernanceError(_("The least open time is a whole number of hours between 0 and %(max)s.") % {
            "max": MAX_WAIT_HOURS}, "min_open_hours")


def execute_policy(decision: Decision, actor: User) -> Sentence:
    payload = decision.payload
    before = selectors.policy_of(decision.organization, payload["kind"])
    DecisionPolicy.objects.update_or_create(
        organization=decision.organization, kind=payload["kind"],
        defaults={"threshold": payload["threshold"], "min_open_hours": payload.get("min_open_hours"),
                  "changed_at": timezone.now()})
    record_event(AuditAction.DECISION_POLICY_CHANGED, actor=actor, organization=decision.organization, obj=decision,
                 details={"kind": payload["kind"], "threshold": {"before": before.threshold,
                                                                 "after": payload["threshold"]},
                          "min_open_hours": {"before": before.min_open_hours,
                                             "after": payload.get("min_open_hours")},
                          "decision": str(decision.public_id)})
    return Sentence(gettext_noop("%(kind)s now needs %(k)s signature.") if payload["threshold"] == 1
                    else gettext_noop("%(kind)s now needs %(k)s signatures."),
                    {"kind": kinds.english_label_of(payload["kind"]), "k": payload["threshold"]}, translated=("kind",))


def propose_policy(*, actor: User, organization: Organization, kind: str, threshold: int,
                   min_open_hours: int | None = None) -> Decision:
    """Change k (and the least open time) of one kind: a decision of the kind `governance.policy`, under the k that
    kind has now."""
    payload = {"kind": kind, "threshold": threshold, "min_open_hours": min_open_hours}
    # One signature or several (k is at least 1: any other k is refused by check_policy, within propose).
    summary = Sentence(gettext_noop("%(kind)s needs %(k)s signature") if threshold == 1
                       else gettext_noop("%(kind)s needs %(k)s signatures"),
                       {"kind": kinds.english_label_of(kind), "k": threshold}, translated=("kind",))
    return propose(actor=actor, organization=organization, kind=POLICY_KIND, subject=kind, summary=summary,
                   payload=payload)
