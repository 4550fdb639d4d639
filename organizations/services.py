"""Writes on organizations, memberships and invitations."""

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import get_or_create_user
from common.errors import ApplicationError, Conflict

from .audit import record_event
from .models import AuditAction, Invitation, Membership, Organization, Role
from .selectors import open_invitations

# Sent inside the transaction when a member loses a role (organization, user, role, actor): apps above this one
# (review) react without this app importing them.
membership_removed = Signal()


class InvitationError(ApplicationError):
    """An invitation that cannot be accepted, with a message for the person holding the link."""


@transaction.atomic
def create_organization(*, actor: User | None, slug: str, name: str, languages: list[str],
                        principles: str = "") -> tuple[Organization, bool]:
    """Create the organization, or bring an existing one's name, languages and principles up to date."""
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
