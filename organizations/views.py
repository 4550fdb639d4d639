import csv
import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.downloads import as_download
from common.errors import ApplicationError
from common.spreadsheets import neutralise_formula

from . import permissions, selectors, services
from .adapter import PENDING_INVITATION_KEY
from .audit import seal_secret_views
from .forms import CommitmentsForm, InvitationForm, RoleForm
from .mfa import mfa_required_response, secret_holder_required
from .models import ROLE_CHOICES, Invitation, Membership, Organization, Role, role_label


def organization_detail(request, slug: str):
    """Public facts about the organization; its governance staff (with two-factor authentication) also
    invite members and reach the governance pages from here."""
    organization = get_object_or_404(Organization, slug=slug)
    verdict = permissions.check(request.user, "organization.manage", organization)
    is_governance = verdict.allowed
    form = InvitationForm(request.POST or None) if is_governance else None
    if request.method == "POST":
        if verdict.needs_second_factor:
            return mfa_required_response(request)
        if not is_governance:
            raise PermissionDenied(_("Only governance staff invite members."))
        if form.is_valid():
            invitation = services.invite_member(
                organization=organization,
                email=form.cleaned_data["email"],
                role=form.cleaned_data["role"],
                actor=request.user,
            )
            messages.success(request, _("Invitation sent to %(email)s.") % {"email": invitation.email})
            return redirect("organizations:organization", slug=slug)
    context = {
        "organization": organization,
        "is_governance": is_governance,
        "form": form,
        "members": organization.memberships.select_related("user").order_by("user__email", "role")
        if is_governance
        else None,
        "role_choices": ROLE_CHOICES,
        "invitations": selectors.open_invitations(organization) if is_governance else None,
        "datasets": organization.datasets.annotate(
            active_consents=Count("consents", filter=Q(consents__revoked_at__isnull=True))) if is_governance else None,
    }
    return render(request, "organizations/organization_detail.html", context,
                  status=400 if form and form.errors else 200)


def governed_membership(request, slug: str, membership_id: int) -> Membership:
    """A membership of an organization the user governs (with the second factor proven); 404 otherwise."""
    organization = get_object_or_404(Organization, slug=slug)
    if not permissions.permitted(request.user, "organization.manage", organization):
        raise Http404("No such member in your organizations.")
    return get_object_or_404(Membership.objects.select_related("user"), pk=membership_id, organization=organization)


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def member_remove(request, slug: str, membership_id: int):
    membership = governed_membership(request, slug, membership_id)
    try:
        services.remove_member(membership=membership, actor=request.user)
    except services.MembershipError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("%(email)s is no longer %(role)s here; their ratings and other contributions "
                                    "are kept.") % {"email": membership.user.email,
                                                    "role": role_label(membership.role).lower()})
    return redirect("organizations:organization", slug=slug)


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def member_role(request, slug: str, membership_id: int):
    membership = governed_membership(request, slug, membership_id)
    form = RoleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the roles listed."))
        return redirect("organizations:organization", slug=slug)
    try:
        changed = services.change_role(membership=membership, role=form.cleaned_data["role"], actor=request.user)
    except services.MembershipError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("%(email)s is now %(role)s.")
                         % {"email": changed.user.email, "role": role_label(changed.role).lower()})
    return redirect("organizations:organization", slug=slug)


def invitation(request, token: str):
    """The link from an invitation e-mail: accept when signed in, or sign up with the invited address."""
    invitation = Invitation.objects.select_related("organization").filter(token=token).first()
    if invitation is None or not invitation.is_open:
        return render(request, "organizations/invitation.html", {"invitation": None}, status=404)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"/accounts/login/?next={request.path}")
        try:
            services.accept_invitation(token=token, actor=request.user)
        except services.InvitationError as error:
            messages.error(request, str(error))
            return redirect("organizations:invitation", token=token)
        messages.success(request, _("You are now a %(role)s of %(organization)s.")
                         % {"role": role_label(invitation.role).lower(), "organization": invitation.organization})
        return redirect("accounts:profile")
    if not request.user.is_authenticated:
        from allauth.account.adapter import get_adapter

        request.session[PENDING_INVITATION_KEY] = token
        get_adapter(request).stash_verified_email(request, invitation.email)
    return render(request, "organizations/invitation.html", {"invitation": invitation})


@secret_holder_required(Role.GOVERNANCE)
def audit_log(request, slug: str):
    """Governance staff read (and export as CSV) their organization's audit log; nobody else does."""
    organization = get_object_or_404(Organization, slug=slug)
    if not permissions.permitted(request.user, "organization.govern", organization):
        raise PermissionDenied(_("Only the organization's governance staff read its audit log."))
    action = request.GET.get("action", "")
    seal_secret_views(organization)
    events = selectors.audit_log(organization, action)
    if request.GET.get("format") == "csv":
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        writer = csv.writer(response)
        writer.writerow(["id", "time", "actor", "action", "object", "details", "hash"])
        for event in events.iterator(chunk_size=2000):
            # Text a spreadsheet would run as a formula (an e-mail address starting with "=") stays text.
            writer.writerow([neutralise_formula(str(cell)) for cell in (
                event.pk, event.created_at.isoformat(), event.actor.email if event.actor else "", event.action,
                f"{event.object_type} {event.object_id}".strip(), json.dumps(event.details, ensure_ascii=False),
                event.hash)])
        return as_download(response, f"{organization.slug}-audit-log", "csv")
    page = Paginator(events, 50).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    actions = selectors.logged_actions(organization)
    return render(request, "organizations/audit_log.html", {
        "organization": organization, "page": page, "action": action, "actions": actions,
        "query_string": query.urlencode(),
    })


@login_required
@secret_holder_required(Role.GOVERNANCE)
def commitments(request, slug: str):
    """Governance staff record the organization's commitments (§8.4); the organization's page shows them."""
    organization = get_object_or_404(Organization, slug=slug)
    if not permissions.permitted(request.user, "organization.manage", organization):
        raise Http404("No such organization among yours.")
    fields = ("community_relationship", "relationship_evidence", "key_custody", "evaluable_commitment",
              "evaluation_paused_until", "evaluation_pause_reason")
    form = CommitmentsForm(request.POST or None, initial={name: getattr(organization, name) for name in fields})
    if request.method == "POST" and form.is_valid():
        try:
            services.update_commitments(actor=request.user, organization=organization, **form.cleaned_data)
        except ApplicationError as error:
            form.add_error(error.field if error.field in form.fields else None, error.message)
        else:
            messages.success(request, _("The commitments are saved; the change is in the audit log."))
            return redirect("organizations:organization", slug=slug)
    return render(request, "organizations/commitments_form.html", {"organization": organization, "form": form},
                  status=400 if form.errors else 200)
