"""Reads with a rule: a kind's k in an organization, who may sign a decision and who is excluded (and why), which
signatures count, what waits for a member's signature."""

from dataclasses import dataclass, field

from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from accounts.models import User
from organizations.models import Organization
from organizations.selectors import governance_org_ids, governance_staff_ids

from . import kinds
from .models import Decision, DecisionPolicy, DecisionState, Signature, Verdict


@dataclass(frozen=True)
class Policy:
    """k and the least open time of one kind in one organization (defaults when no row was ever decided)."""

    kind: kinds.DecisionKind
    threshold: int
    min_open_hours: int
    decided: bool

    @property
    def wait_hours(self) -> int:
        """The wait that applies: none where one signature decides."""
        return self.min_open_hours if self.threshold > 1 else 0


def policy_of(organization: Organization, kind_name: str) -> Policy:
    kind = kinds.get(kind_name)
    row = DecisionPolicy.objects.filter(organization=organization, kind=kind_name).first()
    if row is None:
        return Policy(kind, 1, kind.min_open_hours, False)
    hours = row.min_open_hours if row.min_open_hours is not None else kind.min_open_hours
    return Policy(kind, row.threshold, hours, True)


def policies(organization: Organization) -> list[Policy]:
    """Every registered kind with its k here, in one query."""
    rows = {row.kind: row for row in DecisionPolicy.objects.filter(organization=organization)}
    found = []
    for kind in kinds.registered():
        row = rows.get(kind.name)
        if row is None:
            found.append(Policy(kind, 1, kind.min_open_hours, False))
        else:
            hours = row.min_open_hours if row.min_open_hours is not None else kind.min_open_hours
            found.append(Policy(kind, row.threshold, hours, True))
    return found


def governance_member_ids(organization_id: int) -> set[int]:
    """Who holds the governance role in the organization now (a fresh query: execution re-checks it)."""
    return governance_staff_ids(organization_id)


def exclusions(organization: Organization, kind_name: str, payload: dict, proposer_id: int | None) -> dict[int, str]:
    """The members who may not sign, each with why: the proposer, then the kind's conflicts of interest."""
    excluded: dict[int, str] = {}
    for user_id, reason in kinds.get(kind_name).conflicts(organization, payload).items():
        excluded[user_id] = str(reason)
    if proposer_id is not None:
        excluded[proposer_id] = gettext("proposed the decision")
    return excluded


def eligible_ids(organization: Organization, kind_name: str, payload: dict, proposer_id: int | None) -> set[int]:
    return governance_member_ids(organization.pk) - set(exclusions(organization, kind_name, payload, proposer_id))


def counted_approvals(decision: Decision) -> list[Signature]:
    """The approvals that count now: of the current payload, by a member who is still governance staff and has no
    conflict with it (the proposer's own only where one signature decides). Stale signatures count for nothing."""
    members = governance_member_ids(decision.organization_id)
    excluded = set(kinds.get(decision.kind).conflicts(decision.organization, decision.payload))
    counted = []
    for signature in decision.signatures.filter(revision=decision.revision, verdict=Verdict.APPROVE).order_by(
            "signed_at", "pk"):
        if signature.signer_id not in members or signature.signer_id in excluded:
            continue
        if signature.signer_id == decision.proposer_id and not signature.as_proposer:
            continue
        counted.append(signature)
    return counted


def current_rejections(decision: Decision) -> list[Signature]:
    return list(decision.signatures.filter(revision=decision.revision, verdict=Verdict.REJECT))


@dataclass
class SignerRow:
    user: User
    signature: Signature | None = None
    stale: list[Signature] = field(default_factory=list)
    reason: str = ""
    checks: list[str] = field(default_factory=list)  # what the signature says was checked, in the reader's language


def with_checks(decision: Decision, rows: list[SignerRow]) -> list[SignerRow]:
    """Each row's checks as its kind words them in the reader's language (a signature stores them in its
    signer's), the stored wording for a check the kind no longer offers."""
    try:
        labels = dict(kinds.get(decision.kind).checks)
    except kinds.UnknownKind:
        labels = {}
    for row in rows:
        if row.signature is not None:
            row.checks = [str(labels.get(item.get("key"), item.get("label", ""))) for item in row.signature.checked]
    return rows


@dataclass
class Board:
    """Who may sign a decision and where each stands; who is excluded and why; the counts a page shows."""

    eligible: list[SignerRow]
    excluded: list[SignerRow]
    approvals: int
    rejections: int
    threshold: int
    # A closed decision's board is its record: who signed, and the approvals counted when it closed.
    closed: bool = False

    @property
    def n(self) -> int:
        return len(self.eligible)


def file_signatures(decision: Decision, signatures: list[Signature], rows: dict[int, SignerRow]) -> None:
    """Each signature on its signer's row (made when missing): the current revision's as the row's signature, an
    earlier one's among its stale ones."""
    for signature in signatures:
        row = rows.setdefault(signature.signer_id, SignerRow(signature.signer))
        if signature.revision == decision.revision:
            row.signature = signature
        else:
            row.stale.append(signature)


def board(decision: Decision) -> Board:
    if decision.state != DecisionState.OPEN:
        return closed_board(decision)
    members = governance_member_ids(decision.organization_id)
    excluded = exclusions(decision.organization, decision.kind, decision.payload, decision.proposer_id)
    users = {user.pk: user for user in User.objects.filter(pk__in=members | set(excluded))}
    signatures = list(decision.signatures.select_related("signer").order_by("signed_at", "pk"))
    rows = {user_id: SignerRow(users[user_id]) for user_id in sorted(members - set(excluded),
                                                                     key=lambda pk: users[pk].email)}
    file_signatures(decision, [s for s in signatures if s.signer_id in rows], rows)
    excluded_rows = [SignerRow(users[user_id], reason=reason) for user_id, reason in excluded.items()
                     if user_id in users and (user_id in members or user_id == decision.proposer_id)]
    return Board(
        eligible=with_checks(decision, list(rows.values())), excluded=excluded_rows,
        approvals=len(counted_approvals(decision)),
        rejections=len([s for s in signatures if s.revision == decision.revision and s.verdict == Verdict.REJECT]),
        threshold=decision.threshold)


def closed_board(decision: Decision) -> Board:
    """What a closed decision was closed on, whatever roles its signers hold now: everyone who signed it (the final
    revision's signature, earlier ones stale), the approvals counted when it executed (`counted_signers`), else the
    final revision's approvals; the proposer among those excluded unless their proposal was the one signature."""
    signatures = list(decision.signatures.select_related("signer").order_by("signed_at", "pk"))
    rows: dict[int, SignerRow] = {}
    file_signatures(decision, signatures, rows)
    final = [s for s in signatures if s.revision == decision.revision]
    if decision.state == DecisionState.EXECUTED:
        approvals = len(decision.counted_signers)
    else:
        approvals = len([s for s in final if s.verdict == Verdict.APPROVE
                         and (s.signer_id != decision.proposer_id or s.as_proposer)])
    proposer_row = rows.get(decision.proposer_id)
    excluded = []
    if not (proposer_row and proposer_row.signature and proposer_row.signature.as_proposer):
        rows.pop(decision.proposer_id, None)
        excluded.append(SignerRow(decision.proposer, reason=gettext("proposed the decision")))
    return Board(eligible=with_checks(decision, list(rows.values())), excluded=excluded, approvals=approvals,
                 rejections=len([s for s in final if s.verdict == Verdict.REJECT]), threshold=decision.threshold,
                 closed=True)


def decisions_of(organization: Organization, state: str = "") -> QuerySet[Decision]:
    """The organization's decisions, newest first; callers check the reader is its governance staff."""
    found = Decision.objects.filter(organization=organization).select_related("proposer")
    return found.filter(state=state) if state else found


def visible_decision(user, public_id) -> Decision | None:
    """A decision, for governance staff of its organization with the second factor proven; None for anyone else
    (the page answers 404)."""
    decision = Decision.objects.select_related("organization", "proposer", "executed_by").filter(
        public_id=public_id).first()
    if decision is None or decision.organization_id not in governance_org_ids(user):
        return None
    return decision


def waiting_for_signature(user, organization: Organization | None = None) -> list[Decision]:
    """Open, unexpired decisions `user` may sign and has not signed in their current form, oldest first."""
    if not user or not user.is_authenticated:
        return []
    org_ids = set(governance_org_ids(user))
    if organization is not None:
        org_ids &= {organization.pk}
    if not org_ids:
        return []
    signed = Signature.objects.filter(decision=OuterRef("pk"), signer=user, revision=OuterRef("revision"))
    found = []
    for decision in (Decision.objects.filter(organization_id__in=org_ids, state=DecisionState.OPEN,
                                             expires_at__gt=timezone.now()).exclude(proposer=user)
                     .exclude(Exists(signed)).select_related("organization").order_by("opened_at", "pk")[:50]):
        # Conflicts are the kind's to say (a query or two per open decision; few are open at once).
        if user.pk not in kinds.get(decision.kind).conflicts(decision.organization, decision.payload):
            found.append(decision)
    return found
