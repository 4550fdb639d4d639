"""What organizations add to pages: named permissions for templates (`permitted`), and panels for pages of the
layers below (the account page) that those layers cannot import."""

from django import template

from .. import permissions
from ..audit_text import details_line
from ..models import role_label as label_of_role
from ..selectors import memberships_of

register = template.Library()


@register.inclusion_tag("organizations/memberships_panel.html")
def memberships_panel(user) -> dict:
    """The signed-in user's roles, organization by organization, for *My account*."""
    return {"memberships": memberships_of(user)}


@register.simple_tag(takes_context=True)
def permitted(context, permission: str, obj) -> bool:
    """`{% permitted "dataset.curate" version.dataset as can_curate %}`: the signed-in user's verdict, by name."""
    request = context.get("request")
    return permissions.permitted(getattr(request, "user", None), permission, obj)


@register.filter
def role_label(role: str) -> str:
    """`{{ membership.role|role_label }}`: the role's name in the reader's language."""
    return label_of_role(role)


@register.filter
def audit_details(details: dict) -> str:
    """`{{ event.details|audit_details }}`: an audit event's details as labelled phrases in the reader's language."""
    return details_line(details)
