"""Pages of community review: the speakers' queue and rating page, and governance staff's campaign,
decision and threshold pages. Thin: parse, call a selector or service, render."""

import uuid
from collections.abc import Callable
from decimal import Decimal

from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_POST

from common.downloads import as_download
from common.errors import ApplicationError
from leaderboard.models import RunCard
from organizations.mfa import secret_holder_required
from organizations.models import Organization, Role
from organizations.permissions import permitted
from speakers.selectors import practice_due

from . import charts, planning, rating_texts, selectors, services
from .forms import (
    CampaignForm,
    CampaignGuidanceForm,
    CampaignRateForm,
    CreditForm,
    DecisionForm,
    DeleteAccountForm,
    GatePolicyForm,
    PaymentForm,
    PayPolicyForm,
    PlanForm,
    RatingExamplesForm,
    RatingForm,
    SpeakerForm,
    shown_token,
)
from .gate import evaluate_gate
from .languages import text_direction
from .models import Campaign, GatePolicy, RatingExamples
from .rating_texts import CANNOT_JUDGE, FLAG_LABELS, RATING_BUTTONS
from .resources import EXPORT_FORMATS, export_ratings, export_timesheet

CONTENT_TYPES = {"csv": "text/csv; charset=utf-8",
                 "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}


def private(response):
    """Pages with an item's texts (secret ones included) stay out of shared and back-button caches."""
    patch_cache_control(response, private=True, no_store=True)
    return response


def wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


# Speakers.

@login_required
def queue(request):
    """A speaker's review home: their campaigns, how far they are, where to continue."""
    return render(request, "review/queue.html", {
        "rows": selectors.speaker_campaigns(request.user),
        "governs": bool(selectors.governed_campaigns(request.user).exists()),
        "practice_due": practice_due(request.user),
    })


@login_required
def campaign_start(request, public_id):
    """Continue where the speaker stopped: their next item in their own order, or the end screen. Before their
    first rating, the campaign's instructions come first, with a button to start."""
    campaign = speaker_campaign_or_404(request, public_id)
    if not selectors.is_serving(campaign):
        return not_serving(request, campaign)
    start = item_url(campaign.public_id, selectors.next_assignment_id(request.user, campaign))
    if campaign.instructions.strip() and not selectors.has_rated_in(request.user, campaign):
        return render(request, "review/instructions.html", {
            "campaign": campaign, "version": campaign.run_card.dataset_version, "start_url": start,
            "rating_rows": rating_rows(selectors.rating_examples(campaign.organization)),
        })
    return redirect(start)


def item_url(campaign_public_id: uuid.UUID, following: uuid.UUID | None) -> str:
    """Where a speaker goes after a rating: straight to their next item (its page applies the serving rule), or to
    the campaign's end screen — one redirect, not two through the campaign's start."""
    if following is None:
        return reverse("review:campaign_done", kwargs={"public_id": campaign_public_id})
    return reverse("review:rate", kwargs={"public_id": following})


ANY_ITEM = uuid.UUID(int=0)


def rate_url_maker() -> Callable[[uuid.UUID], str]:
    """The rating page's address of any item from one `reverse` (the addresses differ only in the item's id): twenty
    `reverse` calls cost about 0.3 ms of the upcoming items' 4.25 ms of CPU."""
    template, placeholder = reverse("review:rate", kwargs={"public_id": ANY_ITEM}), str(ANY_ITEM)
    return lambda public_id: template.replace(placeholder, str(public_id))


def not_serving(request, campaign: Campaign):
    withdrawn = selectors.consent_withdrawn(campaign)
    return render(request, "review/not_serving.html", {"campaign": campaign, "withdrawn": withdrawn}, status=409)


def not_serving_message(campaign: Campaign) -> str:
    """Why a rating was refused once the campaign stopped taking them, in the words of the page that says so:
    rate.js shows it and discards the ratings still waiting on the phone."""
    if selectors.consent_withdrawn(campaign):
        return str(rating_texts.NOT_SERVING_CONSENT_WITHDRAWN)
    if campaign.status == Campaign.Status.CLOSED:
        return str(rating_texts.NOT_SERVING_CLOSED)
    return str(rating_texts.NOT_SERVING_PAUSED)


@login_required
def campaign_done(request, public_id):
    campaign = speaker_campaign_or_404(request, public_id)
    return render(request, "review/done.html", {
        "campaign": campaign,
        "progress": selectors.speaker_progress(request.user, campaign),
        "history": selectors.speaker_history(request.user, campaign),
        "serving": selectors.is_serving(campaign),
    })


@login_required
def upcoming(request, public_id):
    """The speaker's next open items as data, for rate.js to show the next one without waiting and to keep
    rating without a connection. Secret items only when the campaign lets phones hold them."""
    campaign = selectors.speaker_campaign_for_items(request.user, public_id)
    if campaign is None:
        raise Http404(_("No such campaign among yours."))
    if not campaign.serving_when_read:
        message = not_serving_message(speaker_campaign_or_404(request, public_id))
        return private(JsonResponse({"error": message, "code": "not_serving"}, status=409))
    items, held_back = selectors.shown_upcoming_items(request.user, campaign, where=request.path)
    rate_url = rate_url_maker()
    return private(JsonResponse({"items": [
        {"id": str(assignment.public_id),
         "url": rate_url(assignment.public_id),
         "shown": shown_token(assignment.public_id), **texts}
        for assignment, texts in items
    ], "held_back": held_back}))


def wants_next_page(request) -> bool:
    """rate.js asks for the next item's page as the answer to a rating: one round trip per rating."""
    return request.headers.get("X-Next-Item") == "page"


def holds_next_item(request) -> bool:
    """rate.js says it holds the item it shows next: its JSON answer need not name the next item (`next_url` is
    null), which saves the rating a query."""
    return request.headers.get("X-Next-Item") == "held" and wants_json(request)


@login_required
def rate(request, public_id):
    """One item: read, rate, next. Works as plain form posts (a rating answers with a redirect to the next item);
    rate.js adds keys, a queue of ratings kept on the device until sent, and the next items fetched ahead."""
    if request.method == "POST":
        return rate_post(request, public_id)
    assignment = selectors.speaker_assignment(request.user, public_id)
    if assignment is None:
        raise Http404(_("No such item among yours."))
    # The one serving rule, whatever the method: an item's texts only while its campaign serves it.
    if not assignment.campaign.serving_when_read:
        return not_serving(request, assignment.campaign)
    current = selectors.current_rating(assignment)
    # After an undo the item comes back with the flags, comment and translation that were given with it.
    given = current if current is not None else (
        selectors.withdrawn_rating(assignment) if "restore" in request.GET else None)
    initial = {}
    if given is not None:
        initial = {"flags": given.flags, "comment": given.comment, "correction": given.correction}
    return item_page(request, assignment, RatingForm(initial=initial), current)


def rate_post(request, public_id):
    """The hot path: the service locks the speaker's assignment and decides in its transaction whether they may
    rate it (in the pool, a speaker of the organization, the campaign serving). A post goes to the service even when
    the campaign stopped serving: a retry of a rating stored before the pause is acknowledged as stored; anything
    new is refused there. Only an answer that shows an item reads texts."""
    # An answer that is the next item's page needs the campaign's card and community: read them with the item.
    shown = selectors.speaker_assignment(request.user, public_id) if wants_next_page(request) else None
    script = wants_json(request) or wants_next_page(request)
    form = RatingForm(request.POST)
    if form.is_valid():
        try:
            rating, created = services.record_rating(
                actor=request.user, item=public_id, submission=form.submission(public_id))
        except services.NotAllowed as error:
            raise Http404(str(error)) from error
        except services.ReviewError as error:
            if script:
                shown = shown or selectors.speaker_assignment(request.user, public_id)
                if shown is None:
                    raise Http404(_("No such item among yours.")) from error
                if not shown.campaign.serving_when_read:
                    return JsonResponse({"error": not_serving_message(shown.campaign), "code": "not_serving"},
                                        status=409)
                return JsonResponse({"error": str(error), "field": error.field, "code": "refused"}, status=409)
            form.add_error(None, str(error))
        else:
            return rated(request, shown.campaign if shown is not None else None, rating, created)
    elif script:
        errors = {name: [str(e) for e in errs] for name, errs in form.errors.items()}
        return JsonResponse({"error": _("The rating was not saved."), "fields": errors, "code": "invalid"},
                            status=400)
    shown = shown or selectors.speaker_assignment(request.user, public_id)
    if shown is None:
        raise Http404(_("No such item among yours."))
    if not shown.campaign.serving_when_read:
        return not_serving(request, shown.campaign)
    return item_page(request, shown, form, selectors.current_rating(shown))


def speaker_campaign_or_404(request, public_id) -> Campaign:
    campaign = selectors.speaker_campaign(request.user, public_id)
    if campaign is None:
        raise Http404(_("No such campaign among yours."))
    return campaign


def rated(request, campaign: Campaign | None, rating, created: bool):
    """The answer to a stored rating: the next item's page itself when rate.js has nothing left to show (and the
    campaign still serves; `campaign` is then the one read with the item), JSON for rate.js otherwise (naming the
    next item unless rate.js holds it), a redirect to the next item or the end screen without JavaScript."""
    rated_item = rating.assignment
    if campaign is not None:
        following = selectors.next_assignment(request.user, campaign)
        next_url = item_url(campaign.public_id, following and following.public_id)
        # A rating just stored proves the campaign serves (the service checked, in its transaction); a resent
        # one proves nothing.
        if following is not None and (created or selectors.is_serving(campaign)):
            response = item_page(request, following, RatingForm(), None)
            response["X-Item-Url"] = next_url
            response["X-Rating-Saved"] = "stored" if created else "duplicate"
            return response
    elif holds_next_item(request):
        next_url = None
    else:
        next_url = item_url(rated_item.campaign.public_id,
                            selectors.next_assignment_id(request.user, rated_item.campaign_id))
    if wants_json(request) or wants_next_page(request):
        return JsonResponse({"saved": True, "duplicate": not created, "rating": rating.value,
                             "next_url": next_url}, status=201 if created else 200)
    return redirect(next_url)


def rating_rows(examples: dict) -> list[tuple]:
    """The rating scale as the page explains it: (value, key, label, explanation, the community's example or ""),
    "can't judge" last. `examples` is keyed by rating value or by the rating's key (0–4)."""
    rows = [*RATING_BUTTONS, CANNOT_JUDGE]
    return [(value, key, label, explanation, examples.get(value) or examples.get(int(key)) or "")
            for value, key, label, explanation in rows]


def item_page(request, assignment, form: RatingForm, current):
    campaign = assignment.campaign
    # The server's clock for this showing: what a rating posted without the page's script is timed by.
    form.fields["shown"].initial = shown_token(assignment.public_id)
    progress = selectors.speaker_progress(request.user, campaign)
    version = campaign.run_card.dataset_version
    examples = selectors.loaded_rating_examples(campaign.organization)
    return private(render(request, "review/rate.html", {
        "assignment": assignment, "campaign": campaign, "form": form, "current": current,
        "texts": selectors.shown_item_texts(request.user, campaign, assignment.item,
                                            where=reverse("review:rate", kwargs={"public_id": assignment.public_id})),
        "version": version, "source_dir": text_direction(version.source_language),
        "target_dir": text_direction(version.target_language),
        "progress": progress, "buttons": RATING_BUTTONS, "rating_rows": rating_rows(examples),
        "may_hold": selectors.may_hold(campaign, assignment.item),
        # A rated or skipped item always holds the speaker's current rating: something to undo.
        "can_undo": progress["done"] > 0,
    }, status=400 if form.errors else 200))


@login_required
@require_POST
def undo(request, public_id):
    campaign = speaker_campaign_or_404(request, public_id)
    try:
        assignment = services.undo_last_rating(campaign=campaign, actor=request.user)
    except services.ReviewError as error:
        messages.error(request, str(error))
        return redirect("review:queue")
    if assignment is None:
        messages.info(request, _("There is no rating to undo."))
        return redirect("review:campaign_start", public_id=campaign.public_id)
    messages.success(request, _("Your last rating was withdrawn (it stays in the history). Rate this item again."))
    return redirect(reverse("review:rate", kwargs={"public_id": assignment.public_id}) + "?restore")


@login_required
def offline_shell(request, public_id):
    """The rating page without an item: rate.js stores it under the addresses of the items it holds, and fills it
    with the held item when the page is reloaded without a connection (`service_worker`)."""
    campaign = speaker_campaign_or_404(request, public_id)
    if not selectors.is_serving(campaign):
        return not_serving(request, campaign)
    version = campaign.run_card.dataset_version
    texts = {"source": "", "candidate": ""} | ({"reference": ""} if campaign.show_reference else {})
    return private(render(request, "review/rate.html", {
        "shell": True, "campaign": campaign, "form": RatingForm(), "current": None, "texts": texts,
        "version": version, "source_dir": text_direction(version.source_language),
        "target_dir": text_direction(version.target_language),
        "progress": selectors.speaker_progress(request.user, campaign), "buttons": RATING_BUTTONS,
        "rating_rows": rating_rows(selectors.rating_examples(campaign.organization)), "can_undo": False,
    }))


def service_worker(request):
    """rate.js's service worker, served under /review/ so that its scope covers the rating pages; it holds no data
    of its own (rate.js decides what is stored)."""
    response = render(request, "review/service_worker.js", content_type="text/javascript; charset=utf-8")
    patch_cache_control(response, no_cache=True)
    return response


# Governance staff.

def governed_organization_or_404(request, slug: str) -> Organization:
    """An organization its governance staff set policies for; 404 for everybody else."""
    organization = get_object_or_404(Organization, slug=slug)
    if not permitted(request.user, "organization.govern", organization):
        raise Http404(_("No such organization among yours."))
    return organization


def governed_or_404(request, public_id) -> Campaign:
    campaign = selectors.governed_campaign(request.user, public_id)
    if campaign is None:
        raise Http404(_("No such campaign in your organizations."))
    return campaign


@login_required
@secret_holder_required(Role.GOVERNANCE)
def campaigns(request):
    listed = list(selectors.with_last_rating(selectors.governed_campaigns(request.user)))
    services.request_fresh_figures(listed)
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
    refusals = selectors.organization_pool_refusals(run_card, organization)
    form = CampaignForm(request.POST or None, organization=organization, refusals=refusals, initial=initial)
    pool_size = form.fields["speakers"].queryset.count() - len(refusals)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        values = services.CampaignSettings(
            title=data["title"], sample_size=data["sample_size"], speakers=list(data["speakers"]),
            ratings_per_item=data["ratings_per_item"], seed=data["seed"], show_reference=data["show_reference"],
            control_count=data["control_count"], deadline=data["deadline"],
            below_threshold_reason=data["below_threshold_reason"], instructions=data["instructions"],
            device_may_hold_secret_items=data["device_may_hold_secret_items"], repeat_count=data["repeat_count"] or 0,
            variety=data["variety"],
        )
        try:
            campaign = services.open_campaign(run_card=run_card, actor=request.user, values=values)
        except services.ReviewError as error:
            form.add_error(error.field if error.field in form.fields else None, str(error))
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
        policy = selectors.gate_policy_for(organization)
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
        "cost": selectors.estimated_cost(organization, size * per_item),
        "public_outputs": run_card.segment in ("development", "diagnostic", "mixed"),
        "trigger": selectors.review_trigger(run_card, selectors.stored_gate_policy(organization)),
    }, status=status)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def campaign_detail(request, public_id):
    return campaign_page(request, governed_or_404(request, public_id))


def campaign_page(request, campaign: Campaign, guidance_form: CampaignGuidanceForm | None = None, status: int = 200):
    """The campaign's page; with a refused `guidance_form`, that form as it was sent, its errors beside it."""
    pool = selectors.pool_progress(campaign)
    active = [row["member"].user_id for row in pool if row["member"].left_at is None]
    refusals = selectors.organization_pool_refusals(campaign.run_card, campaign.organization, campaign.variety)
    return render(request, "review/campaign_detail.html", {
        "campaign": campaign, "pool": pool, "serving": selectors.is_serving(campaign),
        "withdrawn": selectors.consent_withdrawn(campaign),
        "speaker_form": SpeakerForm(organization=campaign.organization, exclude=active, refusals=refusals),
        "guidance_form": guidance_form or CampaignGuidanceForm(initial={
            "instructions": campaign.instructions,
            "device_may_hold_secret_items": campaign.device_may_hold_secret_items}),
        "decision": selectors.decision_in_force(campaign),
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
            services.set_campaign_guidance(
                campaign=campaign,
                actor=request.user,
                instructions=form.cleaned_data["instructions"],
                device_may_hold_secret_items=form.cleaned_data["device_may_hold_secret_items"],
            )
        except services.ReviewError as error:
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
        services.set_campaign_status(
            campaign=campaign,
            actor=request.user,
            status=request.POST.get("status", ""),
            reason=request.POST.get("reason", ""),
        )
    except services.ReviewError as error:
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
                raise services.ReviewError(_(services.NOT_IN_POOL), "speaker")
            moved = services.remove_speaker(campaign=campaign, user=user, actor=request.user)
            messages.success(request, ngettext(
                "%(email)s left the campaign; %(count)s item went to other speakers.",
                "%(email)s left the campaign; %(count)s items went to other speakers.",
                moved) % {"email": user.email, "count": moved})
        else:
            form = SpeakerForm(request.POST, organization=campaign.organization)
            if not form.is_valid():
                raise services.ReviewError(_("Choose one of your organization's speakers."), "speaker")
            services.add_speaker(campaign=campaign, user=form.cleaned_data["speaker"], actor=request.user)
            messages.success(request, _("%(email)s joined the campaign.") % {
                "email": form.cleaned_data["speaker"].email})
    except services.ReviewError as error:
        messages.error(request, str(error))
    return redirect("review:campaign", public_id=campaign.public_id)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def decision(request, public_id):
    """The evidence (aggregates, charts, flagged items, speaker reliability), the gate's recommendation,
    and the decision form."""
    campaign = governed_or_404(request, public_id)
    in_force = selectors.decision_in_force(campaign)
    can_revoke = in_force is not None and in_force.outcome == "approve"
    form = DecisionForm(request.POST or None, can_revoke=can_revoke)
    if request.method == "POST" and form.is_valid():
        try:
            services.record_decision(
                campaign=campaign,
                actor=request.user,
                outcome=form.cleaned_data["outcome"],
                rationale=form.cleaned_data["rationale"],
                against_recommendation=form.cleaned_data["against_recommendation"],
            )
        except services.ReviewError as error:
            form.add_error(error.field if error.field in form.fields else None, str(error))
        else:
            messages.success(request, _("Decision recorded."))
            return redirect("review:decision", public_id=campaign.public_id)
    # The campaign's ratings counted once (per speaker): the evidence's state, who rated, what needs attention.
    summary = selectors.rating_summary(campaign)
    aggregate = selectors.campaign_aggregate(campaign, summary=summary)
    policy = selectors.gate_policy_for(campaign.organization)
    attention = selectors.shown_items_needing_attention(request.user, campaign, where=request.path,
                                                        page_number=request.GET.get("page"), summary=summary)
    # Every list of speakers on the page names them as each chose to be credited.
    speakers = selectors.rating_speakers(campaign, summary)
    names = selectors.campaign_speaker_labels(campaign, speakers)
    for rating in attention.object_list:
        rating.speaker_label = names.get(rating.speaker_id, "")
    # Speakers left out by governance staff: the figures are without them, the speakers' table and a second
    # recommendation with every speaker.
    exclusions = selectors.excluded_speakers(campaign)
    for exclusion in exclusions:
        exclusion.speaker_label = names.get(exclusion.speaker_id, "")
    every = selectors.campaign_aggregate(campaign, every_speaker=True, summary=summary) if exclusions else aggregate
    excluded = {exclusion.speaker_id: exclusion for exclusion in exclusions}
    return private(render(request, "review/decision.html", {
        "group_tables": [(_("Difficulty tiers"), _("Tier"), flagged_groups(aggregate.tiers)),
                         (_("Domains"), _("Domain"), flagged_groups(aggregate.domains))],
        "flag_counts": [(FLAG_LABELS[name], count) for name, count in aggregate.campaign.flag_counts.items()],
        "speakers": [{"name": names.get(r.speaker_id, ""), "reliability": r, "exclusion": excluded.get(r.speaker_id)}
                     for r in every.speakers],
        "exclusions": exclusions,
        "gate_every_speaker": evaluate_gate(every, policy, speaker_names=names) if exclusions else None,
        "withdrawn_since": selectors.ratings_withdrawn_since(in_force) if in_force else 0,
        "withdrawals": selectors.withdrawals_of(campaign), "credits": selectors.campaign_credits(campaign, speakers),
        "campaign": campaign, "aggregate": aggregate, "policy": policy,
        "outputs": sum(selectors.tier_populations(campaign).values()),
        "gate": evaluate_gate(aggregate, policy, speaker_names=names),
        "distribution_chart": charts.distribution_chart(aggregate.tiers),
        "usable_chart": charts.usable_chart([aggregate.campaign, *aggregate.tiers], policy.min_usable_lower_bound),
        "attention": attention, "decisions": selectors.decisions_of(campaign), "in_force": in_force,
        "form": form, "transfer_eligible": selectors.transfer_eligible(campaign.run_card),
        "conflict": selectors.decision_conflict(request.user, campaign),
    }, status=400 if form.errors else 200))


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def speaker_exclusion(request, public_id, speaker_id: int):
    """Leave a speaker's ratings out of the campaign's figures (with a reason), or count them again."""
    campaign = governed_or_404(request, public_id)
    speaker = get_object_or_404(campaign.pool.select_related("user"), user_id=speaker_id).user
    # Named as on the decision page: as the speaker chose to be credited.
    name = selectors.campaign_speaker_labels(campaign).get(speaker.pk, "")
    try:
        if request.POST.get("include"):
            services.include_speaker(actor=request.user, campaign=campaign, speaker=speaker)
            messages.success(request, _("The ratings of %(email)s count again.") % {"email": name})
        else:
            services.exclude_speaker(actor=request.user, campaign=campaign, speaker=speaker,
                                     reason=request.POST.get("reason", ""))
            messages.success(request, _("The ratings of %(email)s are left out of the figures.") % {"email": name})
    except services.ReviewError as error:
        messages.error(request, str(error))
    return redirect(reverse("review:decision", kwargs={"public_id": campaign.public_id}) + "#speakers")


FLAG_SHORT = {"semantically_wrong": gettext_lazy("wrong meaning"), "culturally_inappropriate": gettext_lazy("cultural"),
              "hallucination": gettext_lazy("hallucination"), "acceptable_variant": gettext_lazy("valid variant")}


def flagged_groups(groups) -> list[tuple]:
    """Each group with its non-zero flag counts in words, for the per-tier and per-domain tables."""
    return [(group, ", ".join(_("%(flag)s %(count)s") % {"flag": FLAG_SHORT[name], "count": count}
                              for name, count in group.flag_counts.items() if count))
            for group in groups]


@login_required
@secret_holder_required(Role.GOVERNANCE)
def ratings_export(request, public_id, file_format: str):
    campaign = governed_or_404(request, public_id)
    if file_format not in EXPORT_FORMATS:
        raise Http404(_("Unknown export format."))
    ratings, count = selectors.shown_ratings_for_export(request.user, campaign, where=request.path)
    services.record_ratings_export(actor=request.user, campaign=campaign, file_format=file_format, count=count)
    content = export_ratings(ratings, file_format, selectors.campaign_speaker_labels(campaign))
    response = HttpResponse(content, content_type=CONTENT_TYPES[file_format])
    return as_download(response, f"ratings-{campaign.public_id}", file_format)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def gate_policy(request, slug: str):
    organization = governed_organization_or_404(request, slug)
    instance = selectors.stored_gate_policy(organization) or GatePolicy(organization=organization)
    form = GatePolicyForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid():
        values = {name: form.cleaned_data[name] for name in form.Meta.fields}
        services.set_gate_policy(organization=organization, actor=request.user, values=values)
        messages.success(request, _("Gate thresholds saved."))
        return redirect("review:gate_policy", slug=slug)
    return render(request, "review/gate_policy.html", {"organization": organization, "form": form},
                  status=400 if form.errors else 200)


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
        services.set_rating_examples(organization=organization, actor=request.user, values=values)
        messages.success(request, _("Rating examples saved: speakers see them on their next item."))
        return redirect("review:rating_examples", slug=slug)
    return render(request, "review/rating_examples.html", {"organization": organization, "form": form},
                  status=400 if form.errors else 200)


# The speaker's own page: time, pay, credit, withdrawal.


@login_required
def my_ratings(request):
    """The speaker's hours and amount owed per campaign, how each organization credits them, and the way to
    withdraw their ratings. Only their own: every read filters on the signed-in user."""
    rows = selectors.speaker_pay(request.user)
    credits = selectors.credit_choices(request.user)
    organizations = selectors.credits_to_choose(request.user)
    credit_forms = [(organization, CreditForm(prefix=organization.slug, initial={
        "choice": credits[organization.pk].choice if organization.pk in credits else "anonymous",
        "display_name": credits[organization.pk].display_name if organization.pk in credits else "",
        "full_name": request.user.get_full_name()})) for organization in organizations]
    return private(render(request, "review/my_ratings.html", {
        "rows": rows, "credit_forms": credit_forms, "can_withdraw_any": any(row.can_withdraw for row in rows),
    }))


@login_required
@require_POST
def my_credit(request, slug: str):
    organization = get_object_or_404(Organization, slug=slug)
    form = CreditForm(request.POST, prefix=slug)
    if form.is_valid():
        try:
            services.set_speaker_credit(actor=request.user, organization=organization,
                                        choice=form.cleaned_data["choice"],
                                        display_name=form.cleaned_data["display_name"],
                                        full_name=form.cleaned_data["full_name"])
        except services.NotAllowed as error:
            raise Http404(str(error)) from error
        except services.ReviewError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, _("Saved: %(organization)s credits you this way from now on, on every list.")
                             % {"organization": organization.name})
    else:
        messages.error(request, " ".join(str(e) for errors in form.errors.values() for e in errors))
    return redirect(reverse("review:my_ratings") + "#credit")


@login_required
def withdraw(request, public_id):
    """A confirmation that says what withdrawing does, then the withdrawal (POST)."""
    campaign = selectors.speaker_campaign_to_withdraw(request.user, public_id)
    if campaign is None:
        raise Http404(_("No ratings of yours to withdraw in this campaign."))
    if request.method == "POST":
        try:
            withdrawal = services.withdraw_ratings(actor=request.user, campaign=campaign)
        except services.ReviewError as error:  # a second tap that found them already withdrawn
            messages.info(request, str(error))
            return redirect("review:my_ratings")
        messages.success(request, ngettext(
            "Withdrawn: your %(count)d rating no longer counts anywhere.",
            "Withdrawn: your %(count)d ratings no longer count anywhere.", withdrawal.rating_rows)
            % {"count": withdrawal.rating_rows})
        return redirect("review:my_ratings")
    return private(render(request, "review/withdraw.html", {
        "campaigns": [campaign], "action": reverse("review:withdraw", args=[campaign.public_id])}))


@login_required
def withdraw_all(request):
    campaigns = [row.campaign for row in selectors.speaker_pay(request.user) if row.can_withdraw]
    if not campaigns:
        raise Http404(_("No ratings of yours to withdraw."))
    if request.method == "POST":
        withdrawals = services.withdraw_all_ratings(actor=request.user)
        count = sum(withdrawal.rating_rows for withdrawal in withdrawals)
        messages.success(request, ngettext(
            "Withdrawn: your %(count)d rating no longer counts anywhere.",
            "Withdrawn: your %(count)d ratings no longer count anywhere.", count) % {"count": count})
        return redirect("review:my_ratings")
    return private(render(request, "review/withdraw.html", {
        "campaigns": campaigns, "action": reverse("review:withdraw_all"), "every": True}))


# Governance staff: pay.


@login_required
@secret_holder_required(Role.GOVERNANCE)
def timesheet(request, public_id):
    """Each speaker's time in the campaign, what it is owed and what was paid; the campaign's rate; recording a
    payment or a correction."""
    campaign = governed_or_404(request, public_id)
    rate = selectors.campaign_rate(campaign)
    rows = selectors.timesheet(campaign, rate)
    payments = list(selectors.payments_of(campaign))
    names = {row.speaker_id: row.email for row in rows}
    payment_form = PaymentForm(
        request.POST if "record_payment" in request.POST else None,
        speakers=[(row.speaker_id, row.email) for row in rows],
        payments=[(p.pk, f"#{p.pk} · {names.get(p.speaker_id, p.speaker.email)} · {p.amount} {p.currency} · "
                         f"{p.paid_on.isoformat()}") for p in payments])
    rate_form = CampaignRateForm(request.POST if "set_rate" in request.POST else None, initial={
        "hourly_rate": campaign.hourly_rate, "currency": campaign.currency})
    if request.method == "POST":
        try:
            if "record_payment" in request.POST and payment_form.is_valid():
                data = payment_form.cleaned_data
                speaker = get_object_or_404(get_user_model(), pk=data["speaker"])
                corrects = next((p for p in payments if p.pk == data["corrects"]), None)
                services.record_payment(actor=request.user, campaign=campaign, speaker=speaker,
                                        amount=data["amount"], paid_on=data["paid_on"], reference=data["reference"],
                                        note=data["note"], corrects=corrects)
                messages.success(request, _("Payment recorded."))
                return redirect("review:timesheet", public_id=campaign.public_id)
            if "set_rate" in request.POST and rate_form.is_valid():
                services.set_campaign_rate(actor=request.user, campaign=campaign,
                                           hourly_rate=rate_form.cleaned_data["hourly_rate"],
                                           currency=rate_form.cleaned_data["currency"] or "")
                messages.success(request, _("The campaign's rate is saved."))
                return redirect("review:timesheet", public_id=campaign.public_id)
        except services.ReviewError as error:
            form = payment_form if "record_payment" in request.POST else rate_form
            form.add_error(error.field if error.field in form.fields else None, str(error))
    invalid = payment_form.errors or rate_form.errors
    owed = None if rate.hourly_rate is None else sum((row.owed or Decimal(0) for row in rows), start=Decimal("0.00"))
    paid = sum((row.paid for row in rows), start=Decimal("0.00"))
    return private(render(request, "review/timesheet.html", {
        "campaign": campaign, "rate": rate, "rows": rows, "payments": payments, "payment_form": payment_form,
        "rate_form": rate_form, "totals": {
            "hours": sum(row.hours for row in rows), "ratings": sum(row.ratings for row in rows), "owed": owed,
            "paid": paid, "balance": None if owed is None else owed - paid},
    }, status=400 if invalid else 200))


@login_required
@secret_holder_required(Role.GOVERNANCE)
def timesheet_export(request, public_id, file_format: str):
    campaign = governed_or_404(request, public_id)
    if file_format not in EXPORT_FORMATS:
        raise Http404(_("Unknown export format."))
    rate = selectors.campaign_rate(campaign)
    rows = selectors.timesheet(campaign, rate)
    services.record_timesheet_export(actor=request.user, campaign=campaign, file_format=file_format, rows=len(rows))
    response = HttpResponse(export_timesheet(rows, rate, file_format), content_type=CONTENT_TYPES[file_format])
    return as_download(response, f"timesheet-{campaign.public_id}", file_format)


@login_required
@secret_holder_required(Role.GOVERNANCE)
def pay_policy(request, slug: str):
    organization = governed_organization_or_404(request, slug)
    stored = selectors.stored_pay_policy(organization)
    form = PayPolicyForm(request.POST or None, initial={
        "hourly_rate": stored.hourly_rate, "currency": stored.currency,
        "default_seconds_per_rating": stored.default_seconds_per_rating} if stored else None)
    if request.method == "POST" and form.is_valid():
        try:
            services.set_pay_policy(actor=request.user, organization=organization, **form.cleaned_data)
        except services.ReviewError as error:
            form.add_error(error.field if error.field in form.fields else None, str(error))
        else:
            messages.success(request, _("Pay rate saved: it applies to every campaign without a rate of its own."))
            return redirect("review:pay_policy", slug=slug)
    return render(request, "review/pay_policy.html", {"organization": organization, "form": form, "stored": stored},
                  status=400 if form.errors else 200)


@login_required
def delete_account(request):
    """Delete one's own account, after typing its address; optionally withdrawing every rating first."""
    form = DeleteAccountForm(request.POST or None, email=request.user.email)
    if request.method == "POST" and form.is_valid():
        try:
            services.delete_account(actor=request.user, withdraw=form.cleaned_data["withdraw"])
        except ApplicationError as error:
            form.add_error(None, str(error))
        else:
            logout(request)
            messages.success(request, _("Your account is deleted."))
            return redirect("home")
    return private(render(request, "review/delete_account.html", {
        "form": form, "rated": bool(selectors.speaker_pay(request.user))}, status=400 if form.errors else 200))
