"""Who is in a campaign's pool: adding and removing speakers, speakers leaving, and handing their open items on."""

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.models import User
from leaderboard.models import ConflictDeclaration
from organizations.audit import record_event
from organizations.models import AuditAction, Organization
from organizations.permissions import require
from speakers.selectors import qualification_problems

from ..assignment import reassign
from ..models import (
    Assignment,
    Campaign,
    CampaignSpeaker,
    Item,
    Rating,
    SpeakerExclusion,
)
from ..selectors.pool import pool_refusals, pool_requirement
from .campaigns import create_assignments, speaker_ids_of
from .errors import NotAllowed, ReviewError

# Removing anyone who is not in the pool gets this one answer, whether or not the id names an account: it
# neither confirms that an account exists nor shows its e-mail address.
NOT_IN_POOL = gettext_noop("No such speaker in this campaign's pool.")


def open_load(campaign: Campaign) -> dict[int, int]:
    """Open assignments per active pool speaker (zero included): what reassignment balances. A speaker whose ratings
    governance staff left out gets no new item while they are."""
    left_out = SpeakerExclusion.objects.filter(campaign=campaign, included_at__isnull=True).values("speaker_id")
    load = {pk: 0 for pk in campaign.pool.filter(left_at__isnull=True).exclude(user_id__in=left_out)
            .values_list("user_id", flat=True)}
    for speaker_pk in (campaign.assignments.filter(state=Assignment.State.OPEN, is_repeat=False)
                       .values_list("speaker_id", flat=True)):
        if speaker_pk in load:
            load[speaker_pk] += 1
    return load


def release_replacement(skipped: Assignment) -> None:
    """A speaker takes back an item they had skipped: the assignment made to replace them, if nobody has
    rated it yet, is released, so the item keeps the number of ratings the campaign asked for. The replacement
    was made when they answered "can't judge" (in the same transaction, after that answer was stored): an
    assignment of the item made before it — another speaker's own showing — is never it. A repeat is never
    replaced, so it has nothing to release."""
    if skipped.is_repeat:
        return
    skipped_at = (Rating.objects.filter(assignment=skipped, value="cannot_judge").order_by("-created_at")
                  .values_list("created_at", flat=True).first())
    if skipped_at is None:
        return
    replacement = (Assignment.objects.select_for_update()
                   .filter(item_id=skipped.item_id, state=Assignment.State.OPEN, is_repeat=False,
                           created_at__gte=skipped_at)
                   .exclude(pk=skipped.pk).exclude(ratings__isnull=False).order_by("-created_at", "-pk").first())
    if replacement is not None:
        replacement.state = Assignment.State.RELEASED
        replacement.save(update_fields=["state"])


@transaction.atomic
def add_speaker(*, actor: User, campaign: Campaign, user) -> CampaignSpeaker:
    """Add (or bring back) a speaker; they take the items still short of ratings, and every control."""
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    if campaign.status == Campaign.Status.CLOSED:
        raise ReviewError(_("The campaign is closed."))
    if user.pk not in speaker_ids_of(campaign.organization):
        raise ReviewError(_("%(email)s is not a speaker of %(organization)s.") % {
            "email": user.email, "organization": campaign.organization.name}, "speaker")
    refusal = pool_refusals(campaign.run_card, campaign.organization, [user.pk], campaign.variety).get(user.pk)
    if refusal:
        raise ReviewError(_("%(email)s cannot review this run card: %(reason)s.") % {
            "email": user.email, "reason": refusal}, "speaker")
    member, created = CampaignSpeaker.objects.get_or_create(campaign=campaign, user=user)
    if not created and member.left_at is None:
        raise ReviewError(_("%(email)s is already in the pool.") % {"email": user.email}, "speaker")
    member.left_at = None
    member.invited_at = None
    member.save(update_fields=["left_at", "invited_at"])
    if campaign.status != Campaign.Status.PREPARING:
        held = set(Assignment.objects.filter(campaign=campaign, speaker=user).values_list("item_id", flat=True))
        short = [item.pk for item in items_short_of_ratings(campaign) if item.pk not in held]
        controls = campaign.items.filter(is_control=True).exclude(pk__in=held).values_list("pk", flat=True)
        create_assignments(campaign, {pk: [user.pk] for pk in [*short, *controls]})
    record_event(AuditAction.CAMPAIGN_SPEAKER_ADDED, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"speaker": user.email})
    if campaign.status != Campaign.Status.PREPARING:
        from ..tasks import send_campaign_invitations_task

        transaction.on_commit(lambda: send_campaign_invitations_task.delay(campaign.pk), robust=True)
    return member


def items_short_of_ratings(campaign: Campaign) -> list[Item]:
    """Non-control items with fewer open-or-rated assignments than the campaign requires."""
    items = []
    for item in campaign.items.filter(is_control=False).prefetch_related("assignments"):
        active = sum(a.state in (Assignment.State.OPEN, Assignment.State.RATED) and not a.is_repeat
                     for a in item.assignments.all())
        if active < campaign.ratings_per_item:
            items.append(item)
    return items


@transaction.atomic
def remove_speaker(*, actor: User, campaign: Campaign, user) -> int:
    """The speaker leaves the pool: their ratings stay, their unrated items go to other speakers.
    Returns how many items were reassigned."""
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    # Whether the account is in the pool is asked first: any account not in it, existing or not, gets the same
    # answer, so the form tells nothing of which account ids exist.
    member = CampaignSpeaker.objects.select_for_update().select_related("user").filter(
        campaign=campaign, user=user, left_at__isnull=True).first()
    if member is None:
        raise ReviewError(_(NOT_IN_POOL), "speaker")
    if campaign.status == Campaign.Status.CLOSED:
        raise ReviewError(_("The campaign is closed: its pool no longer changes."), "speaker")
    if campaign.status == Campaign.Status.PREPARING and (
            campaign.pool.filter(left_at__isnull=True).count() - 1 < campaign.ratings_per_item):
        raise ReviewError(_("While the sample is drawn the pool must keep %(count)s speakers.") % {
            "count": campaign.ratings_per_item}, "speaker")
    return leave_pool(campaign=campaign, member=member, actor=actor)


def leave_pool(*, actor: User, campaign: Campaign, member: CampaignSpeaker, reason: str = "") -> int:
    """The locked pool member leaves: their ratings stay, their unrated items are released and reassigned."""
    user = member.user
    member.left_at = timezone.now()
    member.save(update_fields=["left_at"])
    released = list(Assignment.objects.select_for_update().filter(
        campaign=campaign, speaker=user, state=Assignment.State.OPEN).select_related("item"))
    Assignment.objects.filter(pk__in=[a.pk for a in released], state=Assignment.State.OPEN).update(
        state=Assignment.State.RELEASED)
    reassigned = reassign_released(campaign, [a.item_id for a in released
                                              if not a.item.is_control and not a.is_repeat])
    details = {"speaker": user.email, "released": len(released), "reassigned": reassigned}
    if reason:
        details["reason"] = reason
    record_event(AuditAction.CAMPAIGN_SPEAKER_REMOVED, actor=actor, organization=campaign.organization, obj=campaign,
                 details=details)
    return reassigned


@transaction.atomic
def speaker_unqualified(*, actor: User, organization: Organization, user) -> int:
    """A speaker whose attestation was withdrawn (or who lowered or removed a language) leaves at once the pool of
    every campaign of the organization, not yet closed, that they are no longer qualified for; their open items go
    to others. Returns how many items were reassigned."""
    reassigned = 0
    campaigns = (Campaign.objects.select_for_update().filter(organization=organization, pool__user=user,
                                                             pool__left_at__isnull=True)
                 .exclude(status=Campaign.Status.CLOSED).select_related("organization", "run_card__dataset_version")
                 .order_by("pk"))
    for campaign in campaigns:
        requirement = pool_requirement(campaign.run_card, organization, campaign.variety)
        problem = qualification_problems(requirement, [user.pk]).get(user.pk)
        if problem is None:
            continue
        member = CampaignSpeaker.objects.select_for_update().select_related("user").get(
            campaign=campaign, user=user, left_at__isnull=True)
        reassigned += leave_pool(campaign=campaign, member=member, actor=actor,
                                 reason=f"no longer qualified: {problem}")
    return reassigned


@transaction.atomic
def speaker_in_conflict(*, actor: User, declaration: ConflictDeclaration) -> int:
    """Whoever declares a conflict of interest leaves at once the pool of every campaign, not yet closed, on the card
    (on any card of the method); their open items go to others. Returns how many items were reassigned."""
    target = (Q(run_card_id=declaration.run_card_id) if declaration.run_card_id is not None
              else Q(run_card__method_id=declaration.method_id))
    reassigned = 0
    campaigns = (Campaign.objects.select_for_update().filter(target, pool__user_id=declaration.user_id,
                                                             pool__left_at__isnull=True)
                 .exclude(status=Campaign.Status.CLOSED).select_related("organization").order_by("pk"))
    for campaign in campaigns:
        member = CampaignSpeaker.objects.select_for_update().select_related("user").get(
            campaign=campaign, user_id=declaration.user_id, left_at__isnull=True)
        reassigned += leave_pool(campaign=campaign, member=member, actor=actor,
                                 reason="declared a conflict of interest")
    return reassigned


@transaction.atomic
def speaker_left_organization(*, actor: User, organization: Organization, user) -> int:
    """A speaker who lost the role leaves the pool of every campaign of the organization not yet closed (the
    rating pages stopped serving them at once through `speaking_in`); their open items go to others."""
    reassigned = 0
    campaigns = Campaign.objects.select_for_update().filter(organization=organization, pool__user=user,
                                                           pool__left_at__isnull=True).exclude(
        status=Campaign.Status.CLOSED).select_related("organization")
    for campaign in campaigns:
        member = CampaignSpeaker.objects.select_for_update().select_related("user").get(
            campaign=campaign, user=user, left_at__isnull=True)
        reassigned += leave_pool(
            campaign=campaign,
            member=member,
            actor=actor,
            reason="no longer a speaker of the organization",
        )
    return reassigned


def reassign_released(campaign: Campaign, item_pks: list[int]) -> int:
    """Give each released (or skipped) item to the least-loaded active speaker who never held it, with the
    loads, the holders and the speakers' next positions read once (a constant number of queries, not per
    item). The item rows are locked first, so two reassignments of one item (two "can't judge" at once)
    queue up instead of picking the same speaker."""
    if not item_pks:
        return 0
    list(Item.objects.select_for_update().filter(pk__in=item_pks))
    load = open_load(campaign)
    holders: dict[int, set[int]] = {}
    for item_pk, holder_pk in Assignment.objects.filter(item_id__in=item_pks).values_list("item_id", "speaker_id"):
        holders.setdefault(item_pk, set()).add(holder_pk)
    positions = dict(Assignment.objects.filter(campaign=campaign).order_by().values("speaker_id")
                     .annotate(n=Count("pk")).values_list("speaker_id", "n"))
    rows = []
    for item_pk in item_pks:
        speaker_pk = reassign(item_pk, holders.get(item_pk, set()), sorted(load), load, campaign.seed)
        if speaker_pk is None:
            continue
        rows.append(Assignment(campaign=campaign, item_id=item_pk, speaker_id=speaker_pk,
                               position=positions.get(speaker_pk, 0)))
        positions[speaker_pk] = positions.get(speaker_pk, 0) + 1
        load[speaker_pk] += 1
    Assignment.objects.bulk_create(rows)
    return len(rows)
