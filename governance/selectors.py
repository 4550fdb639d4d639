"""Who holds which role where: the single source for role checks."""

from django.db.models import QuerySet

from .models import SECRET_READER_ROLES, Membership, Organization, Role


def organizations_where(user, roles) -> QuerySet[Organization]:
    """Organizations in which `user` holds any of `roles` (none for anonymous users)."""
    if not user or not user.is_authenticated:
        return Organization.objects.none()
    return Organization.objects.filter(memberships__user=user, memberships__role__in=list(roles)).distinct()


def org_ids_with_roles(user, roles) -> list[int]:
    """Ids of the organizations where `user` holds any of `roles`, remembered on the user object for
    the rest of the request (visibility checks ask several times per page)."""
    if not user or not user.is_authenticated:
        return []
    cache = user.__dict__.setdefault("_org_ids_by_roles", {})
    key = tuple(sorted(roles))
    if key not in cache:
        cache[key] = list(
            Membership.objects.filter(user=user, role__in=key).values_list("organization_id", flat=True).distinct()
        )
    return cache[key]


def secret_reader_org_ids(user) -> list[int]:
    """Organizations whose secret segments `user` may read: governance staff and curators only."""
    return org_ids_with_roles(user, SECRET_READER_ROLES)


def governance_org_ids(user) -> list[int]:
    """Organizations in which `user` is governance staff (the only readers of secret MT output)."""
    return org_ids_with_roles(user, [Role.GOVERNANCE])


def has_role(user, organization: Organization, *roles: Role) -> bool:
    if not user or not user.is_authenticated:
        return False
    return Membership.objects.filter(user=user, organization=organization, role__in=list(roles)).exists()


def memberships_of(user) -> dict[Organization, list[str]]:
    """The user's organizations with the display names of their roles there."""
    grouped: dict[Organization, list[str]] = {}
    for membership in Membership.objects.filter(user=user).select_related("organization"):
        grouped.setdefault(membership.organization, []).append(membership.get_role_display())
    return grouped


def open_invitations(organization: Organization):
    from django.utils import timezone

    return organization.invitations.filter(accepted_at__isnull=True, expires_at__gt=timezone.now())


def audit_log(organization: Organization, action: str = ""):
    """The organization's audit events, newest first; callers check the reader is its governance staff."""
    from .models import AuditEvent

    events = AuditEvent.objects.filter(organization=organization).select_related("actor").order_by("-id")
    return events.filter(action=action) if action else events
