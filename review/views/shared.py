"""What the review pages share: private responses, export content types, the governed campaign or organization."""

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from organizations.models import Organization
from organizations.permissions import permitted

from ..models import Campaign
from ..selectors.campaigns import governed_campaign

CONTENT_TYPES = {"csv": "text/csv; charset=utf-8",
                 "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}


# Governance staff.

def governed_organization_or_404(request, slug: str) -> Organization:
    """An organization its governance staff set policies for; 404 for everybody else."""
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "organization.govern", organization):
        raise Http404(_("No such organization among yours."))
    return organization


def governed_or_404(request, public_id) -> Campaign:
    campaign = governed_campaign(request.user, public_id)
    if campaign is None:
        raise Http404(_("No such campaign in your organizations."))
    return campaign
