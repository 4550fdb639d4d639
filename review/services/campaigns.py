"""Opening and running campaigns: their settings, sample and assignments, status, guidance and reminders."""

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from corpus.models import ConsentUse
from corpus.selectors import has_consent
from corpus.validation import unstorable_string
from leaderboard.models import RunCard, RunCardResult
from organizations.audit import record_event
from organizations.models import AuditAction, Membership, Organization, Role
from organizations.permissions import require
from speakers.services import SpeakerError, checked_variety

from ..assignment import assign, speaker_order
from ..models import (
    MAX_REPEATS,
    SPEAKER_TITLE_LIMIT,
    Assignment,
    Campaign,
    CampaignSpeaker,
    Item,
    RatingExamples,
)
from ..sampling import Candidate, choose_controls, stratified_sample
from ..selectors.pool import pool_refusals
from .errors import NotAllowed, ReviewError, SettingsRefused
from .figures import refresh_summary_after_commit

# Campaigns needing more assignments than this are sampled by a Celery task, not in the request.
INLINE_ASSIGNMENT_LIMIT = 2000
REMINDER_WINDOW = timedelta(hours=24)


@dataclass
class CampaignSettings:
    title: str
    sample_size: int
    speaker_title: str = ""
    speakers: list = field(default_factory=list)
    ratings_per_item: int = 3
    seed: int = 0
    show_reference: bool = False
    control_count: int = 0
    deadline: datetime | None = None
    below_threshold_reason: str = ""
    instructions: str = ""
    device_may_hold_secret_items: bool = False
    repeat_count: int = 0
    variety: str = ""


def organization_of(run_card: RunCard) -> Organization:
    return run_card.dataset_version.dataset.organization


def speaker_ids_of(organization: Organization) -> set[int]:
    return set(
        Membership.objects.filter(organization=organization, role=Role.SPEAKER).values_list("user_id", flat=True)
    )


def check_speaker_title(run_card: RunCard, speaker_title: str) -> None:
    """Speakers review blind: the name they see may not name the card's method, its model or its run."""
    name = speaker_title.strip()
    if len(name) > SPEAKER_TITLE_LIMIT:
        raise ReviewError(_("The name shown to speakers is limited to %(limit)s characters.")
                          % {"limit": SPEAKER_TITLE_LIMIT}, "speaker_title")
    unstorable = unstorable_string(name)
    if unstorable:
        raise ReviewError(_("The name shown to speakers %(problem)s.") % {"problem": unstorable}, "speaker_title")
    method = run_card.method
    revealing = [run_card.model_slug, str(run_card.run_id), *((method.name, method.method_id) if method else ())]
    folded = name.casefold()
    if any(word and word.casefold() in folded for word in revealing if len(word) >= 3):
        raise ReviewError(_("The name shown to speakers names the method, its model or its run: speakers review "
                            "blind, so choose a name that says nothing about it."), "speaker_title")


def check_settings(run_card: RunCard, values: CampaignSettings, organization: Organization) -> None:
    """Every setting refused with the field it belongs to, before anything is stored: what stops any campaign of
    this card (its state, a pause, consent) at once, then every field's problem together (SettingsRefused), so that
    a form with four mistakes is corrected in one go."""
    if run_card.status != RunCard.Status.READY:
        raise ReviewError(_("Only a verified run card can be reviewed; this one is still being verified or failed."),
                          "run_card")
    if organization.evaluation_paused and organization.evaluation_paused_until is not None:
        raise ReviewError(_("The community paused evaluation of its datasets until %(date)s: %(reason)s")
                          % {"date": date_format(organization.evaluation_paused_until),
                             "reason": organization.evaluation_pause_reason.strip()}, "run_card")
    if not has_consent(run_card.dataset_version.dataset, ConsentUse.HUMAN_REVIEW):
        raise ReviewError(_("The community has not consented to human review of this dataset (or withdrew consent)."),
                          "run_card")
    problems = [(error.field, error.message) for error in field_problems(run_card, values, organization)]
    if problems:
        raise SettingsRefused(problems)


def field_problems(run_card: RunCard, values: CampaignSettings, organization: Organization) -> Iterator[ReviewError]:
    """Each field's problem, in the form's order; a check that needs a valid earlier field waits for it."""
    from ..selectors.decisions import review_trigger, stored_gate_policy

    if not values.title.strip():
        yield ReviewError(_("Give the campaign a title (governance staff see it; speakers never do)."), "title")
    try:
        check_speaker_title(run_card, values.speaker_title)
    except ReviewError as error:
        yield error
    trigger = review_trigger(run_card, stored_gate_policy(organization))
    if not trigger.met and not values.below_threshold_reason.strip():
        yield ReviewError(trigger.message, "below_threshold_reason")
    ratings_valid = 1 <= values.ratings_per_item <= 10
    if not ratings_valid:
        yield ReviewError(_("Ratings per item must be between 1 and 10."), "ratings_per_item")
    outputs = run_card.results.count()
    if not 1 <= values.sample_size <= outputs:
        yield ReviewError(_("The sample size must be between 1 and %(outputs)s, the number of outputs in this run "
                            "card.") % {"outputs": outputs}, "sample_size")
    else:
        spare = outputs - values.sample_size
        if not 0 <= values.control_count <= spare:
            yield ReviewError(_("Control items are drawn from outputs outside the sample so that no speaker sees a "
                                "source twice: between 0 and %(spare)s here.") % {"spare": spare}, "control_count")
        elif values.control_count and values.show_reference:
            yield ReviewError(_("A control item shows the reference as if it were a candidate; with the reference "
                                "shown beside it, speakers would recognise it. Use control items or show the "
                                "reference, not both."), "control_count")
    yield from pool_problems(run_card, values, organization, ratings_valid)
    if values.deadline is not None and values.deadline <= timezone.now():
        yield ReviewError(_("The deadline must be in the future."), "deadline")
    if not 0 <= values.repeat_count <= MAX_REPEATS:
        yield ReviewError(_("Repeated items per speaker must be between 0 and %(maximum)s.")
                          % {"maximum": MAX_REPEATS}, "repeat_count")


def pool_problems(run_card: RunCard, values: CampaignSettings, organization: Organization,
                  ratings_valid: bool) -> Iterator[ReviewError]:
    """The speaker pool's problem (at most one: each check needs the ones before it, the qualification check a
    valid variety) and the variety's."""
    pool_ids = [user.pk for user in values.speakers]
    pool_valid = False
    if len(set(pool_ids)) != len(pool_ids):
        yield ReviewError(_("A speaker is listed twice."), "speakers")
    elif not set(pool_ids) <= speaker_ids_of(organization):
        yield ReviewError(_("Only speakers of %(organization)s can join this campaign.") % {
            "organization": organization.name}, "speakers")
    else:
        pool_valid = True
    try:
        values.variety = checked_variety(values.variety)[0]  # stored as checked: whitespace folded
    except SpeakerError as error:
        yield ReviewError(error.message, "variety")
        return
    if not pool_valid:
        return
    refusals = pool_refusals(run_card, organization, pool_ids, values.variety)
    if refusals:
        yield ReviewError(refused_speakers(values.speakers, refusals), "speakers")
    elif ratings_valid and len(pool_ids) < values.ratings_per_item:
        yield ReviewError(_("Each item needs %(needed)s different speakers, but the pool has %(pool)s.") % {
            "needed": values.ratings_per_item, "pool": len(pool_ids)}, "speakers")


REFUSALS_NAMED = 10


def refused_speakers(speakers: Sequence[User], refusals: dict[int, str]) -> str:
    """Who of the pool may not review this card, and why: each speaker by address, at most REFUSALS_NAMED of them."""
    named = [f"{user.email} ({refusals[user.pk]})" for user in speakers if user.pk in refusals]
    message = _("Not every speaker can review this run card: %(speakers)s.") % {
        "speakers": "; ".join(named[:REFUSALS_NAMED])}
    if len(named) > REFUSALS_NAMED:
        left = len(named) - REFUSALS_NAMED
        message += " " + ngettext("And %(count)d more.", "And %(count)d more.", left) % {"count": left}
    return message


@transaction.atomic
def open_campaign(*, actor: User, run_card: RunCard, values: CampaignSettings) -> Campaign:
    """Record the campaign and its speaker pool, then sample and assign (in a Celery task when large)."""
    organization = organization_of(run_card)
    require(actor, "organization.govern", organization, error=NotAllowed)
    check_settings(run_card, values, organization)
    campaign = Campaign.objects.create(
        organization=organization, run_card=run_card, title=values.title.strip(),
        speaker_title=values.speaker_title.strip(), sample_size=values.sample_size,
        ratings_per_item=values.ratings_per_item, seed=values.seed, show_reference=values.show_reference,
        control_count=values.control_count, deadline=values.deadline,
        below_threshold_reason=values.below_threshold_reason.strip(), opened_by=actor,
        instructions=values.instructions.strip(), device_may_hold_secret_items=values.device_may_hold_secret_items,
        repeat_count=values.repeat_count, variety=values.variety,
    )
    CampaignSpeaker.objects.bulk_create([CampaignSpeaker(campaign=campaign, user=user) for user in values.speakers])
    record_event(AuditAction.CAMPAIGN_OPENED, actor=actor, organization=organization, obj=campaign, details={
        "run_id": str(run_card.run_id), "sample_size": values.sample_size,
        "ratings_per_item": values.ratings_per_item, "seed": values.seed, "control_items": values.control_count,
        "speakers": len(values.speakers), "below_threshold_reason": campaign.below_threshold_reason,
        "instructions": campaign.instructions, "device_may_hold_secret_items": values.device_may_hold_secret_items,
        "repeat_count": values.repeat_count, "variety": values.variety,
    })
    assignments = ((values.sample_size + values.control_count) * values.ratings_per_item
                   + values.repeat_count * len(values.speakers))
    if assignments <= INLINE_ASSIGNMENT_LIMIT:
        prepare_campaign(campaign.pk)
        campaign.refresh_from_db()
    else:
        from ..tasks import prepare_campaign_task

        transaction.on_commit(lambda: prepare_campaign_task.delay(campaign.pk), robust=True)
    return campaign


@transaction.atomic
def prepare_campaign(campaign_pk: int) -> Campaign:
    """Draw the stratified sample and the control items and assign them; does nothing when already done,
    so a retried task cannot assign twice."""
    campaign = Campaign.objects.select_for_update().get(pk=campaign_pk)
    if campaign.status != Campaign.Status.PREPARING:
        return campaign
    outputs = {
        pk: (entry_id, difficulty, domain)
        for pk, entry_id, difficulty, domain in RunCardResult.objects.filter(run_card=campaign.run_card)
        .values_list("pk", "entry_id", "entry__difficulty", "entry__domain")
    }
    sample = stratified_sample([Candidate(pk, row[1]) for pk, row in outputs.items()], campaign.sample_size,
                               campaign.seed)
    sampled = set(sample.keys)
    controls = choose_controls(sorted(set(outputs) - sampled), campaign.control_count, campaign.seed)

    def item(result_pk: int, is_control: bool) -> Item:
        entry_id, difficulty, domain = outputs[result_pk]
        return Item(campaign=campaign, result_id=result_pk, entry_id=entry_id, is_control=is_control,
                    difficulty=difficulty, domain=domain or "")

    items = Item.objects.bulk_create([item(pk, False) for pk in sample.keys] + [item(pk, True) for pk in controls])
    speakers = list(campaign.pool.filter(left_at__isnull=True).order_by("user_id").values_list("user_id", flat=True))
    rated = assign([i.pk for i in items if not i.is_control], speakers, campaign.ratings_per_item, campaign.seed)
    # Every speaker rates every control item: reliability needs each speaker's own controls.
    for control in (i for i in items if i.is_control):
        rated[control.pk] = list(speakers)
    create_assignments(campaign, rated, repeats=campaign.repeat_count)
    campaign.strata = [{"difficulty": s.difficulty, "label": s.label, "population": s.population,
                        "allocated": s.allocated} for s in sample.strata]
    campaign.status = Campaign.Status.OPEN
    campaign.save(update_fields=["strata", "status"])
    from ..tasks import send_campaign_invitations_task

    transaction.on_commit(lambda: send_campaign_invitations_task.delay(campaign.pk), robust=True)
    return campaign


def create_assignments(campaign: Campaign, speakers_by_item: dict[int, list[int]], repeats: int = 0) -> None:
    """Assignments placed in each speaker's own shuffled order, after what they already hold; with ``repeats``,
    that many of each speaker's reviewed items come back later in their order (`with_repeats`)."""
    by_speaker: dict[int, list[int]] = {}
    for item_pk, speakers in speakers_by_item.items():
        for speaker_pk in speakers:
            by_speaker.setdefault(speaker_pk, []).append(item_pk)
    controls = set(Item.objects.filter(campaign=campaign, is_control=True).values_list("pk", flat=True)) \
        if repeats else set()
    held = dict(Assignment.objects.filter(campaign=campaign, speaker_id__in=list(by_speaker)).order_by()
                .values("speaker_id").annotate(n=Count("pk")).values_list("speaker_id", "n"))
    rows = []
    for speaker_pk, item_pks in by_speaker.items():
        start = held.get(speaker_pk, 0)
        order = with_repeats(speaker_order(speaker_pk, item_pks, campaign.seed), repeats, controls)
        for offset, (item_pk, is_repeat) in enumerate(order):
            rows.append(Assignment(campaign=campaign, item_id=item_pk, speaker_id=speaker_pk, position=start + offset,
                                   is_repeat=is_repeat))
    Assignment.objects.bulk_create(rows)


def with_repeats(order: list[int], repeats: int, controls: set[int]) -> list[tuple[int, bool]]:
    """The speaker's order with ``repeats`` of their first reviewed items (control items never) shown again,
    each half the speaker's list later than its first showing, so the second rating is made without the first
    in mind. At most half of the reviewed items come back."""
    reviewed = [index for index, item_pk in enumerate(order) if item_pk not in controls]
    gap = max(1, len(order) // 2)
    again: dict[int, list[int]] = {}
    for index in reviewed[:min(repeats, len(reviewed) // 2)]:
        again.setdefault(min(len(order) - 1, index + gap), []).append(order[index])
    shown: list[tuple[int, bool]] = []
    for index, item_pk in enumerate(order):
        shown.append((item_pk, False))
        shown.extend((repeated, True) for repeated in again.get(index, ()))
    return shown


REASON_LIMIT = 500


def checked_reason(reason: str) -> str:
    """A reason written for the audit log, which keeps it for ever: trimmed, text PostgreSQL can store
    (corpus.validation.unstorable_string), at most REASON_LIMIT characters."""
    text = reason.strip()
    unstorable = unstorable_string(text)
    if unstorable:
        raise ReviewError(_("The reason %(problem)s.") % {"problem": unstorable}, "reason")
    if len(text) > REASON_LIMIT:
        raise ReviewError(_("The reason is limited to %(limit)s characters (it has %(length)s).")
                          % {"limit": REASON_LIMIT, "length": len(text)}, "reason")
    return text


@transaction.atomic
def set_campaign_status(*, actor: User, campaign: Campaign, status: str, reason: str = "") -> Campaign:
    """Pause, resume or close a campaign; a closed campaign takes no more ratings and stays closed."""
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    reason = checked_reason(reason)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    allowed: dict[str, set[str]] = {
        Campaign.Status.PAUSED: {Campaign.Status.OPEN},
        Campaign.Status.OPEN: {Campaign.Status.PAUSED},
        Campaign.Status.CLOSED: {Campaign.Status.OPEN, Campaign.Status.PAUSED},
    }
    if status not in allowed or campaign.status not in allowed[status]:
        wanted = Campaign.Status(status).label if status in Campaign.Status.values else status
        raise ReviewError(_("A campaign that is %(current)s cannot become %(status)s.") % {
            "current": campaign.get_status_display().lower(), "status": str(wanted).lower()}, "status")
    campaign.status = status
    campaign.closed_at = timezone.now() if status == Campaign.Status.CLOSED else None
    campaign.save(update_fields=["status", "closed_at"])
    action = {"paused": AuditAction.CAMPAIGN_PAUSED, "open": AuditAction.CAMPAIGN_RESUMED,
              "closed": AuditAction.CAMPAIGN_CLOSED}[status]
    record_event(action, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"reason": reason} if reason else {})
    refresh_summary_after_commit(campaign)
    return campaign


@transaction.atomic
def set_campaign_guidance(*, actor: User, campaign: Campaign, instructions: str,
                          device_may_hold_secret_items: bool) -> Campaign:
    """Change the speakers' instructions, or whether their phones may keep secret items, while the campaign
    runs: speakers see the new instructions on their next item."""
    require(actor, "organization.govern", campaign.organization, error=NotAllowed)
    campaign = Campaign.objects.select_for_update().get(pk=campaign.pk)
    if campaign.status == Campaign.Status.CLOSED:
        raise ReviewError(_("The campaign is closed: its instructions no longer change."), "instructions")
    campaign.instructions = instructions.strip()
    campaign.device_may_hold_secret_items = device_may_hold_secret_items
    campaign.save(update_fields=["instructions", "device_may_hold_secret_items"])
    record_event(AuditAction.CAMPAIGN_INSTRUCTIONS_CHANGED, actor=actor, organization=campaign.organization,
                 obj=campaign, details={"instructions": campaign.instructions,
                                        "device_may_hold_secret_items": device_may_hold_secret_items})
    return campaign


RATING_EXAMPLE_FIELDS = ("reject", "gist", "acceptable", "excellent", "cannot_judge")


@transaction.atomic
def set_rating_examples(*, actor: User, organization: Organization, values: dict[str, str]) -> RatingExamples:
    """The community's examples of each rating; an empty text shows no example for that rating."""
    require(actor, "organization.govern", organization, error=NotAllowed)
    unknown = set(values) - set(RATING_EXAMPLE_FIELDS)
    if unknown:
        raise ReviewError(f"Unknown rating {sorted(unknown)[0]!r}.", sorted(unknown)[0])
    examples, _created = RatingExamples.objects.get_or_create(organization=organization)
    for name, text in values.items():
        setattr(examples, name, text.strip())
    examples.updated_by = actor
    examples.updated_at = timezone.now()
    examples.save()
    record_event(AuditAction.RATING_EXAMPLES_CHANGED, actor=actor, organization=organization, obj=examples,
                 details={name: getattr(examples, name) for name in RATING_EXAMPLE_FIELDS})
    return examples


def uninvited_members(campaign_pk: int) -> list[CampaignSpeaker]:
    return list(CampaignSpeaker.objects.select_related("user")
                .filter(campaign_id=campaign_pk, invited_at__isnull=True, left_at__isnull=True))


def mark_invited(member: CampaignSpeaker) -> None:
    """Recorded once the e-mail went out: a task retried after a mail-server failure sends only the rest."""
    CampaignSpeaker.objects.filter(pk=member.pk).update(invited_at=timezone.now())


def due_reminders(now: datetime | None = None) -> list[int]:
    """Serving campaigns whose deadline falls within the next 24 hours and that were not reminded yet."""
    from ..selectors.campaigns import serving_filter

    now = now or timezone.now()
    return list(Campaign.objects.filter(serving_filter(), reminder_sent_at__isnull=True, deadline__gt=now,
                                        deadline__lte=now + REMINDER_WINDOW).values_list("pk", flat=True))


@transaction.atomic
def send_reminder(campaign_pk: int, send: Callable[[Campaign, list[tuple[str, str]]], int]) -> int:
    """Send one campaign's reminder to the speakers with items still to rate, and record it, in one
    transaction holding the campaign's row: a failed send records nothing (beat tries again in 15
    minutes) and two beat runs never send it twice. `send` gets each recipient's address and interface language."""
    campaign = (Campaign.objects.select_for_update(skip_locked=True).select_related("organization")
                .filter(pk=campaign_pk, reminder_sent_at__isnull=True).first())
    if campaign is None:
        return 0
    recipients = list(get_user_model().objects.filter(
        review_assignments__campaign=campaign, review_assignments__state=Assignment.State.OPEN,
    ).distinct().order_by("email").values_list("email", "interface_language"))
    sent = send(campaign, recipients)
    campaign.reminder_sent_at = timezone.now()
    campaign.save(update_fields=["reminder_sent_at"])
    return sent


@transaction.atomic
def record_ratings_export(*, actor: User, campaign: Campaign, file_format: str, count: int) -> None:
    """The audit event of a ratings export (who, which format, how many ratings)."""
    record_event(AuditAction.REVIEW_RATINGS_EXPORTED, actor=actor, organization=campaign.organization, obj=campaign,
                 details={"format": file_format, "ratings": count})
