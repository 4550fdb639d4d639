"""Changes below review reach running campaigns. When a dataset loses (or regains) the community's consent to
human review, its open campaigns stop (or resume) serving items on the next request — the selectors see to that —
and the audit log records it for each campaign, naming the consent record. A speaker who loses the role, stops being
qualified for a campaign's languages or declares a conflict of interest with its run card leaves its pool at once."""

from django.db.models.signals import post_save
from django.dispatch import receiver

from corpus.models import ConsentRecord, ConsentUse
from corpus.selectors import has_consent
from leaderboard.services import conflict_declared
from organizations.audit import record_event
from organizations.models import AuditAction, Role
from organizations.services import membership_removed
from speakers.services import qualification_lost

from .models import Campaign


@receiver(post_save, sender=ConsentRecord, dispatch_uid="review.consent_changes_campaigns")
def log_campaigns_paused_or_resumed(sender, instance: ConsentRecord, created: bool, **kwargs) -> None:
    revoked = not created and instance.revoked_at is not None
    if not getattr(instance, ConsentUse.HUMAN_REVIEW) or not (created or revoked):
        return
    consented = has_consent(instance.dataset, ConsentUse.HUMAN_REVIEW)
    if revoked == consented:
        return  # another record still covers human review (or already did): nothing changes
    campaigns = Campaign.objects.filter(status=Campaign.Status.OPEN,
                                        run_card__dataset_version__dataset=instance.dataset)
    action = AuditAction.CAMPAIGN_PAUSED if revoked else AuditAction.CAMPAIGN_RESUMED
    reason = "consent to human review revoked" if revoked else "consent to human review granted"
    for campaign in campaigns.select_related("organization"):
        record_event(action, actor=instance.revoked_by if revoked else instance.recorded_by,
                     organization=campaign.organization, obj=campaign,
                     details={"reason": reason, "consent_record": instance.pk})


@receiver(membership_removed, dispatch_uid="review.speaker_left_organization")
def hand_back_open_items(sender, organization, user, role, actor, **kwargs) -> None:
    if role == Role.SPEAKER:
        from .services.pool import speaker_left_organization

        speaker_left_organization(organization=organization, user=user, actor=actor)


@receiver(qualification_lost, dispatch_uid="review.speaker_no_longer_qualified")
def leave_pools_no_longer_qualified(sender, user, organization, actor, **kwargs) -> None:
    from .services.pool import speaker_unqualified

    speaker_unqualified(organization=organization, user=user, actor=actor)


@receiver(conflict_declared, dispatch_uid="review.conflicted_speaker_leaves")
def leave_pools_in_conflict(sender, declaration, actor, **kwargs) -> None:
    from .services.pool import speaker_in_conflict

    speaker_in_conflict(declaration=declaration, actor=actor)
