"""Pages for participation terms, method submissions, ownership transfers and the method page.

Thin: `selectors` decides who sees what (anyone else gets 404), `services` does
every write and every check.
"""

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db import transaction
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.errors import ApplicationError
from governance.models import Decision, DecisionState
from organizations.mfa import mfa_explains_not_found, secret_holder_required
from organizations.models import Organization, Role
from organizations.permissions import permitted

from . import dashboard as dashboards
from . import decisions, selectors, services
from .forms import (
    A1RunForm,
    AdvanceForm,
    RevisionForm,
    RightsPermissionForm,
    SignOffForm,
    SubmissionForm,
    TermsForm,
    TransferForm,
)
from .models import MethodSubmission, ParticipationTerms, RightsHolderPermission
from .packages import COST_REPORT_MAX_BYTES

PAGE_SIZE = 50


def _form_error(form, error: ApplicationError) -> None:
    form.add_error(error.field if error.field in form.fields else None, str(error))


def _moved_on(request, decision: Decision | None, done: str, then):
    """After a one-click action that is a decision: where one signature decided, it is done (as before);
    otherwise the proposer goes to the decision others now sign."""
    if decision is None or decision.state == DecisionState.EXECUTED:
        messages.success(request, done or decision.shown_outcome)
        return then
    messages.success(request, _("Proposed: the decision waits for %(k)s signatures of other governance staff.") % {
        "k": decision.threshold})
    return redirect("governance:decision", public_id=decision.public_id)


@secret_holder_required(Role.GOVERNANCE)
def terms(request, slug: str):
    """Published versions, latest first (public); governance staff publish the next version here."""
    organization = get_object_or_404(Organization, slug=slug)
    is_governance = permitted(request.user, "organization.govern", organization)
    form = TermsForm(request.POST or None) if is_governance else None
    if request.method == "POST":
        if not is_governance:
            raise Http404("Only governance staff publish terms.")
        if form.is_valid():
            try:
                published = services.publish_terms(
                    organization=organization,
                    actor=request.user,
                    version=form.cleaned_data["version"],
                    text=form.cleaned_data["text"],
                    transfer_clause=form.cleaned_data["transfer_clause"],
                )
            except services.SubmissionError as error:
                _form_error(form, error)
            else:
                messages.success(request, _("Version %(version)s of the participation terms is published.") % {
                    "version": published.version})
                return redirect("submissions:terms", slug=slug)
    versions = list(selectors.published_terms(organization))
    return render(request, "submissions/terms.html", {
        "organization": organization, "versions": versions, "current": versions[0] if versions else None,
        "accepted": selectors.accepted_versions(request.user, organization), "form": form,
        "is_governance": is_governance,
    }, status=400 if form is not None and form.errors else 200)


@login_required
@require_POST
def accept_terms(request, slug: str, version: str):
    terms = get_object_or_404(ParticipationTerms, organization__slug=slug, version=version)
    services.accept_terms(terms=terms, actor=request.user)
    messages.success(request, _("You accepted version %(version)s of %(organization)s's participation terms.") % {
        "version": terms.version, "organization": terms.organization.name})
    if request.POST.get("next") == "submit":
        return redirect("submissions:submit", slug=slug)
    return redirect("submissions:terms", slug=slug)


@login_required
def submit(request, slug: str):
    """Upload a package and a cost report against the current terms (accepted here if not yet)."""
    organization = get_object_or_404(Organization, slug=slug)
    current = selectors.current_terms(organization)
    acceptance = selectors.acceptance_of(request.user, current)
    form = SubmissionForm(request.POST or None, request.FILES or None, needs_acceptance=acceptance is None)
    outcome = None
    if request.method == "POST" and current is not None and form.is_valid():
        package, cost_report = form.cleaned_data["package"], form.cleaned_data["cost_report"]
        with transaction.atomic():
            # Accepting inline is part of the submission: refused together, stored together.
            if acceptance is None:
                acceptance = services.accept_terms(terms=current, actor=request.user)
            outcome = services.submit_method(
                organization=organization,
                actor=request.user,
                terms_acceptance=acceptance,
                package=package,
                package_name=package.name,
                cost_report=cost_report.read(COST_REPORT_MAX_BYTES + 1),
                cost_report_name=cost_report.name,
                development_data=form.cleaned_data["development_data"],
            )
            if outcome.problems:
                transaction.set_rollback(True)
        if outcome.submission is not None:
            messages.success(request, _("%(method)s was submitted; its manifest audit derived class %(class)s.") % {
                "method": outcome.submission.method_name, "class": outcome.submission.derived_class})
            return redirect("submissions:submission", public_id=outcome.submission.public_id)
    failed = outcome is not None and bool(outcome.problems)
    return render(request, "submissions/submission_form.html", {
        "organization": organization, "terms": current, "acceptance": acceptance if not failed else None,
        "form": form, "outcome": outcome, "problems": outcome.problems if failed else [],
    }, status=400 if failed or form.errors else 200)


@login_required
def my_submissions(request):
    page = Paginator(selectors.submissions_of(request.user), PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "submissions/submission_list.html", {"page": page, "staff": False, "query_string": ""})


@login_required
@secret_holder_required(Role.GOVERNANCE)
def organization_submissions(request, slug: str):
    """Governance staff's list of every submission to their organization."""
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "organization.govern", organization):
        raise Http404("No such organization among yours.")
    submissions = selectors.governed_submissions(request.user, organization)
    state = request.GET.get("state", "")
    if state not in services.State.values:
        state = ""
    if state:
        submissions = submissions.filter(state=state)
    page = Paginator(submissions, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "submissions/submission_list.html", {
        "page": page, "staff": True, "organization": organization, "state": state,
        "states": services.State.choices, "query_string": urlencode({"state": state}) if state else "",
    })


def _visible_or_404(request, public_id):
    submission = selectors.visible_submission(request.user, public_id)
    if submission is None:
        raise Http404("No such submission among yours.")
    return submission


def _advance_form(submission, data=None) -> AdvanceForm:
    return AdvanceForm(data, states=selectors.next_states(submission),
                       run_cards=selectors.attachable_run_cards(submission))


def _detail(request, submission, form=None, status: int = 200, **parts):
    """The submission page: what its submitter and its organization's governance staff see, with staff's forms."""
    is_staff = selectors.is_staff_for(request.user, submission)
    if is_staff and form is None:
        form = _advance_form(submission)
    transfer = getattr(submission, "transfer", None) if submission.state == services.State.OWNERSHIP_TRANSFERRED \
        else None
    context = {
        "submission": submission, "is_staff": is_staff, "is_submitter": submission.submitter_id == request.user.pk,
        "history": selectors.submission_history(submission), "scores": selectors.submission_scores(submission),
        "dependencies": selectors.dependency_rows(submission),
        "explanation": selectors.class_explanation(submission.derived_class),
        "form": form if is_staff and form.fields["to_state"].choices else None,
        "can_transfer": is_staff and submission.state == services.State.APPROVED,
        "transfer": transfer,
    }
    if context["is_submitter"] and submission.state == services.State.SUBMITTED:
        context.update({"revision_form": parts.get("revision_form") or RevisionForm(auto_id="revision_%s"),
                        "revision_problems": parts.get("revision_problems", [])})
    if is_staff:
        a2 = services.a2_dependency_ids(submission)
        context.update({
            "signing_open": submission.state == services.State.SUBMITTED,
            "missing_sign_offs": services.missing_sign_offs(submission),
            "missing_permissions": services.missing_rights_permissions(submission),
            "permission_form": parts.get("permission_form") or (
                RightsPermissionForm(dependencies=a2, auto_id="rights_%s") if a2 else None),
            "sign_off_error": parts.get("sign_off_error"),
        })
        if submission.derived_class == "A1":
            context.update({"a1": selectors.a1_runs(submission), "a1_form": parts.get("a1_form") or A1RunForm(
                versions=selectors.a1_run_versions(submission), auto_id="a1_%s")})
    return render(request, "submissions/submission_detail.html", context, status=status)


@login_required
@mfa_explains_not_found(Role.GOVERNANCE)
def submission_detail(request, public_id):
    """The submitter's and governance staff's page; staff also move the submission on from here."""
    submission = _visible_or_404(request, public_id)
    is_staff = selectors.is_staff_for(request.user, submission)
    form = _advance_form(submission, request.POST or None) if is_staff else None
    if request.method == "POST":
        if not is_staff:
            raise Http404("Only governance staff move a submission on.")
        if form.is_valid():
            try:
                if form.cleaned_data["to_state"] == services.State.APPROVED:
                    decision = decisions.propose_approval(actor=request.user, submission=submission,
                                                          note=form.cleaned_data["note"])
                else:
                    decision = None
                    services.advance_submission(
                        submission=submission,
                        actor=request.user,
                        to_state=form.cleaned_data["to_state"],
                        run_card=form.cleaned_data["run_card"],
                        note=form.cleaned_data["note"],
                    )
            except ApplicationError as error:
                _form_error(form, error)
            else:
                return _moved_on(request, decision, _("The submission moved on."),
                                 redirect("submissions:submission", public_id=submission.public_id))
    return _detail(request, submission, form, status=400 if form is not None and form.errors else 200)


@login_required
@require_POST
def package_revise(request, public_id):
    """The submitter replaces the package before the manifest audit; every problem is shown, nothing changes."""
    submission = _visible_or_404(request, public_id)
    if submission.submitter_id != request.user.pk:
        raise Http404("Only the submitter revises the package.")
    form = RevisionForm(request.POST, request.FILES, auto_id="revision_%s")
    problems = []
    if form.is_valid():
        package = form.cleaned_data["package"]
        try:
            outcome = services.revise_package(actor=request.user, submission=submission, package=package,
                                              package_name=package.name)
        except ApplicationError as error:
            _form_error(form, error)
        else:
            if outcome.submission is not None:
                messages.success(request, _("The package is revised: reviewers sign off its dependencies again."))
                return redirect("submissions:submission", public_id=submission.public_id)
            problems = outcome.problems
    return _detail(request, submission, status=400, revision_form=form, revision_problems=problems)


def _staff_submission_or_404(request, public_id) -> MethodSubmission:
    """The submission for its organization's governance staff with the second factor proven; 404 for anyone else,
    its submitter included, whether it exists or not."""
    submission = selectors.visible_submission(request.user, public_id)
    if submission is None or not selectors.is_staff_for(request.user, submission):
        raise Http404("No such submission among yours.")
    return submission


@login_required
@secret_holder_required(Role.GOVERNANCE)
def package_download(request, public_id):
    """The package as submitted, streamed to governance staff; each download is an audit event first."""
    submission = _staff_submission_or_404(request, public_id)
    services.record_package_download(actor=request.user, submission=submission)
    response = FileResponse(submission.package.open("rb"), as_attachment=True, filename=submission.package_name,
                            content_type="application/octet-stream")
    response["X-Package-SHA256"] = submission.package_sha256
    response["Cache-Control"] = "no-store"
    return response


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def sign_off(request, public_id):
    """Sign off one declared dependency (licence and source checked)."""
    submission = _staff_submission_or_404(request, public_id)
    form = SignOffForm(request.POST)
    error = None
    if form.is_valid():
        try:
            services.sign_off_dependency(actor=request.user, submission=submission, **form.cleaned_data)
        except ApplicationError as refused:
            error = refused
        else:
            messages.success(request, _("%(dependency)s is signed off.") % {
                "dependency": form.cleaned_data["dependency_id"]})
            return redirect("submissions:submission", public_id=submission.public_id)
    else:
        error = services.SubmissionError(_("Name the dependency to sign off."), "dependency_id")
    return _detail(request, submission, status=403 if isinstance(error, services.NotAllowed) else 400,
                   sign_off_error={"field": error.field, "message": str(error),
                                   "dependency": request.POST.get("dependency_id", "")})


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def rights_permission_new(request, public_id):
    """Record the rights holder's permission for one A2 dependency, with its document."""
    submission = _staff_submission_or_404(request, public_id)
    form = RightsPermissionForm(request.POST, request.FILES, dependencies=services.a2_dependency_ids(submission),
                                auto_id="rights_%s")
    if form.is_valid():
        try:
            services.record_rights_permission(actor=request.user, submission=submission, **form.cleaned_data)
        except ApplicationError as error:
            _form_error(form, error)
        else:
            messages.success(request, _("The rights holder's permission for %(dependency)s is recorded.") % {
                "dependency": form.cleaned_data["dependency_id"]})
            return redirect("submissions:submission", public_id=submission.public_id)
    return _detail(request, submission, status=400, permission_form=form)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def rights_permission_document(request, public_id, pk: int):
    """A permission's uploaded document, for the organization's governance staff only."""
    submission = _staff_submission_or_404(request, public_id)
    permission = get_object_or_404(RightsHolderPermission, pk=pk, submission=submission)
    if not permission.document:
        raise Http404("This permission has no uploaded document.")
    response = FileResponse(permission.document.open("rb"), as_attachment=True, filename=permission.document_name)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def a1_run_new(request, public_id):
    """Propose the approval of one A1 run on secret sources: approved at once where one signature decides."""
    submission = _staff_submission_or_404(request, public_id)
    form = A1RunForm(request.POST, versions=selectors.a1_run_versions(submission), auto_id="a1_%s")
    if form.is_valid():
        try:
            decision = decisions.propose_a1_run(actor=request.user, submission=submission, **form.cleaned_data)
        except ApplicationError as error:
            _form_error(form, error)
        else:
            return _moved_on(request, decision, "", redirect("submissions:submission", public_id=submission.public_id))
    return _detail(request, submission, status=400, a1_form=form)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def transfer_new(request, public_id):
    submission = _visible_or_404(request, public_id)
    if not selectors.is_staff_for(request.user, submission):
        raise Http404("No such submission among yours.")
    form = TransferForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            decision = decisions.propose_transfer(
                submission=submission,
                actor=request.user,
                developer_keeps=form.cleaned_data["developer_keeps"],
                governance_gets=form.cleaned_data["governance_gets"],
                notes=form.cleaned_data["notes"],
            )
        except ApplicationError as error:
            _form_error(form, error)
        else:
            transfer = getattr(MethodSubmission.objects.get(pk=submission.pk), "transfer", None)
            if decision.state == DecisionState.EXECUTED and transfer is not None:
                messages.success(request, _("The transfer of %(method)s is recorded.") % {
                    "method": transfer.method_name})
                return redirect("submissions:transfer", public_id=transfer.public_id)
            return _moved_on(request, decision, "", redirect("submissions:submission", public_id=submission.public_id))
    return render(request, "submissions/transfer_form.html", {
        "submission": submission, "form": form, "terms": submission.terms_acceptance.terms,
    }, status=400 if form.errors else 200)


def transfer_detail(request, public_id):
    """A public record, like the method page that lists it."""
    transfer = selectors.public_transfer(request.user, public_id)
    if transfer is None:
        raise Http404("No such ownership transfer.")
    return render(request, "submissions/transfer_detail.html", {
        "transfer": transfer, "card": transfer.submission.method_card,
    })


def method_detail(request, method_id: str):
    page = selectors.method_page(request.user, method_id)
    if page is None:
        raise Http404("No such method.")
    return render(request, "submissions/method_detail.html", page)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def dashboard(request, slug: str):
    """What waits for the organization's governance staff: consent per dataset, submissions, campaigns to
    decide, the latest audit events. Nobody else learns that the page exists (404)."""
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "organization.manage", organization):
        raise Http404("No such organization among yours.")
    return render(request, "submissions/dashboard.html", {
        "organization": organization, "board": dashboards.dashboard(request.user, organization),
    })
