"""Governance staff's campaign pages: the list, opening one, its page, guidance, status, pool and exports."""

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from common.downloads import as_download
from leaderboard.models import RunCard
from organizations.mfa import secret_holder_required
from organizations.models import Role
from organizations.permissions import permitted

from .. import planning
from ..forms import (
    CampaignForm,
    CampaignGuidanceForm,
    PlanForm,
    RatingExamplesForm,
    SpeakerForm,
)
from ..models import Campaign, RatingExamples
from ..resources import EXPORT_FORMATS, export_ratings
from ..selectors.campaigns import consent_withdrawn, governed_campaigns, is_serving, with_last_rating
from ..selectors.decisions import decision_in_force, gate_policy_for, review_trigger, stored_gate_policy
from ..selectors.figures import shown_ratings_for_export
from ..selectors.pay import estimated_cost
from ..selectors.pool import organization_pool_refusals, pool_progress
from ..selectors.speaker_rights import campaign_speaker_labels
from ..services.campaigns import (
    CampaignSettings,
    open_campaign,
    record_ratings_export,
    set_campaign_guidance,
    set_campaign_status,
    set_rating_examples,
)
from ..services.errors import ReviewError, SettingsRefused
from ..services.figures import request_fresh_figures
from ..services.pool import NOT_IN_POOL, add_speaker, remove_speaker
from .shared import CONTENT_TYPES, governed_or_404, governed_organization_or_404


@login_required
@secret_holder_required(Role.GOVERNANCE)
def campaigns(request):
    listed = list(with_last_rating(governed_campaigns(request.user)))
    request_fresh_figures(listed)
    return render(request, "review/campaigns.html", {"campaigns": listed})


@login_required
@secret_holder_required(Role.GOVERNANCE)
def campaign_new(request, public_id):
    """Open a campaign on a run card of the user's organization (governance staff only)."""
    run_card = RunCard.objects.select_related("dataset_version__dataset__organization", "method").filter(
        public_id=public_id).first()
    if run_card is None or not permitted(request.user, "campaign.open", run_card):
        raise Http404(_("No such run card in your organizations."))
    organization = run_card.dataset_version.dataset.organization
    # A plan (the chance of a pass for some numbers) comes as a GET form, which the page's script fills from the
    # campaign form as it changes; its numbers prefill the campaign's.
    plan_form = PlanForm(request.GET if "plan_size" in request.GET else None, outputs=run_card.result_count)
    planned = plan_form.cleaned_data if plan_form.is_bound and plan_form.is_valid() else {}
    initial = {"sample_size": planned.get("plan_size", min(100, run_card.result_count))}
    if planned:
        initial["ratings_per_item"] = planned["plan_ratings"]
    # Speakers who may not review this card are listed, not selectable, saying why; the variety typed in the form is
    # checked when it is sent.
    refusals = organization_pool_refusals(run_card, organization)
    form = CampaignForm(request.POST or None, organization=organization, refusals=refusals, initial=initial)
    pool_size = form.fields["speakers"].queryset.count() - len(refusals)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        values = CampaignSettings(
            title=data["title"], speaker_title=data["speaker_title"], sample_size=data["sample_size"],
            speakers=list(data["speakers"]),
            ratings_per_item=data["ratings_per_item"], seed=data["seed"], show_reference=data["show_reference"],
            control_count=data["control_count"], deadline=data["deadline"],
            below_threshold_reason=data["below_threshold_reason"], instructions=data["instructions"],
            device_may_hold_secret_items=data["device_may_hold_secret_items"], repeat_count=data["repeat_count"] or 0,
            variety=data["variety"],
        )
        try:
            campaign = open_campaign(run_card=run_card, actor=request.user, values=values)
        except ReviewError as error:
            problems = error.problems if isinstance(error, SettingsRefused) else [(error.field, error.message)]
            for field, message in problems:
                form.add_error(field if field in form.fields else None, message)
        else:
            messages.success(request, _("Campaign opened.") if campaign.status == Campaign.Status.OPEN else
                             _("Campaign recorded; the sample is being drawn and assigned in the background."))
            return redirect("review:campaign", public_id=campaign.public_id)
    if not plan_form.is_bound:
        plan_form = PlanForm(outputs=run_card.result_count, initial={
            "plan_size": form["sample_size"].value(), "plan_ratings": form["ratings_per_item"].value(),
            "plan_speakers": max(1, pool_size)})
    plan = None
    if planned:
        policy = gate_policy_for(organization)
        design = planning.planned_design(planned["plan_size"], planned["plan_ratings"], planned["plan_speakers"],
                                         planning.card_populations(run_card), policy)
        plan = planning.requested_plan(design, policy)
    status = 400 if form.errors or plan_form.errors else 200
    plan_context = {"plan_form": plan_form, "plan": plan, "planned": planned}
    if request.GET.get("fragment") == "plan":
        return render(request, "review/_plan.html", plan_context, status=status)
    size, per_item = ((planned["plan_size"], planned["plan_ratings"]) if planned
                      else (initial["sample_size"], form.initial.get("ratings_per_item", 3)))
    return render(request, "review/campaign_new.html", {
        "run_card": run_card, "form": form, **plan_context,
        "cost": estimated_cost(organization, size * per_item),
        "public_outputs": run_card.segment in ("development", "diagnostic", "mixed"),
        "trigger": review_trigger(run_card, stored_gate_policy(organization)),
    }, status=status)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def campaign_detail(request, public_id):
    return campaign_page(request, governed_or_404(request, public_id))


def campaign_page(request, campaign: Campaign, guidance_form: CampaignGuidanceForm | None = None, status: int = 200):
    """The campaign's page; with a refused `guidance_form`, that form as it was sent, its errors beside it."""
    pool = pool_progress(campaign)
    active = [row["member"].user_id for row in pool if row["member"].left_at is None]
    refusals = organization_pool_refusals(campaign.run_card, campaign.organization, campaign.variety)
    return render(request, "review/campaign_detail.html", {
        "campaign": campaign, "pool": pool, "serving": is_serving(campaign),
        "withdrawn": consent_withdrawn(campaign),
        "speaker_form": SpeakerForm(organization=campaign.organization, exclude=active, refusals=refusals),
        "guidance_form": guidance_form or CampaignGuidanceForm(initial={
            "instructions": campaign.instructions,
            "device_may_hold_secret_items": campaign.device_may_hold_secret_items}),
        "decision": decision_in_force(campaign),
        "strata": [{**stratum, "label": stratum_name(stratum.get("difficulty"))} for stratum in campaign.strata],
    }, status=status)


def stratum_name(difficulty: int | None) -> str:
    """A stratum as the reader's language names it (the stored English label is part of the sampling seed)."""
    return _("No difficulty") if difficulty is None else _("Difficulty %(difficulty)s") % {"difficulty": difficulty}


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def campaign_guidance(request, public_id):
    """Change the speakers' instructions (and whether phones may keep secret items) while the campaign runs."""
    campaign = governed_or_404(request, public_id)
    form = CampaignGuidanceForm(request.POST)
    if form.is_valid():
        try:
            set_campaign_guidance(
                campaign=campaign,
                actor=request.user,
                instructions=form.cleaned_data["instructions"],
                device_may_hold_secret_items=form.cleaned_data["device_may_hold_secret_items"],
            )
        except ReviewError as error:
            # At the top of the page: a closed campaign's page shows its instructions without the form.
            messages.error(request, str(error))
        else:
            messages.success(request, _("Instructions saved: speakers see them from their next item."))
            return redirect("review:campaign", public_id=campaign.public_id)
    # Refused: the page again with what was typed, each error beside its field.
    return campaign_page(request, campaign, guidance_form=form, status=400)


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def campaign_status(request, public_id):
    campaign = governed_or_404(request, public_id)
    try:
        set_campaign_status(
            campaign=campaign,
            actor=request.user,
            status=request.POST.get("status", ""),
            reason=request.POST.get("reason", ""),
        )
    except ReviewError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("Campaign status changed."))
    return redirect("review:campaign", public_id=campaign.public_id)


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def campaign_speakers(request, public_id):
    """Add a speaker to the pool, or remove one (their unrated items are reassigned)."""
    campaign = governed_or_404(request, public_id)
    User = get_user_model()
    try:
        if request.POST.get("remove"):
            speaker_id = request.POST["remove"]
            user = User.objects.filter(pk=speaker_id).first() if speaker_id.isdigit() else None
            if user is None:
                raise ReviewError(_(NOT_IN_POOL), "speaker")
            moved = remove_speaker(campaign=campaign, user=user, actor=request.user)
            messages.success(request, ngettext(
                "%(email)s left the campaign; %(count)s item went to other speakers.",
                "%(email)s left the campaign; %(count)s items went to other speakers.",
                moved) % {"email": user.email, "count": moved})
        else:
            form = SpeakerForm(request.POST, organization=campaign.organization)
            if not form.is_valid():
                raise ReviewError(_("Choose one of your organization's speakers."), "speaker")
            add_speaker(campaign=campaign, user=form.cleaned_data["speaker"], actor=request.user)
            messages.success(request, _("%(email)s joined the campaign.") % {
                "email": form.cleaned_data["speaker"].email})
    except ReviewError as error:
        messages.error(request, str(error))
    return redirect("review:campaign", public_id=campaign.public_id)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def ratings_export(request, public_id, file_format: str):
    campaign = governed_or_404(request, public_id)
    if file_format not in EXPORT_FORMATS:
        raise Http404(_("Unknown export format."))
    ratings, count = shown_ratings_for_export(request.user, campaign, where=request.path)
    record_ratings_export(actor=request.user, campaign=campaign, file_format=file_format, count=count)
    content = export_ratings(ratings, file_format, campaign_speaker_labels(campaign))
    response = HttpResponse(content, content_type=CONTENT_TYPES[file_format])
    return as_download(response, f"ratings-{campaign.public_id}", file_format)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def rating_examples(request, slug: str):
    """The community's own examples of each rating, which the rating page shows to its speakers."""
    organization = governed_organization_or_404(request, slug)
    instance = (RatingExamples.objects.filter(organization=organization).first()
                or RatingExamples(organization=organization))
    form = RatingExamplesForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid():
        values = {name: form.cleaned_data[name] for name in form.Meta.fields}
        set_rating_examples(organization=organization, actor=request.user, values=values)
        messages.success(request, _("Rating examples saved: speakers see them on their next item."))
        return redirect("review:rating_examples", slug=slug)
    return render(request, "review/rating_examples.html", {"organization": organization, "form": form},
                  status=400 if form.errors else 200)
