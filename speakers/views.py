"""Pages of the speakers' ledger: a speaker's own languages and vouching, governance staff's attestations and
practice round, and the practice round itself. Thin: parse, call a selector or service, render."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from organizations.mfa import secret_holder_required
from organizations.models import Organization, Role
from organizations.permissions import permitted

from . import selectors, services
from .forms import (
    RATING_BUTTONS,
    RATING_LABELS,
    LevelsForm,
    PracticeAnswerForm,
    PracticeItemForm,
    PracticeRoundForm,
    SkillForm,
    VouchForm,
    WithdrawForm,
)
from .models import PRACTICE_MINIMUM_ITEMS, LanguageSkill, PracticeItem, Proficiency


def refused(form, error: services.SpeakerError) -> None:
    """A service's refusal beside the field it names (at the top when the form has no such field)."""
    form.add_error(error.field if error.field in form.fields else None, error.message)


# A speaker's own languages.

@login_required
def my_languages(request):
    """The languages the signed-in person reads and writes, who attested them, and a form to add one."""
    form = SkillForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            skill = services.add_skill(actor=request.user, **form.cleaned_data)
        except services.SpeakerError as error:
            refused(form, error)
        else:
            messages.success(request, _("Recorded: %(skill)s. Ask governance staff of your community, or a speaker "
                                        "who knows you, to attest it.") % {"skill": skill})
            return redirect("speakers:my_languages")
    vouching = selectors.vouching_by_organization(request.user)
    skills = [(skill, LevelsForm(prefix=f"skill-{skill.pk}", initial={"reading": skill.reading,
                                                                       "writing": skill.writing}))
              for skill in selectors.skills_of(request.user)]
    return render(request, "speakers/my_languages.html", {
        "form": form, "skills": skills, "levels": Proficiency.choices,
        "organizations": [(organization, vouching.get(organization.pk, []))
                          for organization in selectors.speaker_organizations(request.user)],
        "minimum": PRACTICE_MINIMUM_ITEMS,
    }, status=400 if form.errors else 200)


@login_required
@require_POST
def change_skill(request, pk: int):
    skill = get_object_or_404(LanguageSkill, pk=pk, user=request.user)
    form = LevelsForm(request.POST, prefix=f"skill-{pk}")
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
        return redirect("speakers:my_languages")
    try:
        services.change_skill(actor=request.user, skill=skill, **form.cleaned_data)
    except services.SpeakerError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Saved: %(skill)s.") % {"skill": skill})
    return redirect("speakers:my_languages")


@login_required
@require_POST
def remove_skill(request, pk: int):
    skill = get_object_or_404(LanguageSkill, pk=pk, user=request.user)
    services.remove_skill(actor=request.user, skill=skill)
    messages.success(request, _("Removed: %(skill)s. Its attestations are withdrawn.") % {"skill": skill})
    return redirect("speakers:my_languages")


def speaker_organization_or_404(request, slug: str) -> Organization:
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "skill.vouch", organization):
        raise Http404(_("No such organization among yours."))
    return organization


@login_required
def vouch(request, slug: str):
    """A speaker vouches for another speaker of the organization, found by e-mail address, in the languages they are
    themselves attested to read fluently."""
    organization = speaker_organization_or_404(request, slug)
    languages = selectors.vouching_languages(request.user, organization)
    form = VouchForm(request.GET if "email" in request.GET else None)
    skills = selectors.vouchable_skills(request.user, organization, form.cleaned_data["email"]) if (
        form.is_bound and form.is_valid()) else []
    if request.method == "POST":
        skill = next((s for s in selectors.vouchable_skills(request.user, organization, request.POST.get("email", ""))
                      if str(s.pk) == request.POST.get("skill")), None)
        if skill is None:
            raise Http404(_("No such language to vouch for."))
        try:
            services.attest_skill(actor=request.user, skill=skill, organization=organization)
        except services.SpeakerError as error:
            messages.error(request, error.message)
        else:
            messages.success(request, _("You vouched for %(skill)s of %(email)s.") % {"skill": skill,
                                                                                    "email": skill.user.email})
        return redirect(reverse("speakers:vouch", args=[slug]) + "?" + urlencode({"email": skill.user.email}))
    return render(request, "speakers/vouch.html", {
        "organization": organization, "languages": languages, "form": form, "skills": skills,
        "searched": form.is_bound and form.is_valid(),
    }, status=400 if form.errors else 200)


# Governance staff.

def governed_organization_or_404(request, slug: str) -> Organization:
    """An organization its governance staff (second factor proven) manage; 404 for everybody else."""
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "organization.manage", organization):
        raise Http404(_("No such organization among yours."))
    return organization


SPEAKERS_PER_PAGE = 50


@login_required
@secret_holder_required(Role.GOVERNANCE)
def organization_speakers(request, slug: str):
    """The organization's speakers with the languages they stated and this organization's attestations: attest a
    language as the speaker states it, or withdraw an attestation."""
    organization = governed_organization_or_404(request, slug)
    page = Paginator(selectors.organization_speakers(organization), SPEAKERS_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "speakers/organization_speakers.html", {
        "organization": organization, "page": page, "withdraw_form": WithdrawForm(),
    })


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def attest(request, slug: str, skill_pk: int):
    organization = governed_organization_or_404(request, slug)
    skill = get_object_or_404(LanguageSkill.objects.select_related("user"), pk=skill_pk,
                              user__memberships__organization=organization, user__memberships__role=Role.SPEAKER)
    try:
        services.attest_skill(actor=request.user, skill=skill, organization=organization)
    except services.SpeakerError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Attested: %(skill)s of %(email)s.") % {"skill": skill, "email": skill.user.email})
    return redirect(reverse("speakers:organization", args=[slug]) + f"#speaker-{skill.user_id}")


@login_required
@require_POST
def withdraw_attestation(request, pk: int):
    """Governance staff of the attestation's organization (second factor proven), or whoever attested it, withdraw
    it; the speaker leaves the open pools it qualified them for."""
    attestation = selectors.attestation_of(pk)
    if attestation is None or attestation.withdrawn_at is not None:
        raise Http404(_("No such attestation."))
    governs = permitted(request.user, "organization.manage", attestation.organization)
    if not governs and attestation.attested_by_id != request.user.pk:
        raise Http404(_("No such attestation."))
    form = WithdrawForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    try:
        services.withdraw_attestation(actor=request.user, attestation=attestation, reason=reason)
    except services.SpeakerError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Attestation withdrawn: %(skill)s of %(email)s.")
                         % {"skill": attestation.skill, "email": attestation.skill.user.email})
    if governs:
        return redirect(reverse("speakers:organization", args=[attestation.organization.slug])
                        + f"#speaker-{attestation.skill.user_id}")
    return redirect("speakers:vouch", slug=attestation.organization.slug)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def practice_settings(request, slug: str):
    """The practice round of the organization: whether it is required, its pass mark and wait, and its items."""
    organization = governed_organization_or_404(request, slug)
    practice = selectors.practice_round(organization)
    form = PracticeRoundForm(request.POST or None, initial={
        "required": practice.required, "pass_mark_percent": practice.pass_mark_percent,
        "retry_wait_hours": practice.retry_wait_hours})
    if request.method == "POST" and form.is_valid():
        try:
            services.set_practice_round(actor=request.user, organization=organization, **form.cleaned_data)
        except services.SpeakerError as error:
            refused(form, error)
        else:
            messages.success(request, _("Practice round saved."))
            return redirect("speakers:practice_settings", slug=slug)
    return render(request, "speakers/practice_settings.html", {
        "organization": organization, "form": form, "items": selectors.practice_items(organization),
        "minimum": PRACTICE_MINIMUM_ITEMS, "labels": RATING_LABELS,
    }, status=400 if form.errors else 200)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def practice_item(request, slug: str, pk: int | None = None):
    """Write a practice item, or change one."""
    organization = governed_organization_or_404(request, slug)
    item = get_object_or_404(selectors.practice_items(organization), pk=pk) if pk is not None else None
    initial = {"source": item.source, "candidate": item.candidate, "right": item.right_ratings,
               "explanation": item.explanation, "source_language": item.source_language,
               "target_language": item.target_language} if item else None
    form = PracticeItemForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.save_practice_item(actor=request.user, organization=organization, item=item, **form.cleaned_data)
        except services.SpeakerError as error:
            refused(form, error)
        else:
            messages.success(request, _("Practice item saved."))
            return redirect("speakers:practice_settings", slug=slug)
    return render(request, "speakers/practice_item_form.html", {
        "organization": organization, "form": form, "item": item,
    }, status=400 if form.errors else 200)


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def retire_practice_item(request, slug: str, pk: int):
    organization = governed_organization_or_404(request, slug)
    item = get_object_or_404(PracticeItem, pk=pk, organization=organization, retired_at__isnull=True)
    try:
        services.retire_practice_item(actor=request.user, item=item)
    except services.SpeakerError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("The item left the practice round."))
    return redirect("speakers:practice_settings", slug=slug)


# The practice round, for speakers.

def practicing_organization_or_404(request, slug: str) -> Organization:
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "practice.take", organization):
        raise Http404(_("No such organization among yours."))
    return organization


@login_required
def practice(request, slug: str):
    """Where the speaker stands with the organization's practice round; starting (or continuing) an attempt."""
    organization = practicing_organization_or_404(request, slug)
    if request.method == "POST":
        try:
            attempt = services.start_practice(actor=request.user, organization=organization)
        except services.SpeakerError as error:
            messages.error(request, error.message)
            return redirect("speakers:practice", slug=slug)
        return redirect("speakers:practice_step", slug=slug, attempt=attempt.pk,
                        position=selectors.answered_count(attempt) + 1)
    state = selectors.practice_state(request.user, organization)
    return render(request, "speakers/practice.html", {"organization": organization, "state": state,
                                                      "minimum": PRACTICE_MINIMUM_ITEMS})


@login_required
def practice_step(request, slug: str, attempt: int, position: int):
    """One item of an attempt: the question (four rating buttons, plain form posts), then, once answered, whether it
    was right, the ratings counted right and the community's explanation."""
    organization = practicing_organization_or_404(request, slug)
    found = selectors.own_attempt(request.user, organization, attempt)
    if found is None:
        raise Http404(_("No such practice attempt among yours."))
    if request.method == "POST":
        form = PracticeAnswerForm(request.POST)
        try:
            if not form.is_valid():
                raise services.SpeakerError(_("Choose one of the four ratings."), "value")
            services.answer_practice_item(actor=request.user, attempt=found, position=position,
                                          value=form.cleaned_data["value"])
        except services.SpeakerError as error:
            messages.error(request, error.message)
        return redirect("speakers:practice_step", slug=slug, attempt=found.pk, position=position)
    step = selectors.attempt_step(found, position)
    if step is None:
        raise Http404(_("No such item in this attempt."))
    answered = selectors.answered_count(found)
    if step.answer is None and position != answered + 1:
        return redirect("speakers:practice_step", slug=slug, attempt=found.pk, position=answered + 1)
    return render(request, "speakers/practice_step.html", {
        "organization": organization, "attempt": found, "step": step, "buttons": RATING_BUTTONS,
        "labels": RATING_LABELS, "last": position == found.total,
    })


@login_required
def practice_result(request, slug: str, attempt: int):
    organization = practicing_organization_or_404(request, slug)
    found = selectors.own_attempt(request.user, organization, attempt)
    if found is None:
        raise Http404(_("No such practice attempt among yours."))
    if found.finished_at is None:
        return redirect("speakers:practice_step", slug=slug, attempt=found.pk,
                        position=selectors.answered_count(found) + 1)
    return render(request, "speakers/practice_result.html", {
        "organization": organization, "attempt": found, "answers": selectors.attempt_answers(found),
        "labels": RATING_LABELS, "state": selectors.practice_state(request.user, organization),
    })
