"""What a speaker sees while rating: their campaigns, the next items and their texts, their progress."""

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
)

from common.compiled import CompiledQuery, loaded, rows_together, sent_together
from corpus.selectors import document_neighbours
from ledger.worktime import LOCKED_WORK_CLOCK
from organizations.audit import record_secret_access
from organizations.models import Organization
from organizations.selectors import memberships_unread, remember_memberships

from ..models import (
    Assignment,
    Campaign,
    CampaignSpeaker,
    Item,
    Rating,
    RatingExamples,
)
from .campaigns import LARGE_CARD_FIELDS, serving_filter
from .pool import in_pool, speaking_in, speaks_for


def speaker_campaigns(user) -> list[dict]:
    """The campaigns a speaker is in, with their own progress: what their review home page lists.
    Only what a blind reviewer may know: the community, the language pair, counts, the deadline."""
    if not user.is_authenticated:
        return []
    memberships = (CampaignSpeaker.objects.filter(speaking_in(user, "campaign"), user=user)
                   .exclude(campaign__status=Campaign.Status.PREPARING)
                   .select_related("campaign__organization", "campaign__run_card__dataset_version"))
    serving = set(Campaign.objects.filter(serving_filter(), pool__user=user).values_list("pk", flat=True))
    counts = {
        row["campaign_id"]: row
        for row in Assignment.objects.filter(speaker=user).exclude(state=Assignment.State.RELEASED)
        .values("campaign_id").annotate(total=Count("pk"), left=Count("pk", filter=Q(state=Assignment.State.OPEN)))
    }
    rows = []
    for member in memberships:
        campaign = member.campaign
        count = counts.get(campaign.pk, {"total": 0, "left": 0})
        rows.append({
            "campaign": campaign, "language_pair": campaign.run_card.dataset_version.language_pair,
            "total": count["total"], "done": count["total"] - count["left"], "left": count["left"],
            "serving": campaign.pk in serving,
            "withdrawn": campaign.status == Campaign.Status.OPEN and campaign.pk not in serving,
        })
    return rows


def waiting_item_count(user) -> int:
    """How many items wait for the speaker in the campaigns serving them now (one query): what the home page
    announces and where sign-in sends them."""
    if not user.is_authenticated:
        return 0
    serving = Campaign.objects.filter(serving_filter(), speaking_in(user))
    return Assignment.objects.filter(speaker=user, state=Assignment.State.OPEN, campaign__in=serving).count()


# The rating page's keys: 1–4 for the four ratings, 0 for "can't judge".
RATING_EXAMPLE_KEYS = {"cannot_judge": 0, "reject": 1, "gist": 2, "acceptable": 3, "excellent": 4}


def rating_examples(organization: Organization) -> dict[int, str]:
    """The community's own examples of each rating (only those written), keyed as the rating page's buttons."""
    return _examples_by_key(RatingExamples.objects.filter(organization=organization).first())


def _examples_by_key(stored: RatingExamples | None) -> dict[int, str]:
    if stored is None:
        return {}
    return {key: text for value, key in RATING_EXAMPLE_KEYS.items() if (text := getattr(stored, value).strip())}


def speaker_campaign(user, public_id) -> Campaign | None:
    """A campaign as its pool speaker sees it (None for anyone else: the page answers 404)."""
    if not user.is_authenticated:
        return None
    return (Campaign.objects.filter(speaking_in(user), public_id=public_id)
            .exclude(status=Campaign.Status.PREPARING)
            .select_related("organization", "run_card__dataset_version__dataset").defer(*LARGE_CARD_FIELDS).first())


# What the upcoming items need of their campaign; the other fields are deferred.
ITEMS_CAMPAIGN_FIELDS = ("id", "public_id", "organization_id", "status", "show_reference",
                         "device_may_hold_secret_items")
_SPEAKER_CAMPAIGN_FOR_ITEMS = CompiledQuery(
    lambda campaign, speaker: Campaign.objects.filter(speaking_in(speaker), public_id=campaign)
    .exclude(status=Campaign.Status.PREPARING).order_by()
    .annotate(serving_when_read=ExpressionWrapper(serving_filter(), output_field=BooleanField()))
    .only(*ITEMS_CAMPAIGN_FIELDS)[:1],
    campaign=uuid.UUID, speaker=int)


def speaker_campaign_for_items(user, public_id: uuid.UUID) -> Campaign | None:
    """`speaker_campaign` with only what the upcoming items need (one compiled query, no join to the card), and
    `serving_when_read` (`serving_filter`) set on it; None for anyone but its pool's speakers."""
    if not user.is_authenticated:
        return None
    found = _SPEAKER_CAMPAIGN_FOR_ITEMS.objects(campaign=public_id, speaker=user.pk)
    return found[0] if found else None


ITEM_PAGE_RELATED = ("item__entry", "item__result")
ITEM_PAGE_DEFERRED = ("item__result__data",)


# `undone`: a rating of the item was taken back by an undo (withdrawn_rating brings its flags, comment and
# translation back, whenever the item is opened again).
_ITEM_PAGE_ASSIGNMENT = CompiledQuery(
    lambda item, speaker: Assignment.objects.filter(public_id=item, speaker=speaker)
    .exclude(state=Assignment.State.RELEASED).select_related(*ITEM_PAGE_RELATED).defer(*ITEM_PAGE_DEFERRED)
    .annotate(undone=Exists(Rating.objects.filter(assignment=OuterRef("pk"), withdrawn_at__isnull=False)))
    .order_by()[:1],
    item=uuid.UUID, speaker=int)
_ITEM_PAGE_CAMPAIGN = CompiledQuery(
    lambda item, speaker: Campaign.objects.filter(in_pool(speaker), assignments__public_id=item)
    .annotate(serving_when_read=ExpressionWrapper(serving_filter(), output_field=BooleanField()))
    .select_related("organization__rating_examples", "run_card__dataset_version__dataset")
    .defer(*LARGE_CARD_FIELDS).order_by()[:1],
    item=uuid.UUID, speaker=int)


def speaker_assignment(user, public_id) -> Assignment | None:
    """The speaker's own assignment with what the rating page shows; anyone else's id gives None. Its
    campaign's `serving_when_read` says whether it served its items when it was read (`serving_filter`), and its
    `progress` the speaker's counts in that campaign (`speaker_progress`).

    Short queries, not one long join, sent in one round trip (`common.compiled.sent_together`): the item with its
    texts; its campaign with the card's version and dataset, the pool check (`in_pool`) and the serving rule (an
    EXISTS); the speaker's counts; their memberships, unless the request read them already. PostgreSQL spent several
    times longer planning the join of twelve tables, and later of eight, than running it, on every rating request
    (docs/performance.md); each is compiled once and prepared. The membership half of the rule comes from the
    request's memberships."""
    if not user.is_authenticated:
        return None
    try:
        item = public_id if isinstance(public_id, uuid.UUID) else uuid.UUID(str(public_id))
    except ValueError:
        return None
    reads = {"item": item, "speaker": user.pk}
    unread = memberships_unread(user)
    assignments, campaigns, progress, *memberships = sent_together(
        (_ITEM_PAGE_ASSIGNMENT, reads), (_ITEM_PAGE_CAMPAIGN, reads), (_ITEM_PROGRESS, reads),
        *([unread] if unread else []))
    if memberships:
        remember_memberships(user, memberships[0].rows())
    found, in_campaign = assignments.objects(), campaigns.objects()
    if not found or not in_campaign or not speaks_for(user, in_campaign[0].organization_id):
        return None
    assignment = found[0]
    assignment.campaign = in_campaign[0]
    assignment.progress = counted_progress(progress.rows())
    return assignment


# The rating post's reads, compiled once per connection (common.compiled): building them costs the ORM more than
# PostgreSQL spends running them, on every rating.
_RATING_TARGET = CompiledQuery(
    lambda item, speaker: Assignment.objects.select_for_update(of=("self",)).filter(public_id=item, speaker=speaker)
    .order_by().values_list("pk", "state", "is_repeat", "item_id", "campaign_id", "campaign__public_id"),
    item=uuid.UUID, speaker=int)
_RATING_CHECKS = CompiledQuery(
    lambda item, speaker, client_id: Assignment.objects.filter(public_id=item, speaker=speaker).order_by()
    .annotate(
        may_rate=Exists(Campaign.objects.filter(speaking_in(speaker), pk=OuterRef("campaign_id"))),
        serving=Exists(Campaign.objects.filter(serving_filter(), pk=OuterRef("campaign_id"))),
        rated_before=Exists(Rating.objects.filter(assignment=OuterRef("pk"))),
        sent_for=Subquery(Rating.objects.filter(client_id=client_id).order_by().values("assignment_id")[:1]),
    ).values_list("may_rate", "serving", "rated_before", "sent_for"),
    item=uuid.UUID, speaker=int, client_id=uuid.UUID)
_NEXT_ASSIGNMENT_ID = CompiledQuery(
    lambda campaign, speaker: Assignment.objects.filter(campaign=campaign, speaker=speaker,
                                                         state=Assignment.State.OPEN)
    .order_by("position").values_list("public_id")[:1],
    campaign=int, speaker=int)


@dataclass(frozen=True)
class RatingChecks:
    may_rate: bool  # in the campaign's pool and a speaker of its organization (`speaking_in`)
    serving: bool  # the campaign serves its items now (`serving_filter`)
    rated_before: bool  # the assignment has ratings already (current or not)
    sent_for: int | None  # the assignment a rating with this client id was already stored for
    counted_until: datetime | None  # how far the speaker's paid working time has run (ledger.WorkClock)


def lock_rating_target(speaker_id: int, item: uuid.UUID,
                       client_id: uuid.UUID) -> tuple[Assignment, RatingChecks] | None:
    """Lock the speaker's own assignment of `item` (inside the caller's transaction), then their work clock, and read
    what decides whether a rating of it is stored; None when it is not theirs. The locks and the checks go to
    PostgreSQL in one round trip, with the transaction's BEGIN; the checks run after the assignment's lock is held,
    on what was committed until then. The assignment's campaign comes with it, its id and public id loaded (the rest
    deferred)."""
    targets, checks, clock = rows_together((_RATING_TARGET, {"item": item, "speaker": speaker_id}),
                                           (_RATING_CHECKS, {"item": item, "speaker": speaker_id,
                                                             "client_id": client_id}),
                                           (LOCKED_WORK_CLOCK, {"speaker": speaker_id}))
    if not targets or not checks:
        return None
    pk, state, is_repeat, item_id, campaign_id, campaign_public_id = targets[0]
    assignment = loaded(Assignment, ["id", "public_id", "campaign_id", "item_id", "speaker_id", "state", "is_repeat"],
                        [pk, item, campaign_id, item_id, speaker_id, state, is_repeat])
    assignment.campaign = loaded(Campaign, ["id", "public_id"], [campaign_id, campaign_public_id])
    may_rate, serving, rated_before, sent_for = checks[0]
    return assignment, RatingChecks(may_rate, serving, rated_before, sent_for, clock[0][0] if clock else None)


def next_assignment_id(user, campaign: Campaign | int) -> uuid.UUID | None:
    """The public id of the speaker's next open item: where a rating without a page in its answer sends them."""
    row = _NEXT_ASSIGNMENT_ID.first(campaign=getattr(campaign, "pk", campaign), speaker=user.pk)
    return row[0] if row else None


def _open_items(limit: int) -> CompiledQuery:
    return CompiledQuery(
        lambda campaign, speaker: Assignment.objects.filter(campaign=campaign, speaker=speaker,
                                                             state=Assignment.State.OPEN)
        .select_related(*ITEM_PAGE_RELATED).defer(*ITEM_PAGE_DEFERRED).order_by("position")[:limit],
        campaign=int, speaker=int)


def campaign_with_next_item(user, campaign: Campaign) -> tuple[Campaign | None, Assignment | None]:
    """What a rating's answer that carries the next item needs, in one round trip: the rated item's campaign as
    `speaker_campaign_for_items` reads it (None for anyone but its pool's speakers), and the speaker's next open
    item in it with what the rating page shows (None when there is none, or no campaign). `campaign` needs only
    its ids."""
    if not user.is_authenticated:
        return None, None
    campaigns, items = (fetched.objects() for fetched in sent_together(
        (_SPEAKER_CAMPAIGN_FOR_ITEMS, {"campaign": campaign.public_id, "speaker": user.pk}),
        (_NEXT_OPEN_ITEM, {"campaign": campaign.pk, "speaker": user.pk})))
    if not campaigns:
        return None, None
    if items:
        items[0].campaign = campaigns[0]
    return campaigns[0], items[0] if items else None


# How many upcoming items rate.js holds: a few minutes of rating without a connection, a small download.
UPCOMING_LIMIT = 20


def may_hold(campaign: Campaign, item: Item) -> bool:
    """Whether a speaker's device may keep the item to rate it later, offline: public items always, secret ones
    only when the campaign says so (`device_may_hold_secret_items`)."""
    return campaign.device_may_hold_secret_items or not item.entry.is_secret


_NEXT_OPEN_ITEM = _open_items(1)
_UPCOMING_ITEMS = _open_items(UPCOMING_LIMIT)


def upcoming_assignments(user, campaign: Campaign) -> tuple[list[Assignment], bool]:
    """The speaker's next UPCOMING_LIMIT open items in their order that the device may hold (`may_hold`), and
    whether the list stopped before one it may not: what rate.js keeps on the device."""
    assignments = _UPCOMING_ITEMS.objects(campaign=campaign.pk, speaker=user.pk)
    held: list[Assignment] = []
    for assignment in assignments:
        if not may_hold(campaign, assignment.item):
            return held, True
        assignment.campaign = campaign
        held.append(assignment)
    return held, False


def shown_upcoming_items(user, campaign: Campaign, *,
                         where: str) -> tuple[list[tuple[Assignment, dict[str, Any]]], bool]:
    """`upcoming_assignments` with the texts a speaker sees of each (their context included), the audit event of
    the secret texts among them recorded in the same call."""
    held, held_back = upcoming_assignments(user, campaign)
    contexts, secret_context = item_contexts(user, campaign, [assignment.item for assignment in held])
    secret = sum(assignment.item.entry.is_secret for assignment in held) + secret_context
    if secret:
        record_secret_access(user, {campaign.organization_id: secret}, where)
    return [(assignment, with_context(item_texts(assignment.item, campaign.show_reference),
                                      contexts.get(assignment.item.entry_id)))
            for assignment in held], held_back


def loaded_rating_examples(organization: Organization) -> dict[int, str]:
    """`rating_examples` read from the row loaded with the organization (`speaker_assignment` joins it): the rating
    page shows them without a query of its own."""
    try:
        return _examples_by_key(organization.rating_examples)
    except RatingExamples.DoesNotExist:
        return {}


def has_rated_in(user, campaign: Campaign) -> bool:
    """Whether the speaker ever rated (or skipped) an item of the campaign, withdrawn ratings included."""
    return Rating.objects.filter(assignment__campaign=campaign, speaker=user).exists()


def withdrawn_rating(assignment: Assignment) -> Rating | None:
    """The rating last withdrawn from an open assignment (by an undo): its flags, comment and translation come
    back with the item. None without a query for an item page's assignment that has none (`undone`)."""
    if assignment.state != Assignment.State.OPEN or not getattr(assignment, "undone", True):
        return None
    return assignment.ratings.filter(withdrawn_at__isnull=False).order_by("-withdrawn_at", "-pk").first()


def _progress(in_campaign: Q) -> QuerySet:
    return (Assignment.objects.filter(in_campaign).exclude(state=Assignment.State.RELEASED).order_by()
            .values("campaign").annotate(total=Count("pk"), left=Count("pk", filter=Q(state=Assignment.State.OPEN)))
            .values_list("total", "left"))


_PROGRESS = CompiledQuery(lambda campaign, speaker: _progress(Q(campaign=campaign, speaker=speaker)),
                          campaign=int, speaker=int)
# The same counts in the campaign of one of the speaker's items, read with that item (`speaker_assignment`).
_ITEM_PROGRESS = CompiledQuery(
    lambda item, speaker: _progress(Q(speaker=speaker, campaign_id=Subquery(
        Assignment.objects.filter(public_id=item, speaker=speaker).values("campaign_id")[:1]))),
    item=uuid.UUID, speaker=int)


def speaker_progress(user, campaign: Campaign) -> dict[str, int]:
    """How many items the speaker has, has answered and has left (every rating page shows it)."""
    return counted_progress(_PROGRESS.rows(campaign=campaign.pk, speaker=user.pk))


def counted_progress(rows: list[tuple[int, int]]) -> dict[str, int]:
    total, left = rows[0] if rows else (0, 0)
    return {"total": total, "done": total - left, "left": left}


def current_rating(assignment: Assignment) -> Rating | None:
    """An open assignment holds no current rating (storing one moves it on; undo retires it first): no query."""
    if assignment.state == Assignment.State.OPEN:
        return None
    return assignment.ratings.filter(is_current=True).first()


def speaker_history(user, campaign: Campaign) -> QuerySet[Assignment]:
    """The items the speaker has answered, in their order, with their current rating: to change one."""
    return (Assignment.objects.filter(campaign=campaign, speaker=user,
                                      state__in=[Assignment.State.RATED, Assignment.State.SKIPPED])
            .order_by("position")
            .prefetch_related(Prefetch("ratings", queryset=Rating.objects.filter(is_current=True), to_attr="current")))


def shown_item_texts(user, campaign: Campaign, item: Item, *, where: str) -> dict[str, Any]:
    """`item_texts` as the rating page shows them, with the sentences around the source when its entry belongs to
    a text (`item_contexts`), the audit event recorded in the same call when any text shown is secret."""
    contexts, secret_context = item_contexts(user, campaign, [item])
    secret = int(item.entry.is_secret) + secret_context
    if secret:
        record_secret_access(user, {campaign.organization_id: secret}, where)
    return with_context(item_texts(item, campaign.show_reference), contexts.get(item.entry_id))


def item_texts(item: Item, show_reference: bool) -> dict[str, Any]:
    """What a speaker sees of an item: the source, the candidate and, when the campaign says so, the
    reference (such campaigns have no control items: the reference would give them away)."""
    texts: dict[str, Any] = {"source": item.entry.source, "candidate": item.candidate}
    if show_reference:
        texts["reference"] = item.entry.reference
    return texts


ItemContext = dict[str, list[str | None]]


def with_context(texts: dict[str, Any], context: ItemContext | None) -> dict[str, Any]:
    if context is not None:
        texts["context"] = context
    return texts


def item_contexts(user, campaign: Campaign, items: list[Item]) -> tuple[dict[int, ItemContext], int]:
    """Entry pk → the source sentences before and after each item's own in its text (`corpus.selectors.
    document_neighbours`), and how many secret ones are shown. A secret neighbour is shown only to a speaker who
    rates it too in this campaign (who sees it as an item anyway); to anyone else it stays `None`, a sentence kept
    secret. No query for items whose entries name no text; two at most otherwise, however many items."""
    neighbours = document_neighbours([item.entry for item in items])
    if not neighbours:
        return {}, 0
    secret_ids = {line.entry_id for before, after in neighbours.values() for line in (*before, *after)
                  if line.is_secret}
    readable = set(Assignment.objects.filter(campaign=campaign, speaker=user, item__entry_id__in=secret_ids)
                   .exclude(state=Assignment.State.RELEASED).values_list("item__entry_id", flat=True)
                   ) if secret_ids else set()
    shown_secret = 0
    contexts: dict[int, ItemContext] = {}
    for entry_id, (before, after) in neighbours.items():
        context: ItemContext = {"before": [], "after": []}
        for side, lines in (("before", before), ("after", after)):
            for line in lines:
                shown = not line.is_secret or line.entry_id in readable
                shown_secret += line.is_secret and shown
                context[side].append(line.source if shown else None)
        contexts[entry_id] = context
    return contexts, shown_secret
