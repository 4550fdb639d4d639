"""Who may do what, in one place. Each permission has a name (`dataset.curate`, `campaign.open`, …) and answers
with a `Verdict`: allowed, or denied with the reason a person can act on — and whether what is missing is the role
itself or only the second factor (pages then show how to set it up instead of a bare refusal).

Views, API permission classes (`Permitted`), services (`require`) and templates (`{% permitted %}`) all ask here;
nothing else checks a role. Two kinds of rule exist, on purpose:

* *role* permissions (`organization.govern`, `dataset.govern`, `campaign.open`) ask only whether the user holds the
  role, fresh from the database: services use them, and the pages in front of those services already asked for
  the second factor;
* *secret* permissions (`organization.manage`, `organization.curate`, `dataset.curate`, `dataset.see_secret`) also
  need the second factor proven in this request (`accounts.second_factor`), since what they open shows secret
  entries or acts on them.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rest_framework.permissions import BasePermission

from common.errors import NotAllowed

from .models import SECRET_READER_ROLES, Role
from .selectors import governance_org_ids, holds_role, lacks_mfa_for, org_ids_with_roles, secret_reader_org_ids


@dataclass(frozen=True)
class Verdict:
    """An answer. `needs_second_factor`: the role is there, the proven second factor is not."""

    allowed: bool
    reason: str = ""
    needs_second_factor: bool = False

    def __bool__(self) -> bool:
        return self.allowed


ALLOWED = Verdict(True)
SECOND_FACTOR_REASON = ("This needs two-factor authentication: a session confirmed with your authenticator code, or "
                        "a 'secret' API token created in such a session (My account). Set up two-factor "
                        "authentication first if you have not (My account → Two-factor authentication).")


STEWARD = "the steward organization"
GOVERNANCE = (Role.GOVERNANCE,)
GOVERNANCE_STAFF = "governance staff"
SECRET_READERS = "curators and governance staff"
SPEAKERS = "speakers"


def _denied(who: str, organization_name: str | None) -> Verdict:
    return Verdict(False, f"Only {who} of {organization_name or STEWARD} may do this.")


def _role(user, organization_id: int, roles: tuple[Role, ...], who: str, organization_name: str | None) -> Verdict:
    """Role permissions ask the database afresh: a service must not act on a role removed earlier in the request."""
    if holds_role(user, organization_id, *roles):
        return ALLOWED
    return _denied(who, organization_name)


def _secret(user, organization_id: int, proven_org_ids: Callable[[Any], list[int]], roles: tuple[Role, ...],
            who: str, organization_name: str | None) -> Verdict:
    """Ids, not objects, and only the request's remembered memberships: a list page asks for every row, and must
    neither fetch each row's organization nor query per row."""
    if organization_id in proven_org_ids(user):
        return ALLOWED
    if lacks_mfa_for(user, roles) and organization_id in org_ids_with_roles(user, roles):
        return Verdict(False, SECOND_FACTOR_REASON, needs_second_factor=True)
    return _denied(who, organization_name)


def organization_govern(user, organization_id: int, organization_name: str | None = None) -> Verdict:
    """Act as the organization's governance staff (services: campaigns, decisions, terms, transfers)."""
    return _role(user, organization_id, GOVERNANCE, GOVERNANCE_STAFF, organization_name)


def organization_speak(user, organization_id: int, organization_name: str | None = None) -> Verdict:
    """Act as a speaker of the organization (its practice round; vouching, where `speakers.services` also asks that
    the speaker's own reading of the language is attested)."""
    return _role(user, organization_id, (Role.SPEAKER,), SPEAKERS, organization_name)


def organization_manage(user, organization_id: int, organization_name: str | None = None) -> Verdict:
    """The governance pages of the organization (members, invitations, audit log, dashboard): governance staff
    with the second factor proven."""
    return _secret(user, organization_id, governance_org_ids, GOVERNANCE, GOVERNANCE_STAFF, organization_name)


def organization_curate(user, organization_id: int, organization_name: str | None = None) -> Verdict:
    """Read the secret entries of the organization's corpora, import and edit them: curators and governance
    staff with the second factor proven."""
    return _secret(user, organization_id, secret_reader_org_ids, SECRET_READER_ROLES, SECRET_READERS,
                   organization_name)


PERMISSIONS: dict[str, Callable[[Any, Any], Verdict]] = {
    "organization.govern": lambda user, organization: organization_govern(user, organization.pk, organization.name),
    "organization.manage": lambda user, organization: organization_manage(user, organization.pk, organization.name),
    "organization.curate": lambda user, organization: organization_curate(user, organization.pk, organization.name),
    # A dataset's permissions are its steward organization's (named only as "the steward organization": the
    # dataset's organization is not fetched for a refusal).
    "dataset.govern": lambda user, dataset: organization_govern(user, dataset.organization_id),
    "dataset.curate": lambda user, dataset: organization_curate(user, dataset.organization_id),
    "dataset.see_secret": lambda user, dataset: organization_curate(user, dataset.organization_id),
    # Opening a review campaign on a run card: governance staff of the steward of the card's dataset.
    "campaign.open": lambda user, run_card: organization_govern(
        user, run_card.dataset_version.dataset.organization_id),
    # Taking a run card out of every ranking (benchmark specification §9.2): the site's maintainers, or governance
    # staff of the steward of the card's dataset (cards on their data).
    "run_card.disqualify": lambda user, run_card: ALLOWED if user.is_staff else organization_govern(
        user, run_card.dataset_version.dataset.organization_id),
    # The same from a page: governance staff with the second factor proven in this request.
    "run_card.disqualify_here": lambda user, run_card: ALLOWED if user.is_staff else organization_manage(
        user, run_card.dataset_version.dataset.organization_id),
    # A method is published on every community's data: only the site's maintainers disqualify it everywhere.
    "method.disqualify": lambda user, method: ALLOWED if user.is_staff else Verdict(
        False, "Only the site's maintainers may disqualify a method; governance staff disqualify its run cards on "
               "their data."),
    # The speakers' ledger: governance staff attest their speakers' languages and write the practice round; a speaker
    # of the organization vouches for another (their own attested reading of the language checked by the service)
    # and takes the practice round.
    "skill.attest": lambda user, organization: organization_govern(user, organization.pk, organization.name),
    "skill.vouch": lambda user, organization: organization_speak(user, organization.pk, organization.name),
    "practice.write": lambda user, organization: organization_govern(user, organization.pk, organization.name),
    "practice.take": lambda user, organization: organization_speak(user, organization.pk, organization.name),
    # A declared conflict of interest is withdrawn only by the person who declared it.
    "conflict.withdraw": lambda user, declaration: ALLOWED if declaration.user_id == user.pk else Verdict(
        False, "Only the person who declared a conflict of interest may withdraw it."),
}


def check(user, permission: str, obj) -> Verdict:
    """The verdict of `permission` for `user` on `obj`. An unknown name is a programming error (KeyError)."""
    if not user or not user.is_authenticated:
        return Verdict(False, "Sign in first.")
    return PERMISSIONS[permission](user, obj)


def permitted(user, permission: str, obj) -> bool:
    return check(user, permission, obj).allowed


def require(user, permission: str, obj, error: type[NotAllowed] = NotAllowed) -> None:
    """For services: raise `error` (an app's NotAllowed) with the verdict's reason when it is denied."""
    verdict = check(user, permission, obj)
    if not verdict:
        raise error(verdict.reason)


class Permitted(BasePermission):
    """A DRF permission class for one named permission on the view's object: `Permitted.to("dataset.curate")`.
    The object is what the view's `permission_object(request)` returns (None: nothing to check yet)."""

    permission = ""
    message = "You may not do this."

    @classmethod
    def to(cls, permission: str) -> type["Permitted"]:
        if permission not in PERMISSIONS:
            raise KeyError(permission)
        return type(f"Permitted_{permission.replace('.', '_')}", (cls,), {"permission": permission})

    def has_permission(self, request, view) -> bool:
        obj = view.permission_object(request)
        if obj is None:
            return True
        verdict = check(request.user, self.permission, obj)
        self.message = verdict.reason or self.message
        return verdict.allowed
