"""Who holds which role where: the single source for role checks, and for who may read secrets.

Holding the governance or curator role is not enough to read an organization's secret segments: the
account also needs two-factor authentication (an active TOTP authenticator), so a stolen password alone
never shows them. `secret_reader_org_ids` and `governance_org_ids` — which feed every visibility rule —
answer [] until then; the plain role lookups (`org_ids_with_roles`, `has_role`) do not, so governance
and curator pages can tell such a user how to set it up instead of pretending they have no role.
"""

from typing import Any

from allauth.mfa.models import Authenticator
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet, Subquery

from accounts.second_factor import account_authenticators, second_factor_proven
from common.compiled import CompiledQuery

from .models import SECRET_READER_ROLES, Membership, Organization, Role, role_label


def organizations_where(user, roles) -> QuerySet[Organization]:
    """Organizations in which `user` holds any of `roles` (none for anonymous users)."""
    if not user or not user.is_authenticated:
        return Organization.objects.none()
    return Organization.objects.filter(memberships__user=user, memberships__role__in=list(roles)).distinct()


def holding_role(user, role: Role, organization_path: str = "") -> Q:
    """Rows whose organization (reached through `organization_path`) `user` holds `role` in: the role rule as a
    filter other apps' queries combine with theirs (both conditions hold for one membership row)."""
    prefix = f"{organization_path}__" if organization_path else ""
    return Q(**{f"{prefix}memberships__user": user, f"{prefix}memberships__role": role})


def members_with_role(organization: Organization, role: Role) -> QuerySet[Membership]:
    """The organization's memberships of `role`."""
    return Membership.objects.filter(organization=organization, role=role)


def role_holders(organization: Organization, role: Role) -> QuerySet:
    """The accounts holding `role` in the organization."""
    return get_user_model().objects.filter(memberships__organization=organization, memberships__role=role)


def _totp_of(user) -> QuerySet[Authenticator]:
    return Authenticator.objects.filter(user_id=user.pk, type=Authenticator.Type.TOTP)


# Read on nearly every signed-in page: compiled once (common.compiled).
_MEMBERSHIPS = CompiledQuery(
    lambda user: Membership.objects.filter(user=user).annotate(
        totp_id=Subquery(Authenticator.objects.filter(user_id=user, type=Authenticator.Type.TOTP).values("pk")[:1]),
        codes_id=Subquery(Authenticator.objects.filter(user_id=user, type=Authenticator.Type.RECOVERY_CODES)
                          .values("pk")[:1]),
    ).values_list("organization_id", "role", "organization__slug", "organization__name", "totp_id", "codes_id"),
    user=int)


def _memberships(user) -> list[tuple[int, str, str, str]]:
    """Every (organization id, role, organization slug, organization name) of `user`, fetched once and
    remembered on the user object for the rest of the request: visibility checks, the page decorators
    and the navigation all ask, several times per page. The same query fetches the account's TOTP and
    recovery-code authenticators for role holders (the only users `mfa_enabled` matters for), so
    two-factor authentication costs no extra query."""
    if "_memberships" not in user.__dict__:
        remember_memberships(user, _MEMBERSHIPS.rows(user=user.pk))
    return user.__dict__["_memberships"]


def remember_memberships(user, rows: list[tuple]) -> None:
    user.__dict__["_memberships"] = [row[:4] for row in rows]
    if rows:
        user.__dict__.setdefault("_authenticators", (rows[0][4], rows[0][5]))


def memberships_unread(user) -> tuple[CompiledQuery, dict[str, Any]] | None:
    """The read of `user`'s memberships as a run of `common.compiled.rows_together`, for a hot path that sends it
    with its other checks in one round trip (then `remember_memberships` with its rows); None when this request
    has read them already."""
    return None if "_memberships" in user.__dict__ else (_MEMBERSHIPS, {"user": user.pk})


def org_ids_with_roles(user, roles) -> list[int]:
    """Ids of the organizations where `user` holds any of `roles`, whether or not two-factor
    authentication is set up (none for anonymous users)."""
    if not user or not user.is_authenticated:
        return []
    wanted = set(roles)
    return list(dict.fromkeys(org_id for org_id, role, _, _ in _memberships(user) if role in wanted))


def governed_organizations(user) -> list[tuple[str, str]]:
    """(slug, name) of each organization where `user` is governance staff, for the navigation."""
    if not user or not user.is_authenticated:
        return []
    return sorted({(slug, name) for _, role, slug, name in _memberships(user) if role == Role.GOVERNANCE},
                  key=lambda pair: pair[1])


def speaker_only(user) -> bool:
    """Whether `user` holds the speaker role and no other anywhere, and is no maintainer: the navigation then offers
    what speakers use (their reviews, their account), not the datasets and the API."""
    if not user or not user.is_authenticated or user.is_staff:
        return False
    roles = {role for _, role, _, _ in _memberships(user)}
    return roles == {Role.SPEAKER}


def account_has_totp(user) -> bool:
    """The account has an active authenticator, whatever this session proved."""
    return bool(user and user.is_authenticated) and _totp_of(user).exists()


def _account_authenticators(user) -> tuple[int | None, int | None]:
    """(TOTP id, recovery codes id) of the account, remembered on the user object for the request."""
    if "_authenticators" not in user.__dict__:
        _memberships(user)
    if "_authenticators" not in user.__dict__:  # no role anywhere
        user.__dict__["_authenticators"] = account_authenticators(user)
    return user.__dict__["_authenticators"]


def mfa_enabled(user) -> bool:
    """Whether `user` has an active TOTP authenticator (django-allauth MFA) AND the request behind this user
    object proved it (`accounts.second_factor`: the code typed in this session, or a secret-scoped API token).
    Fail closed: a user object that carries no proof — loaded by a task, or a session signed in any other
    way — is not proven."""
    if not user or not user.is_authenticated:
        return False
    return second_factor_proven(user, _account_authenticators(user))


def session_needs_code(user) -> bool:
    """The account has two-factor authentication, but this session has not proved it (signed in by
    password only, by sign-up, by e-mail confirmation, or before the authenticator was activated)."""
    return account_has_totp(user) and not mfa_enabled(user)


def needs_mfa_for_secrets(user) -> bool:
    """Governance staff or a curator somewhere, without two-factor authentication yet: their role would
    show secret segments, and nothing secret is shown to them until they set it up."""
    return lacks_mfa_for(user, SECRET_READER_ROLES)


def lacks_mfa_for(user, roles) -> bool:
    """Holds one of `roles` somewhere but has no two-factor authentication: the pages of those roles
    answer with the set-up instructions."""
    return bool(org_ids_with_roles(user, roles)) and not mfa_enabled(user)


def _once_mfa_enabled(user, org_ids: list[int]) -> list[int]:
    return org_ids if org_ids and mfa_enabled(user) else []


def secret_reader_org_ids(user) -> list[int]:
    """Organizations whose secret segments `user` may read: governance staff and curators, once their
    account has two-factor authentication."""
    return _once_mfa_enabled(user, org_ids_with_roles(user, SECRET_READER_ROLES))


def governance_org_ids(user) -> list[int]:
    """Organizations in which `user` is governance staff with two-factor authentication: the only readers
    of secret MT output, and the staff of its campaigns and submissions."""
    return _once_mfa_enabled(user, org_ids_with_roles(user, [Role.GOVERNANCE]))


def holds_role(user, organization_id: int, *roles: Role) -> bool:
    """Whether `user` holds one of `roles` in the organization now (a fresh query, not the request's memory).
    Only `organizations.permissions` asks: everything else asks it for a named permission."""
    if not user or not user.is_authenticated:
        return False
    return Membership.objects.filter(user=user, organization_id=organization_id, role__in=list(roles)).exists()


def memberships_of(user) -> dict[Organization, list[str]]:
    """The user's organizations with the display names of their roles there."""
    grouped: dict[Organization, list[str]] = {}
    for membership in Membership.objects.filter(user=user).select_related("organization"):
        grouped.setdefault(membership.organization, []).append(role_label(membership.role))
    return grouped


def open_invitations(organization: Organization):
    from django.utils import timezone

    return organization.invitations.filter(accepted_at__isnull=True, expires_at__gt=timezone.now())


def audit_log(organization: Organization, action: str = ""):
    """The organization's audit events, newest first; callers check the reader is its governance staff."""
    from .models import AuditEvent

    events = AuditEvent.objects.filter(organization=organization).select_related("actor").order_by("-id")
    return events.filter(action=action) if action else events


def logged_actions(organization: Organization) -> list[tuple[str, str]]:
    """The actions the organization's log holds, as (code, label in the reader's language), by label: the audit log
    page's filter offers only what it would find."""
    from .models import AuditAction, AuditEvent

    labels = dict(AuditAction.choices)
    codes = AuditEvent.objects.filter(organization=organization).order_by("action").values_list(
        "action", flat=True).distinct()
    return sorted(((code, str(labels.get(code, code))) for code in codes), key=lambda pair: pair[1].casefold())


def governance_staff_ids(organization_id: int) -> set[int]:
    """The accounts holding the governance role in the organization now (a fresh query): who may sign its decisions
    (`governance.selectors`), before exclusions."""
    return set(Membership.objects.filter(organization_id=organization_id, role=Role.GOVERNANCE)
               .values_list("user_id", flat=True))
