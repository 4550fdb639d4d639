"""The calibration page: each language pair's decided campaigns, automated score against human usable share, and its
quality-tier bands, which governance staff set there (review.calibration)."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from leaderboard.services import LeaderboardError, set_tier_bands
from organizations.mfa import secret_holder_required
from organizations.models import Organization, Role
from organizations.permissions import permitted

from .calibration import calibration_page


@login_required
@secret_holder_required(Role.GOVERNANCE)
def calibration(request, slug: str):
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "organization.manage", organization):
        raise Http404(_("No such organization among yours."))
    refused: dict[str, tuple[str, str, dict]] = {}
    if request.method == "POST":
        pair = request.POST.get("language_pair", "")
        typed = {name: request.POST.get(name, "") for name in ("emerging", "functional", "deployable", "fluent")}
        try:
            set_tier_bands(actor=request.user, organization=organization, language_pair=pair, bands=typed)
        except LeaderboardError as error:
            refused[pair] = (error.field or "", error.message, typed)
        else:
            messages.success(request, _("Bands saved: the leaderboard's quality tiers and the review trigger of "
                                        "%(pair)s use them now.") % {"pair": pair})
            return redirect("review:calibration", slug=slug)
    pages = calibration_page(organization)
    for page in pages:
        field, message, typed = refused.get(page["calibration"].pair, ("", "", {}))
        shown = typed or page["calibration"].bands
        page.update(error_field=field, error=message, band_inputs=[(name, shown[name]) for name in page["fields"]])
    return render(request, "review/calibration.html", {"organization": organization, "pages": pages},
                  status=400 if refused else 200)
