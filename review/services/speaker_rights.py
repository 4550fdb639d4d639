"""What a speaker may take back: their ratings of a campaign or of every campaign (deleting the whole account,
which reaches every app, is config.services.delete_account)."""

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from organizations.audit import record_event
from organizations.models import AuditAction

from ..models import (
    Assignment,
    Campaign,
    CampaignSpeaker,
    Rating,
    RatingWithdrawal,
    SpeakerExclusion,
)
from .decisions import update_community_review
from .errors import NothingToWithdraw
from .figures import refresh_summary_after_commit
from .pool import leave_pool, reassign_released


@transaction.atomic
def withdraw_ratings(*, actor: User, campaign: Campaign) -> RatingWithdrawal:
    """The speaker takes back every rating they gave in the campaign. The rows stay (marked, for the record and for
    their pay) and leave every figure, export and gate computation at once; the speaker leaves the pool, and while
    the campaign is not closed the items their ratings covered go to other speakers. A decision taken on evidence
    that included them is marked (`RunCard.community_review_withdrawn`) and governance staff are told by e-mail."""
    campaign = Campaign.objects.select_for_update().select_related("organization", "run_card").get(pk=campaign.pk)
    # The assignments first, then their ratings: the order store_rating locks them in.
    assignments = list(Assignment.objects.select_for_update(of=("self",)).filter(campaign=campaign, speaker=actor)
                       .values_list("pk", "item_id", "state", "is_repeat", "item__is_control"))
    ratings = list(Rating.objects.select_for_update(of=("self",)).filter(
        assignment_id__in=[row[0] for row in assignments], speaker=actor, withdrawal__isnull=True)
        .values_list("pk", "is_current", "value", "assignment__is_repeat", "assignment__item__is_control"))
    if not ratings:
        raise NothingToWithdraw(_("You have no ratings to withdraw in this campaign."))
    # What counted in the figures: current ratings of first showings of sampled items, from a speaker not left out.
    left_out = SpeakerExclusion.objects.filter(campaign=campaign, speaker=actor, included_at__isnull=True).exists()
    withdrawal = RatingWithdrawal.objects.create(
        campaign=campaign, speaker=actor, rating_rows=len(ratings),
        counted=0 if left_out else sum(current and value != "cannot_judge" and not repeat and not control
                                       for _pk, current, value, repeat, control in ratings))
    Rating.objects.filter(pk__in=[row[0] for row in ratings]).update(withdrawal=withdrawal, is_current=False)
    covered = [item for _pk, item, state, repeat, control in assignments
               if state == Assignment.State.RATED and not repeat and not control]
    Assignment.objects.filter(pk__in=[row[0] for row in assignments],
                              state__in=[Assignment.State.RATED, Assignment.State.SKIPPED]).update(
        state=Assignment.State.RELEASED)
    reassigned = 0
    member = CampaignSpeaker.objects.select_for_update().select_related("user").filter(
        campaign=campaign, user=actor, left_at__isnull=True).first()
    if campaign.status != Campaign.Status.CLOSED:
        if member is not None:
            reassigned += leave_pool(actor=actor, campaign=campaign, member=member, reason="withdrew their ratings")
        reassigned += reassign_released(campaign, sorted(covered))
    elif member is not None:
        member.left_at = timezone.now()
        member.save(update_fields=["left_at"])
    in_force = campaign.decisions.first()
    record_event(AuditAction.RATINGS_WITHDRAWN, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"ratings": withdrawal.rating_rows, "counted": withdrawal.counted, "reassigned": reassigned,
                          "decision_in_force": in_force.outcome if in_force else None})
    update_community_review(actor=actor, run_card=campaign.run_card)
    refresh_summary_after_commit(campaign)
    from ..tasks import send_withdrawal_notice_task

    transaction.on_commit(lambda: send_withdrawal_notice_task.delay(withdrawal.pk), robust=True)
    return withdrawal


@transaction.atomic
def withdraw_all_ratings(*, actor: User) -> list[RatingWithdrawal]:
    """`withdraw_ratings` in every campaign where the speaker still has ratings counted or kept. A campaign whose
    ratings a concurrent request (a double tap) withdrew first is passed over; with none left anywhere the speaker
    is told so (NothingToWithdraw), and nothing changes."""
    campaigns = Campaign.objects.filter(
        pk__in=Rating.objects.filter(speaker=actor, withdrawal__isnull=True).values("assignment__campaign_id"))
    withdrawals = []
    for campaign in campaigns.order_by("pk"):
        try:
            with transaction.atomic():
                withdrawals.append(withdraw_ratings(actor=actor, campaign=campaign))
        except NothingToWithdraw:
            continue
    if not withdrawals:
        raise NothingToWithdraw(_("You have no ratings to withdraw."))
    return withdrawals

