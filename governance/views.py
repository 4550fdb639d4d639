"""Pages of decisions: an organization's decisions and its k per kind, one decision with its signers, and the
forms that sign, change, withdraw or execute it. Thin: `selectors` decides who sees what (anyone but the
organization's governance staff with the second factor proven gets 404), `services` every rule; a refusal is
shown on the page with its status (403 not allowed, 409 stale, expired or closed, 400 bad input)."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.errors import ApplicationError
from organizations.mfa import mfa_explains_not_found, secret_holder_required
from organizations.models import Organization, Role
from organizations.permissions import permitted

from . import kinds, selectors, services
from .models import Decision, DecisionState

PAGE_SIZE = 30


def _governed(request, slug: str) -> Organization:
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "organization.manage", organization):
        raise Http404("No such organization among yours.")
    return organization


def _int_or_none(value: str | None):
    value = (value or "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        return value  # the service names the field and what it expects


@login_required
@secret_holder_required(Role.GOVERNANCE)
def decision_list(request, slug: str):
    """Open decisions (those waiting for the reader's signature first), then closed ones; the k of each kind,
    and the form proposing a change of k (itself a decision)."""
    organization = _governed(request, slug)
    error = None
    status = 200
    if request.method == "POST":
        try:
            decision = services.propose_policy(
                actor=request.user, organization=organization, kind=request.POST.get("kind", ""),
                threshold=_int_or_none(request.POST.get("threshold")),  # type: ignore[arg-type]
                min_open_hours=_int_or_none(request.POST.get("min_open_hours")))
        except ApplicationError as refusal:
            error, status = refusal, refusal.http_status
        else:
            if decision.state == DecisionState.EXECUTED:
                messages.success(request, decision.shown_outcome)
            else:
                messages.success(request, _("The change of k is proposed: it waits for %(k)s signatures.") % {
                    "k": decision.threshold})
            return redirect("governance:decision", public_id=decision.public_id)
    closed = selectors.decisions_of(organization).exclude(state=DecisionState.OPEN)
    return render(request, "governance/decision_list.html", {
        "organization": organization,
        "waiting": selectors.waiting_for_signature(request.user, organization),
        "open": selectors.decisions_of(organization, DecisionState.OPEN),
        "closed": Paginator(closed, PAGE_SIZE).get_page(request.GET.get("page")),
        "policies": selectors.policies(organization),
        "staff": len(selectors.governance_member_ids(organization.pk)),
        "error": error, "posted": request.POST if request.method == "POST" else {},
    }, status=status)


def _visible(request, public_id) -> Decision:
    decision = selectors.visible_decision(request.user, public_id)
    if decision is None:
        raise Http404("No such decision among yours.")
    return decision


def _render_decision(request, decision: Decision, error=None, status: int = 200, posted=None):
    kind = kinds.get(decision.kind)
    board = selectors.board(decision)
    me = request.user.pk
    now = timezone.now()
    is_open = decision.state == DecisionState.OPEN and decision.expires_at > now
    mine = next((row for row in board.eligible if row.user.pk == me), None)
    excluded_me = next((row for row in board.excluded if row.user.pk == me), None)
    editable = [(key, str(kind.field_labels.get(key, key)), decision.payload.get(key)) for key in kind.editable]
    return render(request, "governance/decision_detail.html", {
        "decision": decision, "kind": kind, "board": board, "url": kind.url(decision.payload),
        "payload_json": json.dumps(decision.payload, indent=2, sort_keys=True, ensure_ascii=False),
        "is_open": is_open, "expired": decision.state == DecisionState.OPEN and decision.expires_at <= now,
        "can_sign": is_open and mine is not None and mine.signature is None,
        "my_signature": mine.signature if mine is not None else None, "excluded_me": excluded_me,
        "is_proposer": decision.proposer_id == me,
        "editable": [(key, label, "\n".join(value) if isinstance(value, list) else (value or ""))
                     for key, label, value in editable],
        "due": is_open and board.approvals >= decision.threshold and decision.executable_after <= now,
        "waits": is_open and board.approvals >= decision.threshold and decision.executable_after > now,
        "error": error, "posted": posted or {}, "checks": kind.checks,
    }, status=status)


@login_required
@mfa_explains_not_found(Role.GOVERNANCE)
def decision_detail(request, public_id):
    return _render_decision(request, _visible(request, public_id))


def _act(request, public_id, action, done: str):
    decision = _visible(request, public_id)
    try:
        action(decision)
    except ApplicationError as refusal:
        decision.refresh_from_db()
        return _render_decision(request, decision, refusal, refusal.http_status, request.POST)
    decision.refresh_from_db()
    messages.success(request, decision.shown_outcome if decision.state == DecisionState.EXECUTED
                     and decision.outcome_note else done)
    return redirect("governance:decision", public_id=decision.public_id)


@login_required
@require_POST
@mfa_explains_not_found(Role.GOVERNANCE)
def sign(request, public_id):
    return _act(request, public_id, lambda decision: services.sign(
        actor=request.user, decision=decision, verdict=request.POST.get("verdict", ""),
        payload_hash=request.POST.get("payload_hash", ""), checked=request.POST.getlist("checked"),
        comment=request.POST.get("comment", "")), _("Your signature is recorded."))


@login_required
@require_POST
@mfa_explains_not_found(Role.GOVERNANCE)
def amend(request, public_id):
    def change(decision):
        kind = kinds.get(decision.kind)
        changes = {}
        for key in kind.editable:
            if key in request.POST:
                value = request.POST[key].strip()
                changes[key] = ([line.strip() for line in value.splitlines() if line.strip()]
                                if isinstance(decision.payload.get(key), list) else value)
        services.amend(actor=request.user, decision=decision, changes=changes)

    return _act(request, public_id, change, _("The decision changed: every earlier signature is stale, and the "
                                              "signers are asked again."))


@login_required
@require_POST
@mfa_explains_not_found(Role.GOVERNANCE)
def withdraw(request, public_id):
    return _act(request, public_id, lambda decision: services.withdraw(
        actor=request.user, decision=decision, reason=request.POST.get("reason", "")),
        _("The decision is withdrawn."))


@login_required
@require_POST
@mfa_explains_not_found(Role.GOVERNANCE)
def execute(request, public_id):
    return _act(request, public_id, lambda decision: services.execute_now(actor=request.user, decision=decision),
                _("The decision was looked at again."))
