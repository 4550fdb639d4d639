"""Writes on organizations, memberships and invitations, and the organization's commitments."""

import datetime
from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import get_or_create_user
from common.errors import ApplicationError, Conflict
from common.text import refusal_of_hidden_or_directional

from .audit import record_event
from .models import AuditAction, Invitation, Membership, Organization, Role
from .permissions import require
from .selectors import open_invitations

# Sent inside the transaction when a member loses a role (organization, user, role, actor): apps above this one
# (review) react without this app importing them.
membership_removed = Signal()


class InvitationError(ApplicationError):
    """An invitation that cannot be accepted, with a message for the person holding the link."""


def check_organization_name(name: str) -> None:
    """An organization's name is shown inside the site's sentences on every page of its community."""
    refusal = refusal_of_hidden_or_directional(name)
    if refusal:
        raise ApplicationError(_("The organization's name %(refusal)s.") % {"refusal": refusal}, "name")


@transaction.atomic
def create_organization(*, actor: User | None, slug: str, name: str, languages: list[str],
                        principles: str = "") -> tuple[Organization, bool]:
    """Create the organization, or bring an existing one's name, languages and principles up to date."""
    check_organization_name(name)
    defaults = {"name": name, "languages": sorted(set(languages))}
    if principles:
        defaults["principles"] = principles
    organization, created = Organization.objects.update_or_create(slug=slug, defaults=defaults)
    record_event(AuditAction.ORGANIZATION_CREATED if created else AuditAction.ORGANIZATION_CHANGED, actor=actor,
                 organization=organization, obj=organization,
                 details={"name": name, "languages": defaults["languages"]})
    return organization, created


@transaction.atomic
def add_member(*, actor: User | None, email: str, organization: Organization, role: str, password: str | None = None):
    """Give `email` the role in the organization, creating the (verified) user when missing."""
    if role not in Role.values:
        raise ValueError(f"Unknown role {role!r}; expected one of: {', '.join(Role.values)}.")
    user, user_created = get_or_create_user(email, password)
    membership, membership_created = Membership.objects.get_or_create(user=user, organization=organization, role=role)
    if membership_created:
        record_event(AuditAction.MEMBERSHIP_ADDED, actor=actor, organization=organization, obj=membership,
                     details={"user": user.email, "role": role})
    return user, user_created, membership_created


@transaction.atomic
def invite_member(*, actor: User, organization: Organization, email: str, role: str) -> Invitation:
    """Record an invitation (or reuse the open one for the same address and role) and e-mail its link
    once the transaction commits. A broker outage is logged, not raised: the invitation stays listed
    on the organization page, and inviting the address again resends it."""
    from .tasks import send_invitation_email

    email = email.strip().lower()
    invitation = open_invitations(organization).filter(email=email, role=role).first()
    if invitation is None:
        invitation = Invitation.objects.create(organization=organization, email=email, role=role, invited_by=actor)
    record_event(AuditAction.INVITATION_SENT, actor=actor, organization=organization, obj=invitation,
                 details={"email": email, "role": role})
    language = get_language() or ""  # the inviter's, for an address with no language of its own
    transaction.on_commit(lambda: send_invitation_email.delay(invitation.pk, language=language), robust=True)
    return invitation


@transaction.atomic
def accept_invitation(*, actor: User, token: str) -> Membership:
    """Grant the invited role to `actor`, whose e-mail must be the invited one."""
    invitation = Invitation.objects.select_for_update().filter(token=token).first()
    if invitation is None:
        raise InvitationError(_("This invitation link is not valid."))
    if invitation.accepted_at is not None:
        raise InvitationError(_("This invitation has already been used."))
    if invitation.expires_at <= timezone.now():
        raise InvitationError(_("This invitation has expired; ask the organization for a new one."))
    if actor.email.lower() != invitation.email.lower():
        raise InvitationError(
            _("This invitation was sent to %(email)s; sign in with that address to accept it.")
            % {"email": invitation.email}
        )
    membership, created = Membership.objects.get_or_create(
        user=actor, organization=invitation.organization, role=invitation.role
    )
    if created:
        record_event(AuditAction.MEMBERSHIP_ADDED, actor=actor, organization=invitation.organization, obj=membership,
                     details={"user": actor.email, "role": invitation.role, "invitation": invitation.pk})
    invitation.accepted_at = timezone.now()
    invitation.accepted_by = actor
    invitation.save(update_fields=["accepted_at", "accepted_by"])
    return membership


class MembershipError(Conflict):
    """A membership change that would leave the organization without governance, or names no member."""


def _keeps_governance(membership: Membership) -> None:
    """Refuse taking away the organization's last governance role. The organization row is locked first, so two
    governance members removing each other at once are serialised and the second is refused."""
    Organization.objects.select_for_update().filter(pk=membership.organization_id).first()
    if membership.role == Role.GOVERNANCE and not Membership.objects.filter(
            organization_id=membership.organization_id, role=Role.GOVERNANCE).exclude(pk=membership.pk).exists():
        raise MembershipError(_("An organization keeps at least one governance staff member; give the role to "
                                "someone else first."))


@transaction.atomic
def remove_member(*, actor: User, membership: Membership) -> None:
    """Take one role away from a member (audited). A speaker leaving is announced with `membership_removed`,
    so that review reassigns their open items; their ratings are kept."""
    membership = Membership.objects.select_for_update().select_related("user", "organization").get(pk=membership.pk)
    _keeps_governance(membership)
    record_event(AuditAction.MEMBERSHIP_REMOVED, actor=actor, organization=membership.organization, obj=membership,
                 details={"user": membership.user.email, "role": membership.role})
    membership.delete()
    membership_removed.send(sender=Membership, organization=membership.organization, user=membership.user,
                            role=membership.role, actor=actor)


@transaction.atomic
def change_role(*, actor: User, membership: Membership, role: str) -> Membership:
    """Replace a member's role by another (audited as `membership.role_changed`)."""
    if role not in Role.values:
        raise MembershipError(_("Unknown role %(role)s; expected one of: %(roles)s.")
                              % {"role": repr(str(role)[:30]), "roles": ", ".join(Role.values)})
    membership = Membership.objects.select_for_update().select_related("user", "organization").get(pk=membership.pk)
    if role == membership.role:
        return membership
    if Membership.objects.filter(user=membership.user, organization=membership.organization, role=role).exists():
        raise MembershipError(_("%(email)s already holds that role; remove this one instead.")
                              % {"email": membership.user.email})
    _keeps_governance(membership)
    previous = membership.role
    membership.role = role
    membership.save(update_fields=["role"])
    record_event(AuditAction.MEMBERSHIP_ROLE_CHANGED, actor=actor, organization=membership.organization, obj=membership,
                 details={"user": membership.user.email, "from": previous, "to": role})
    membership_removed.send(sender=Membership, organization=membership.organization, user=membership.user,
                            role=previous, actor=actor)
    return membership


@transaction.atomic
def update_organization(*, actor: User, organization: Organization, **values) -> Organization:
    """Change an organization's name, languages or principles (audited with what changed)."""
    if "name" in values:
        check_organization_name(values["name"])
    changed = {name: value for name, value in values.items() if getattr(organization, name) != value}
    for name, value in changed.items():
        setattr(organization, name, value)
    if changed:
        organization.save(update_fields=list(changed))
        record_event(AuditAction.ORGANIZATION_CHANGED, actor=actor, organization=organization, obj=organization,
                     details={"changed": sorted(changed)})
    return organization


@transaction.atomic
def revoke_invitation(*, actor: User, invitation: Invitation) -> None:
    """Withdraw an open invitation: its link stops working at once (audited)."""
    invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
    if invitation.accepted_at is None and invitation.expires_at > timezone.now():
        invitation.expires_at = timezone.now()
        invitation.save(update_fields=["expires_at"])
        record_event(AuditAction.INVITATION_REVOKED, actor=actor, organization=invitation.organization, obj=invitation,
                     details={"email": invitation.email, "role": invitation.role})


class CommitmentsError(ApplicationError):
    """Commitments that cannot be recorded as given, with the field at fault."""


COMMITMENT_TEXTS = ("community_relationship", "relationship_evidence", "key_custody", "evaluable_commitment",
                    "evaluation_pause_reason")
COMMITMENT_TEXT_LIMIT = 4000
EVIDENCE_LIMIT = 300


@transaction.atomic
def update_commitments(*, actor: User, organization: Organization, community_relationship: str = "",
                       relationship_evidence: str = "", key_custody: str = "", evaluable_commitment: str = "",
                       evaluation_paused_until: datetime.date | None = None,
                       evaluation_pause_reason: str = "") -> Organization:
    """Record the organization's commitments (§8.4): its relationship with the community and the evidence of it,
    who holds its keys, its commitment to keep the benchmark evaluable — or until when evaluation is paused, and
    why. Audited with each changed field before and after; nothing is stored when a field is refused."""
    require(actor, "organization.govern", organization)
    values: dict[str, Any] = {}
    texts = {"community_relationship": community_relationship, "relationship_evidence": relationship_evidence,
             "key_custody": key_custody, "evaluable_commitment": evaluable_commitment,
             "evaluation_pause_reason": evaluation_pause_reason}
    for name, text in texts.items():
        text = (text or "").strip()
        limit = EVIDENCE_LIMIT if name == "relationship_evidence" else COMMITMENT_TEXT_LIMIT
        if len(text) > limit:
            raise CommitmentsError(_("%(count)s characters; at most %(limit)s are kept.") % {
                "count": len(text), "limit": limit}, name)
        if "\x00" in text:
            raise CommitmentsError(_("The text holds a NUL character, which cannot be stored."), name)
        values[name] = text
    if evaluation_paused_until is not None:
        if evaluation_paused_until < timezone.localdate():
            raise CommitmentsError(_("The date %(date)s is past: a pause lasts until a date to come (leave it empty "
                                     "when evaluation is not paused).") % {"date": evaluation_paused_until.isoformat()},
                                   "evaluation_paused_until")
        if not values["evaluation_pause_reason"]:
            raise CommitmentsError(_("Say why evaluation is paused: the page shows it with the date."),
                                   "evaluation_pause_reason")
    elif values["evaluation_pause_reason"]:
        raise CommitmentsError(_("Give the date until which evaluation is paused, or leave the reason empty."),
                               "evaluation_paused_until")
    values["evaluation_paused_until"] = evaluation_paused_until
    organization = Organization.objects.select_for_update().get(pk=organization.pk)
    changed = {name: value for name, value in values.items() if getattr(organization, name) != value}
    if not changed:
        return organization
    before = {name: _shown(getattr(organization, name)) for name in changed}
    for name, value in changed.items():
        setattr(organization, name, value)
    organization.commitments_changed_at = timezone.now()
    organization.save(update_fields=[*changed, "commitments_changed_at"])
    record_event(AuditAction.COMMITMENTS_CHANGED, actor=actor, organization=organization, obj=organization,
                 details={"changed": sorted(changed), "before": before,
                          "after": {name: _shown(value) for name, value in changed.items()}})
    return organization


def _shown(value) -> str | None:
    return value.isoformat() if isinstance(value, datetime.date) else value
