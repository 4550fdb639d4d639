"""Governance staff's decisions: the gate policy, recorded decisions, and speakers excluded from the evidence."""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from leaderboard.models import RunCard
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require

from ..gate import CHRF_TRIGGER_RANGE, evaluate_gate, policy_problems
from ..models import (
    Assignment,
    Campaign,
    Decision,
    GatePolicy,
    Rating,
    SpeakerExclusion,
)
from .campaigns import checked_reason, organization_of
from .errors import NotAllowed, ReviewError
from .figures import refresh_summary_after_commit
from .pool import reassign_released

# An approval against the gate's recommendation carries a rationale long enough to say why.
MIN_OVERRIDE_RATIONALE = 40


@transaction.atomic
def record_decision(*, actor: User, campaign: Campaign, outcome: str, rationale: str,
                    against_recommendation: bool = False) -> Decision:
    """Governance's decision, with the gate's recommendation at that moment kept beside it. Approving a
    gold_standard card makes it Community Validated; a rejection or revocation after an approval takes
    the tier away again. Deciding closes the campaign: the ratings decided on no longer change.

    Approving when the gate does not recommend a pass needs `against_recommendation` (the form's explicit
    confirmation) and a rationale that says why. The card's submitter is told the outcome by e-mail, with the
    aggregates only."""
    from ..selectors.decisions import decision_conflict, excluded_speakers, gate_policy_for, gate_snapshot
    from ..selectors.figures import campaign_aggregate

    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    campaign = Campaign.objects.select_for_update().select_related("run_card").get(pk=campaign.pk)
    conflict = decision_conflict(actor, campaign)
    if conflict:
        raise NotAllowed(_("You have a conflict of interest with this run card (you %(reason)s): another member of "
                           "governance staff records the decision.") % {"reason": conflict}, "outcome")
    if outcome not in Decision.Outcome.values:
        raise ReviewError(_("Unknown decision %(outcome)r; expected approve, reject or revoke.") % {"outcome": outcome},
                          "outcome")
    if not rationale.strip():
        raise ReviewError(_("Write the rationale for the decision: it is kept with it in the audit log."), "rationale")
    if campaign.status == Campaign.Status.PREPARING:
        raise ReviewError(_("The campaign is still being prepared."))
    in_force = campaign.decisions.first()
    if outcome == Decision.Outcome.REVOKE and (in_force is None or in_force.outcome != Decision.Outcome.APPROVE):
        raise ReviewError(_("Only an approval in force can be revoked."), "outcome")
    result = evaluate_gate(campaign_aggregate(campaign), gate_policy_for(campaign.organization))
    overriding = outcome == Decision.Outcome.APPROVE and result.outcome != "pass"
    if overriding and not against_recommendation:
        raise ReviewError(_("The gate's recommendation is “%(recommendation)s”, not a pass. To approve all the same, "
                            "confirm that the community approves against the recommendation.")
                          % {"recommendation": result.outcome_label}, "against_recommendation")
    if overriding and len(rationale.strip()) < MIN_OVERRIDE_RATIONALE:
        raise ReviewError(_("Approving against the recommendation: say in the rationale why the community approves "
                            "(at least %(count)d characters).") % {"count": MIN_OVERRIDE_RATIONALE}, "rationale")
    decision = Decision.objects.create(
        campaign=campaign, outcome=outcome, rationale=rationale.strip(), decided_by=actor,
        recommendation=gate_snapshot(result),
    )
    if campaign.status != Campaign.Status.CLOSED:
        campaign.status = Campaign.Status.CLOSED
        campaign.closed_at = timezone.now()
        campaign.save(update_fields=["status", "closed_at"])
    record_event(AuditAction.REVIEW_DECISION, actor=actor, organization=campaign.organization, obj=campaign, details={
        "outcome": outcome, "rationale": decision.rationale, "recommendation": result.outcome,
        "against_recommendation": overriding, "run_id": str(campaign.run_card.run_id),
        "excluded_speakers": [exclusion.speaker.email for exclusion in excluded_speakers(campaign)],
    })
    update_community_review(run_card=campaign.run_card, actor=actor)
    from ..tasks import send_decision_notice_task

    refresh_summary_after_commit(campaign)
    transaction.on_commit(lambda: send_decision_notice_task.delay(decision.pk), robust=True)
    return decision


def update_community_review(*, actor: User, run_card: RunCard) -> None:
    """The card carries its decision in force (over all its campaigns) for the leaderboard, and is Community
    Validated while that decision approves it (and the card scores gold_standard)."""
    from ..selectors.decisions import latest_decision, ratings_withdrawn_since

    # Locked first: two campaigns of one card decided at once must not write an older decision last.
    run_card = RunCard.objects.select_for_update().get(pk=run_card.pk)
    latest = latest_decision(run_card)
    review = ((latest.outcome, latest.decided_at, ratings_withdrawn_since(latest)) if latest is not None
              else ("", None, 0))
    if review != (run_card.community_review, run_card.community_reviewed_at, run_card.community_review_withdrawn):
        run_card.community_review, run_card.community_reviewed_at, run_card.community_review_withdrawn = review
        run_card.save(update_fields=["community_review", "community_reviewed_at", "community_review_withdrawn"])
    approved = run_card.segment == "gold_standard" and latest is not None and latest.outcome == Decision.Outcome.APPROVE
    if approved == (run_card.community_validated_at is not None):
        return
    run_card.community_validated_at = timezone.now() if approved else None
    run_card.save(update_fields=["community_validated_at"])
    record_event(AuditAction.VERIFICATION_TIER_CHANGED,
                 actor=actor, organization=organization_of(run_card), obj=run_card,
                 details={"tier": run_card.verification_tier, "run_id": str(run_card.run_id)})


GATE_POLICY_FIELDS = ("require_complete_coverage", "min_usable_lower_bound", "min_tier_usable_share",
                      "max_reject_share", "min_alpha", "min_rated_items", "min_ac1",
                      "min_distinct_speakers", "standard1_min_chrf")


@transaction.atomic
def set_gate_policy(*, actor: User, organization: Organization, values: dict) -> GatePolicy:
    require(actor, "organization.govern", organization, error=NotAllowed)
    unknown = set(values) - set(GATE_POLICY_FIELDS)
    if unknown:
        raise ReviewError(f"Unknown threshold {sorted(unknown)[0]!r}.", sorted(unknown)[0])
    problems = policy_problems(values)
    if problems:
        field, message = problems[0]
        raise ReviewError(message, field)
    policy, _created = GatePolicy.objects.get_or_create(organization=organization)
    trigger = values.get("standard1_min_chrf")
    if trigger is not None and not 0 <= trigger <= 100:
        raise ReviewError(str(CHRF_TRIGGER_RANGE), "standard1_min_chrf")
    for name, value in values.items():
        setattr(policy, name, value)
    policy.updated_by = actor
    policy.updated_at = timezone.now()
    policy.save()
    record_event(AuditAction.GATE_POLICY_CHANGED, actor=actor, organization=organization, obj=policy,
                 details={name: getattr(policy, name) for name in GATE_POLICY_FIELDS})
    return policy


@transaction.atomic
def exclude_speaker(*, actor: User, campaign: Campaign, speaker: User, reason: str) -> SpeakerExclusion:
    """Leave a speaker's ratings out of the campaign's figures and recommendation, with governance staff's written
    reason (audited). The ratings are kept; the decision page shows the recommendation both ways. While the campaign
    is not closed, coverage is restored at once: the items their counted ratings covered and those still open for
    them go to the rest of the pool, and they are given no new item while left out (open_load)."""
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    reason = checked_reason(reason)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if not reason:
        raise ReviewError(_("Write why this speaker's ratings are left out: it is kept in the audit log."), "reason")
    if campaign.decisions.exists():
        raise ReviewError(_("The campaign is decided: its evidence no longer changes."))
    if not Rating.objects.filter(assignment__campaign=campaign, speaker=speaker).exists():
        raise ReviewError(_("This speaker has no ratings in the campaign."), "speaker")
    if SpeakerExclusion.objects.filter(campaign=campaign, speaker=speaker, included_at__isnull=True).exists():
        raise ReviewError(_("This speaker's ratings are already left out."), "speaker")
    exclusion = SpeakerExclusion.objects.create(campaign=campaign, speaker=speaker, reason=reason,
                                                excluded_by=actor)
    released, reassigned = 0, 0
    if campaign.status != Campaign.Status.CLOSED:
        released, reassigned = restore_coverage_without(campaign, speaker)
    record_event(AuditAction.SPEAKER_EXCLUDED, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"speaker": speaker.email, "reason": exclusion.reason, "released": released,
                          "reassigned": reassigned})
    refresh_summary_after_commit(campaign)
    return exclusion


def restore_coverage_without(campaign: Campaign, speaker: User) -> tuple[int, int]:
    """(items released, items reassigned): the speaker's open assignments are released, and every sampled item
    whose counted rating (or open showing) was theirs goes to the least-loaded other speaker who never held it, so
    that each keeps the number of counted ratings the campaign asks for."""
    open_rows = list(Assignment.objects.select_for_update(of=("self",)).filter(
        campaign=campaign, speaker=speaker, state=Assignment.State.OPEN).values_list("pk", "item_id", "is_repeat",
                                                                                      "item__is_control"))
    Assignment.objects.filter(pk__in=[row[0] for row in open_rows], state=Assignment.State.OPEN).update(
        state=Assignment.State.RELEASED)
    rated = Rating.objects.filter(assignment__campaign=campaign, speaker=speaker, is_current=True,
                                  withdrawn_at__isnull=True, withdrawal__isnull=True, assignment__is_repeat=False,
                                  assignment__item__is_control=False).exclude(value="cannot_judge")
    items = set(rated.values_list("assignment__item_id", flat=True))
    items |= {item for _pk, item, repeat, control in open_rows if not repeat and not control}
    return len(open_rows), reassign_released(campaign, sorted(items))


@transaction.atomic
def include_speaker(*, actor: User, campaign: Campaign, speaker: User) -> None:
    """Count a speaker's ratings again (audited); the exclusion stays on record."""
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.decisions.exists():
        raise ReviewError(_("The campaign is decided: its evidence no longer changes."))
    exclusion = SpeakerExclusion.objects.filter(campaign=campaign, speaker=speaker, included_at__isnull=True).first()
    if exclusion is None:
        raise ReviewError(_("This speaker's ratings are not left out."), "speaker")
    exclusion.included_at = timezone.now()
    exclusion.included_by = actor
    exclusion.save(update_fields=["included_at", "included_by"])
    record_event(AuditAction.SPEAKER_INCLUDED, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"speaker": speaker.email})
    refresh_summary_after_commit(campaign)
