"""Governance staff's decision page, exclusions from the evidence, the gate policy."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from common.errors import ApplicationError
from common.responses import private
from governance.models import DecisionState
from organizations.mfa import secret_holder_required
from organizations.models import Role

from .. import charts
from ..decisions import record_or_propose
from ..forms import (
    DecisionForm,
    GatePolicyForm,
)
from ..gate import evaluate_gate
from ..models import GatePolicy
from ..rating_texts import FLAG_LABELS
from ..selectors.decisions import (
    decision_conflict,
    decision_in_force,
    decisions_of,
    excluded_speakers,
    gate_policy_for,
    ratings_withdrawn_since,
    stored_gate_policy,
    transfer_eligible,
)
from ..selectors.figures import campaign_aggregate, rating_summary, shown_items_needing_attention, tier_populations
from ..selectors.speaker_rights import campaign_credits, campaign_speaker_labels, rating_speakers, withdrawals_of
from ..services.decisions import exclude_speaker, include_speaker, set_gate_policy
from ..services.errors import ReviewError
from .shared import governed_or_404, governed_organization_or_404


@login_required
@secret_holder_required(Role.GOVERNANCE)
def decision(request, public_id):
    """The evidence (aggregates, charts, flagged items, speaker reliability), the gate's recommendation,
    and the decision form."""
    campaign = governed_or_404(request, public_id)
    in_force = decision_in_force(campaign)
    can_revoke = in_force is not None and in_force.outcome == "approve"
    form = DecisionForm(request.POST or None, can_revoke=can_revoke)
    if request.method == "POST" and form.is_valid():
        try:
            proposed = record_or_propose(
                campaign=campaign,
                actor=request.user,
                outcome=form.cleaned_data["outcome"],
                rationale=form.cleaned_data["rationale"],
                against_recommendation=form.cleaned_data["against_recommendation"],
            )
        except ApplicationError as error:
            form.add_error(error.field if error.field in form.fields else None, str(error))
        else:
            if proposed is not None and proposed.state != DecisionState.EXECUTED:
                messages.success(request, _("Proposed: the approval against the recommendation waits for %(k)s "
                                            "signatures of other governance staff.") % {"k": proposed.threshold})
                return redirect("governance:decision", public_id=proposed.public_id)
            messages.success(request, _("Decision recorded."))
            return redirect("review:decision", public_id=campaign.public_id)
    # The campaign's ratings counted once (per speaker): the evidence's state, who rated, what needs attention.
    summary = rating_summary(campaign)
    aggregate = campaign_aggregate(campaign, summary=summary)
    policy = gate_policy_for(campaign.organization)
    attention = shown_items_needing_attention(request.user, campaign, where=request.path,
                                                        page_number=request.GET.get("page"), summary=summary)
    # Every list of speakers on the page names them as each chose to be credited.
    speakers = rating_speakers(campaign, summary)
    names = campaign_speaker_labels(campaign, speakers)
    for rating in attention.object_list:
        rating.speaker_label = names.get(rating.speaker_id, "")
    # Speakers left out by governance staff: the figures are without them, the speakers' table and a second
    # recommendation with every speaker.
    exclusions = excluded_speakers(campaign)
    for exclusion in exclusions:
        exclusion.speaker_label = names.get(exclusion.speaker_id, "")
    every = campaign_aggregate(campaign, every_speaker=True, summary=summary) if exclusions else aggregate
    excluded = {exclusion.speaker_id: exclusion for exclusion in exclusions}
    return private(render(request, "review/decision.html", {
        "group_tables": [(_("Difficulty tiers"), _("Tier"), flagged_groups(aggregate.tiers)),
                         (_("Domains"), _("Domain"), flagged_groups(aggregate.domains))],
        "flag_counts": [(FLAG_LABELS[name], count) for name, count in aggregate.campaign.flag_counts.items()],
        "speakers": [{"name": names.get(r.speaker_id, ""), "reliability": r, "exclusion": excluded.get(r.speaker_id)}
                     for r in every.speakers],
        "exclusions": exclusions,
        "gate_every_speaker": evaluate_gate(every, policy, speaker_names=names) if exclusions else None,
        "withdrawn_since": ratings_withdrawn_since(in_force) if in_force else 0,
        "withdrawals": withdrawals_of(campaign), "credits": campaign_credits(campaign, speakers),
        "campaign": campaign, "aggregate": aggregate, "policy": policy,
        "outputs": sum(tier_populations(campaign).values()),
        "gate": evaluate_gate(aggregate, policy, speaker_names=names),
        "distribution_chart": charts.distribution_chart(aggregate.tiers),
        "usable_chart": charts.usable_chart([aggregate.campaign, *aggregate.tiers], policy.min_usable_lower_bound),
        "attention": attention, "decisions": decisions_of(campaign), "in_force": in_force,
        "form": form, "transfer_eligible": transfer_eligible(campaign.run_card),
        "conflict": decision_conflict(request.user, campaign),
    }, status=400 if form.errors else 200))


@login_required
@secret_holder_required(Role.GOVERNANCE)
@require_POST
def speaker_exclusion(request, public_id, speaker_id: int):
    """Leave a speaker's ratings out of the campaign's figures (with a reason), or count them again."""
    campaign = governed_or_404(request, public_id)
    speaker = get_object_or_404(campaign.pool.select_related("user"), user_id=speaker_id).user
    # Named as on the decision page: as the speaker chose to be credited.
    name = campaign_speaker_labels(campaign).get(speaker.pk, "")
    try:
        if request.POST.get("include"):
            include_speaker(actor=request.user, campaign=campaign, speaker=speaker)
            messages.success(request, _("The ratings of %(email)s count again.") % {"email": name})
        else:
            exclude_speaker(actor=request.user, campaign=campaign, speaker=speaker,
                                     reason=request.POST.get("reason", ""))
            messages.success(request, _("The ratings of %(email)s are left out of the figures.") % {"email": name})
    except ReviewError as error:
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
def gate_policy(request, slug: str):
    organization = governed_organization_or_404(request, slug)
    instance = stored_gate_policy(organization) or GatePolicy(organization=organization)
    form = GatePolicyForm(request.POST or None, instance=instance)
    if request.method == "POST" and form.is_valid():
        values = {name: form.cleaned_data[name] for name in form.Meta.fields}
        set_gate_policy(organization=organization, actor=request.user, values=values)
        messages.success(request, _("Gate thresholds saved."))
        return redirect("review:gate_policy", slug=slug)
    return render(request, "review/gate_policy.html", {"organization": organization, "form": form},
                  status=400 if form.errors else 200)
