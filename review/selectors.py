"""Every read of the review app that has a rule.

Who sees an item's texts: the speaker it is assigned to (`speaker_assignment`, item by item — the one
exception SPEC §2 principle 3 makes to the corpus visibility rule for secret segments) and the steward's
governance staff (`governed_campaign`). Speakers never see the method, model, scores or anyone else's
rating: nothing here hands a speaker page more than the item itself.
"""

import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from statistics import median
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Sum,
)
from django.utils.translation import gettext as _

from common.compiled import CompiledQuery, loaded, rows_together
from corpus.language_pairs import split_pair
from corpus.models import ConsentUse
from corpus.selectors import consent_filter, has_consent
from leaderboard.models import RunCard
from leaderboard.selectors import bands_of, conflicts_of
from organizations.audit import record_secret_access
from organizations.models import Membership, Organization, Role
from organizations.selectors import governance_org_ids, org_ids_with_roles
from speakers.selectors import Requirement, practice_problems, qualification_problems

from .aggregation import CampaignAggregate, ItemObservations, Observation, aggregate
from .gate import GatePolicy as GateThresholds
from .gate import GateResult
from .models import (
    FLAG_FIELDS,
    Assignment,
    Campaign,
    CampaignSpeaker,
    Decision,
    GatePolicy,
    Item,
    Payment,
    PayPolicy,
    Rating,
    RatingExamples,
    RatingWithdrawal,
    SpeakerCredit,
    SpeakerExclusion,
)

DATASET_PATH = "run_card__dataset_version__dataset"
# A run card's raw text (megabytes for a large card) and method_config: never needed by review pages.
LARGE_CARD_FIELDS = ("run_card__raw", "run_card__method_config")


# Who may be in a campaign's pool.

def pool_requirement(run_card: RunCard, organization: Organization, variety: str = "") -> Requirement:
    """What a speaker of the card's organization must be attested for to review it: the dataset version's language
    pair (its tags, or the pair as written when they are missing) and the campaign's variety."""
    version = run_card.dataset_version
    sides = split_pair(version.language_pair) or ("", "")
    return Requirement.of(organization, version.source_language.strip() or sides[0],
                          version.target_language.strip() or sides[1], variety)


def pool_refusals(run_card: RunCard, organization: Organization, user_ids: Sequence[int],
                  variety: str = "") -> dict[int, str]:
    """Why each of `user_ids` (speakers of the organization) may not be in a review pool of the card; those who may
    are absent. First a conflict of interest (the card's submitter, its method's, a declared conflict), then the
    attested languages (`speakers.selectors.qualification_problems`), then the organization's practice round when
    it is required. A constant number of queries however many speakers."""
    ids = set(user_ids)
    refusals = {user_id: _("conflict of interest: %(reason)s") % {"reason": reason}
                for user_id, reason in conflicts_of(run_card).items() if user_id in ids}
    remaining = ids - set(refusals)
    refusals |= qualification_problems(pool_requirement(run_card, organization, variety), remaining)
    refusals |= practice_problems(organization, remaining - set(refusals))
    return refusals


def organization_pool_refusals(run_card: RunCard, organization: Organization, variety: str = "") -> dict[int, str]:
    """`pool_refusals` for every speaker of the organization: what the pool forms show."""
    speakers = Membership.objects.filter(organization=organization, role=Role.SPEAKER).values_list("user_id",
                                                                                                    flat=True)
    return pool_refusals(run_card, organization, list(speakers), variety)


def decision_conflict(user, campaign: Campaign) -> str | None:
    """Why `user` may not record the campaign's decision (a conflict of interest with its run card), or None."""
    return conflicts_of(campaign.run_card).get(user.pk)


def serving_filter() -> Q:
    """Campaigns whose items are served to speakers now: open, and human review still consented."""
    return Q(status=Campaign.Status.OPEN) & consent_filter(ConsentUse.HUMAN_REVIEW, DATASET_PATH)


def consent_withdrawn(campaign: Campaign) -> bool:
    return not has_consent(campaign.run_card.dataset_version.dataset, ConsentUse.HUMAN_REVIEW)


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


def speaking_in(user, campaign_path: str = "") -> Q:
    """Campaigns (reached through `campaign_path`) in whose pool `user` is, not having left, while still a
    speaker of the campaign's organization: the one rule for who reaches a campaign's items as a rater
    (`in_pool` and `speaks_for` are its two halves, for the hot path that checks the second in memory)."""
    prefix = f"{campaign_path}__" if campaign_path else ""
    return in_pool(user, campaign_path) & Q(**{f"{prefix}organization__memberships__user": user,
                                               f"{prefix}organization__memberships__role": Role.SPEAKER})


def in_pool(user, campaign_path: str = "") -> Q:
    prefix = f"{campaign_path}__" if campaign_path else ""
    return Q(**{f"{prefix}pool__user": user, f"{prefix}pool__left_at__isnull": True})


def speaks_for(user, organization_id: int) -> bool:
    """The membership half of `speaking_in`, from the request's remembered memberships (no query)."""
    return organization_id in org_ids_with_roles(user, [Role.SPEAKER])


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


def is_serving(campaign: Campaign) -> bool:
    return Campaign.objects.filter(serving_filter(), pk=campaign.pk).exists()


ITEM_PAGE_RELATED = ("item__entry", "item__result")
ITEM_PAGE_DEFERRED = ("item__result__data",)


_ITEM_PAGE_ASSIGNMENT = CompiledQuery(
    lambda item, speaker: Assignment.objects.filter(public_id=item, speaker=speaker)
    .exclude(state=Assignment.State.RELEASED).select_related(*ITEM_PAGE_RELATED).defer(*ITEM_PAGE_DEFERRED)
    .order_by()[:1],
    item=uuid.UUID, speaker=int)
_ITEM_PAGE_CAMPAIGN = CompiledQuery(
    lambda campaign, speaker: Campaign.objects.filter(in_pool(speaker), pk=campaign)
    .annotate(serving_when_read=ExpressionWrapper(serving_filter(), output_field=BooleanField()))
    .select_related("organization__rating_examples", "run_card__dataset_version__dataset")
    .defer(*LARGE_CARD_FIELDS).order_by()[:1],
    campaign=int, speaker=int)


def speaker_assignment(user, public_id) -> Assignment | None:
    """The speaker's own assignment with what the rating page shows; anyone else's id gives None. Its
    campaign's `serving_when_read` says whether it served its items when it was read (`serving_filter`).

    Two short queries, not one long join: the item with its texts, then its campaign with the card's version and
    dataset, the pool check (`in_pool`) and the serving rule (an EXISTS). PostgreSQL spent several times longer
    planning the join of twelve tables, and later of eight, than running it, on every rating request
    (docs/performance.md); both are compiled once and prepared (common.compiled). The membership half of the rule
    comes from the request's remembered memberships."""
    if not user.is_authenticated:
        return None
    try:
        item = public_id if isinstance(public_id, uuid.UUID) else uuid.UUID(str(public_id))
    except ValueError:
        return None
    found = _ITEM_PAGE_ASSIGNMENT.objects(item=item, speaker=user.pk)
    if not found:
        return None
    assignment = found[0]
    campaigns = _ITEM_PAGE_CAMPAIGN.objects(campaign=assignment.campaign_id, speaker=user.pk)
    if not campaigns or not speaks_for(user, campaigns[0].organization_id):
        return None
    assignment.campaign = campaigns[0]
    return assignment


# The rating post's reads, compiled once per connection (common.compiled): building them costs the ORM more than
# PostgreSQL spends running them, on every rating.
_RATING_TARGET = CompiledQuery(
    lambda item, speaker: Assignment.objects.select_for_update(of=("self",)).filter(public_id=item, speaker=speaker)
    .order_by().values_list("pk", "state", "is_repeat", "item_id", "campaign_id", "campaign__public_id"),
    item=uuid.UUID, speaker=int)
_RATING_CHECKS = CompiledQuery(
    lambda item, speaker, client_id, since: Assignment.objects.filter(public_id=item, speaker=speaker).order_by()
    .annotate(
        may_rate=Exists(Campaign.objects.filter(speaking_in(speaker), pk=OuterRef("campaign_id"))),
        serving=Exists(Campaign.objects.filter(serving_filter(), pk=OuterRef("campaign_id"))),
        rated_before=Exists(Rating.objects.filter(assignment=OuterRef("pk"))),
        sent_for=Subquery(Rating.objects.filter(client_id=client_id).order_by().values("assignment_id")[:1]),
        counted_since=Subquery(Rating.objects.filter(assignment=OuterRef("pk"), created_at__gte=since).order_by()
                               .values("assignment").annotate(total=Sum("active_seconds")).values("total")),
    ).values_list("may_rate", "serving", "rated_before", "sent_for", "counted_since"),
    item=uuid.UUID, speaker=int, client_id=uuid.UUID, since=datetime)
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
    counted_since: float  # working seconds the assignment's ratings made since `since` already count


def lock_rating_target(speaker_id: int, item: uuid.UUID, client_id: uuid.UUID,
                       since: datetime) -> tuple[Assignment, RatingChecks] | None:
    """Lock the speaker's own assignment of `item` (inside the caller's transaction) and read what decides whether
    a rating of it is stored, and the working time its ratings since `since` (the item's showing) already counted;
    None when it is not theirs. The lock and the checks go to PostgreSQL in one round trip, with the transaction's
    BEGIN; the checks run after the lock is held, on what was committed until then. The assignment's campaign
    comes with it, its id and public id loaded (the rest deferred)."""
    targets, checks = rows_together((_RATING_TARGET, {"item": item, "speaker": speaker_id}),
                                    (_RATING_CHECKS, {"item": item, "speaker": speaker_id, "client_id": client_id,
                                                      "since": since}))
    if not targets or not checks:
        return None
    pk, state, is_repeat, item_id, campaign_id, campaign_public_id = targets[0]
    assignment = loaded(Assignment, ["id", "public_id", "campaign_id", "item_id", "speaker_id", "state", "is_repeat"],
                        [pk, item, campaign_id, item_id, speaker_id, state, is_repeat])
    assignment.campaign = loaded(Campaign, ["id", "public_id"], [campaign_id, campaign_public_id])
    may_rate, serving, rated_before, sent_for, counted_since = checks[0]
    return assignment, RatingChecks(may_rate, serving, rated_before, sent_for, counted_since or 0.0)


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


def next_assignment(user, campaign: Campaign) -> Assignment | None:
    """The speaker's next open item, with what the rating page shows (a rating's answer may carry it); the
    campaign, already checked and loaded by the caller, is attached rather than fetched again."""
    found = _NEXT_OPEN_ITEM.objects(campaign=campaign.pk, speaker=user.pk)
    if not found:
        return None
    found[0].campaign = campaign
    return found[0]


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
                         where: str) -> tuple[list[tuple[Assignment, dict[str, str]]], bool]:
    """`upcoming_assignments` with the texts a speaker sees of each, the audit event of the secret ones among them
    recorded in the same call."""
    held, held_back = upcoming_assignments(user, campaign)
    secret = sum(assignment.item.entry.is_secret for assignment in held)
    if secret:
        record_secret_access(user, {campaign.organization_id: secret}, where)
    return [(assignment, item_texts(assignment.item, campaign.show_reference)) for assignment in held], held_back


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
    back with the item."""
    if assignment.state != Assignment.State.OPEN:
        return None
    return assignment.ratings.filter(withdrawn_at__isnull=False).order_by("-withdrawn_at", "-pk").first()


_PROGRESS = CompiledQuery(
    lambda campaign, speaker: Assignment.objects.filter(campaign=campaign, speaker=speaker)
    .exclude(state=Assignment.State.RELEASED).order_by().values("campaign")
    .annotate(total=Count("pk"), left=Count("pk", filter=Q(state=Assignment.State.OPEN))).values_list("total", "left"),
    campaign=int, speaker=int)


def speaker_progress(user, campaign: Campaign) -> dict[str, int]:
    """How many items the speaker has, has answered and has left (every rating page shows it)."""
    total, left = _PROGRESS.first(campaign=campaign.pk, speaker=user.pk) or (0, 0)
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


# Governance staff.

def governed_campaigns(user) -> QuerySet[Campaign]:
    return (Campaign.objects.filter(organization_id__in=governance_org_ids(user))
            .select_related("organization", "run_card__dataset_version__dataset", "run_card__method")
            .defer(*LARGE_CARD_FIELDS))


def with_last_rating(campaigns: QuerySet[Campaign]) -> QuerySet[Campaign]:
    """Each campaign with `last_rated_at`, the time of its newest rating (figures_stale), in the same query."""
    newest = Rating.objects.filter(assignment__campaign=OuterRef("pk")).order_by("-created_at").values("created_at")
    return campaigns.annotate(last_rated_at=Subquery(newest[:1]))


def figures_stale(campaign: Campaign) -> bool:
    """No figures were stored since the sample was drawn, or ratings arrived after they were (`last_rated_at`, from
    with_last_rating)."""
    if campaign.status == Campaign.Status.PREPARING:
        return False
    if campaign.summary_at is None:
        return True
    rated_at = getattr(campaign, "last_rated_at", None)
    return rated_at is not None and rated_at > campaign.summary_at


def governed_campaign(user, public_id) -> Campaign | None:
    """A campaign for its organization's governance staff; None (404) for everybody else."""
    return governed_campaigns(user).filter(public_id=public_id).first()


def pool_progress(campaign: Campaign) -> list[dict]:
    """Each pool member with their counts (one query for the counts, one for the pool)."""
    counts = {
        row["speaker_id"]: row
        for row in campaign.assignments.values("speaker_id").annotate(
            open=Count("pk", filter=Q(state=Assignment.State.OPEN)),
            rated=Count("pk", filter=Q(state=Assignment.State.RATED)),
            skipped=Count("pk", filter=Q(state=Assignment.State.SKIPPED)),
            released=Count("pk", filter=Q(state=Assignment.State.RELEASED)),
        )
    }
    empty = {"open": 0, "rated": 0, "skipped": 0, "released": 0}
    return [{"member": member, **{k: counts.get(member.user_id, empty)[k] for k in empty}}
            for member in campaign.pool.select_related("user").order_by("left_at", "user__email")]


def excluded_speakers(campaign: Campaign) -> list[SpeakerExclusion]:
    """The exclusions in force (governance staff left these speakers' ratings out, with a reason)."""
    return list(SpeakerExclusion.objects.filter(campaign=campaign, included_at__isnull=True)
                .select_related("speaker", "excluded_by").order_by("excluded_at", "pk"))


def campaign_observations(campaign: Campaign, without: Sequence[int] = ()) -> list[ItemObservations]:
    """Every item with its current ratings ("can't judge" answers are not ratings), in one query; ``without``:
    speakers whose ratings are left out."""
    observations: dict[int, list[Observation]] = {}
    rows = (Rating.objects.filter(assignment__campaign=campaign, is_current=True, assignment__is_repeat=False)
            .exclude(value="cannot_judge").exclude(speaker_id__in=list(without))
            .values_list("assignment__item_id", "speaker_id", "value", *FLAG_FIELDS))
    for item_id, speaker_id, value, *flags in rows:
        chosen = frozenset(name for name, on in zip(FLAG_FIELDS, flags, strict=True) if on)
        observations.setdefault(item_id, []).append(Observation(speaker_id, value, chosen))
    return [
        ItemObservations(item_id=pk, difficulty=difficulty, domain=domain, is_control=is_control,
                         observations=tuple(observations.get(pk, ())))
        for pk, difficulty, domain, is_control in campaign.items.order_by("pk")
        .values_list("pk", "difficulty", "domain", "is_control")
    ]


def repeat_pairs(campaign: Campaign, without: Sequence[int] = ()) -> list[tuple[int, str, str]]:
    """(speaker, first rating, second rating) of each item a speaker was shown twice and rated both times (a
    "can't judge" is no rating): their consistency, which never enters the figures."""
    current = (Rating.objects.filter(assignment__campaign=campaign, is_current=True)
               .exclude(value="cannot_judge").exclude(speaker_id__in=list(without)))
    second = dict(((item, speaker), value) for item, speaker, value in current.filter(assignment__is_repeat=True)
                  .values_list("assignment__item_id", "speaker_id", "value"))
    if not second:
        return []
    first = current.filter(assignment__is_repeat=False, assignment__item_id__in={item for item, _ in second})
    return sorted((speaker, value, second[(item, speaker)])
                  for item, speaker, value in first.values_list("assignment__item_id", "speaker_id", "value")
                  if (item, speaker) in second)


# Aggregates under an older state are never read again; they only wait to expire.
AGGREGATE_CACHE_SECONDS = 3600


@dataclass(frozen=True)
class SpeakerRatings:
    """One speaker's ratings in a campaign, counted in `rating_summary`'s pass."""

    speaker_id: int
    given: int  # ever, retired and withdrawn included
    newest: int  # the newest one's id
    current: int
    counting: int  # current, other than "can't judge"
    noted: int  # current, with a flag, a comment or a correction (`items_needing_attention`)


def noted_ratings() -> Q:
    """Ratings that carry a flag, a comment or a correction."""
    noted = Q(comment__gt="") | Q(correction__gt="")
    for flag in FLAG_FIELDS:
        noted |= Q(**{flag: True})
    return noted


def rating_summary(campaign: Campaign) -> tuple[SpeakerRatings, ...]:
    """The campaign's ratings counted per speaker in one grouped pass (30,000 at 10,000 items × 3): the evidence's
    state, who rated and how many ratings need attention all come from it, so that a page needing the three (the
    decision page) reads the ratings once, not three times."""
    current = Q(is_current=True)
    return tuple(
        SpeakerRatings(*row) for row in Rating.objects.filter(assignment__campaign=campaign).order_by()
        .values("speaker_id").annotate(
            given=Count("pk"), newest=Max("pk"), current=Count("pk", filter=current),
            counting=Count("pk", filter=current & ~Q(value="cannot_judge")),
            noted=Count("pk", filter=current & noted_ratings()))
        .values_list("speaker_id", "given", "newest", "current", "counting", "noted").order_by("speaker_id"))


def evidence_state(campaign: Campaign, summary: Sequence[SpeakerRatings] | None = None) -> tuple[int, int, int]:
    """(ratings ever given, the newest one's id, ratings current): a campaign's items are fixed when it opens,
    and its ratings are only ever added or retired (never changed, never made current again), so this triple
    changes with every change of the evidence — counted in `rating_summary`'s pass (`summary` when the caller
    has it already), not a read of every rating."""
    summary = rating_summary(campaign) if summary is None else summary
    return (sum(row.given for row in summary), max((row.newest for row in summary), default=0),
            sum(row.current for row in summary))


def tier_populations(campaign: Campaign) -> dict[int | None, int]:
    """How many of the card's outputs each difficulty tier had when the campaign drew its sample (recorded with
    it): the weights of the post-stratified estimate."""
    return {stratum["difficulty"]: stratum["population"] for stratum in campaign.strata or ()}


def campaign_aggregate(campaign: Campaign, every_speaker: bool = False,
                       summary: Sequence[SpeakerRatings] | None = None) -> CampaignAggregate:
    """The campaign's figures, computed once per state of its evidence (`evidence_state`) and of its exclusions,
    and cached: the decision and campaign pages read them on every view, and at 10,000 items recomputing takes a
    second. Without the speakers governance staff left out (`excluded_speakers`) unless ``every_speaker``.
    Without the per-item summaries (`items` is empty): no page shows them, and reading 10,000 of them back from
    the cache took longer than the rest of the page."""
    without = () if every_speaker else tuple(
        SpeakerExclusion.objects.filter(campaign=campaign, included_at__isnull=True).order_by("speaker_id")
        .values_list("speaker_id", flat=True))
    key = "campaign-aggregate:v7:{}:{}:{}:{}:{}".format(campaign.pk, *evidence_state(campaign, summary),
                                                       ",".join(map(str, without)))
    result = cache.get(key)
    if result is None:
        result = replace(aggregate(campaign_observations(campaign, without), campaign.ratings_per_item,
                                   tier_populations=tier_populations(campaign),
                                   repeats=repeat_pairs(campaign, without)), items=())
        cache.set(key, result, AGGREGATE_CACHE_SECONDS)
    return result


def gate_policy_for(organization: Organization) -> GateThresholds:
    """The organization's thresholds, or the documented defaults when it never changed them."""
    stored = stored_gate_policy(organization)
    if stored is None:
        return GateThresholds()
    return GateThresholds(
        require_complete_coverage=stored.require_complete_coverage,
        min_usable_lower_bound=stored.min_usable_lower_bound,
        min_tier_usable_share=stored.min_tier_usable_share,
        max_reject_share=stored.max_reject_share,
        min_alpha=stored.min_alpha,
        min_ac1=stored.min_ac1,
        min_rated_items=stored.min_rated_items,
        min_distinct_speakers=stored.min_distinct_speakers,
    )


def gate_snapshot(result: GateResult) -> dict:
    """The recommendation as kept with a decision: outcome, summary and every check."""
    return {"outcome": result.outcome, "summary": result.summary,
            "checks": [asdict(check) for check in result.reasons]}


def items_needing_attention(campaign: Campaign) -> QuerySet[Rating]:
    """Current ratings that carry a flag, a comment or a correction, with the item's texts: what the
    decision page lists for governance staff (callers have checked the reader is one)."""
    return (Rating.objects.filter(noted_ratings(), assignment__campaign=campaign, is_current=True)
            .select_related("assignment__item__entry", "assignment__item__result", "speaker")
            .order_by("assignment__item_id", "created_at"))


def decision_in_force(campaign: Campaign) -> Decision | None:
    return campaign.decisions.select_related("decided_by").first()


def decisions_of(campaign: Campaign) -> QuerySet[Decision]:
    return campaign.decisions.select_related("decided_by")


def shown_items_needing_attention(user, campaign: Campaign, *, where: str, page_number=None, per_page: int = 50,
                                  summary: Sequence[SpeakerRatings] | None = None) -> Page:
    """One page of `items_needing_attention` as the decision page shows them (a page, not all: each is a
    card with its texts, and hundreds of them made the page slow), the audit event of the secret items among
    them recorded in the same call."""
    paginator = Paginator(items_needing_attention(campaign), per_page)
    if summary is not None:
        paginator.count = sum(row.noted for row in summary)  # counted in the summary's pass: no COUNT(*) of its own
    page = paginator.get_page(page_number)
    shown = list(page.object_list)
    secret_items = {rating.assignment.item_id for rating in shown if rating.assignment.item.entry.is_secret}
    record_secret_access(user, {campaign.organization_id: len(secret_items)}, where)
    page.object_list = shown
    return page


def shown_ratings_for_export(user, campaign: Campaign, *, where: str) -> tuple[QuerySet[Rating], int]:
    """`ratings_for_export` and how many there are; for a campaign on secret entries the audit event of the
    export is recorded in the same call."""
    ratings = ratings_for_export(campaign)
    count = ratings.count()
    if campaign.run_card.is_secret:
        record_secret_access(user, {campaign.organization_id: count}, where)
    return ratings, count


def ratings_for_export(campaign: Campaign) -> QuerySet[Rating]:
    """Every rating given in the campaign, history included, for governance staff's export; never those their
    speakers withdrew."""
    return (Rating.objects.filter(assignment__campaign=campaign, withdrawal__isnull=True)
            .select_related("assignment__item__entry").order_by("assignment__item_id", "created_at"))


def latest_decision(run_card: RunCard) -> Decision | None:
    """The decision in force for a run card: the latest over all its campaigns (one query)."""
    return Decision.objects.filter(campaign__run_card=run_card).order_by("-decided_at", "-pk").first()


def decision_notice(decision_pk: int) -> tuple[Decision, CampaignAggregate] | None:
    """What the card's submitter is told of a decision: the decision with its card, and the campaign's
    aggregates (never an item). None when the card has no submitter with an address to write to."""
    decision = (Decision.objects.select_related("campaign__organization", "campaign__run_card__submitted_by",
                                                "campaign__run_card__method",
                                                "campaign__run_card__dataset_version__dataset")
                .defer(*(f"campaign__{name}" for name in LARGE_CARD_FIELDS)).get(pk=decision_pk))
    developer = decision.campaign.run_card.submitted_by
    if developer is None or not developer.email or not developer.is_active:
        return None
    return decision, campaign_aggregate(decision.campaign)


STANDARD_1 = "standard/1"


@dataclass(frozen=True)
class ReviewTrigger:
    """Whether a card is ready for community review without a written reason, and if not, why."""

    met: bool
    message: str = ""


def stored_gate_policy(organization: Organization) -> GatePolicy | None:
    return GatePolicy.objects.filter(organization=organization).first()


def deployable_composite(run_card: RunCard) -> float:
    """Where the Deployable tier starts for the card's language pair: its steward's bands, 0.70 by default
    (SPEC §5; leaderboard.selectors.bands_of)."""
    return bands_of(run_card.dataset_version)["deployable"]


def shown_composite(run_card: RunCard) -> float | None:
    """The composite the leaderboard shows: recomputed where the claim is not what the card's predictions give."""
    return run_card.leaderboard_composite if run_card.leaderboard_composite is not None else run_card.composite


def shown_chrf(run_card: RunCard) -> float | None:
    return (run_card.leaderboard_chrf_plus_plus if run_card.leaderboard_chrf_plus_plus is not None
            else run_card.chrf_plus_plus)


def review_trigger(run_card: RunCard, policy: GatePolicy | None) -> ReviewTrigger:
    """Legacy-composite cards are ready for review from the Deployable composite (the start of the Deployable band of
    their pair, 0.70 by default; SPEC §5). standard/1 cards have no composite: they are ready from the corpus chrF++
    the organization chose (`policy`), and need a written reason while it chose none. Both read the scores the
    leaderboard shows, never a claim the card's predictions do not give."""
    if run_card.scoring_standard == STANDARD_1:
        chrf_value = shown_chrf(run_card)
        chrf = "—" if chrf_value is None else f"{chrf_value:.1f}"
        trigger = None if policy is None else policy.standard1_min_chrf
        if trigger is None:
            return ReviewTrigger(False, _(
                "This standard/1 card has corpus chrF++ %(chrf)s, and your organization has set no chrF++ from which "
                "such cards are ready for review: write why it should be reviewed, or set the trigger on the gate "
                "thresholds page.") % {"chrf": chrf})
        if chrf_value is not None and chrf_value >= trigger:
            return ReviewTrigger(True)
        return ReviewTrigger(False, _(
            "This standard/1 card has corpus chrF++ %(chrf)s, under your organization's trigger of %(trigger)s: "
            "write why it should be reviewed anyway.") % {"chrf": chrf, "trigger": f"{trigger:.1f}"})
    composite, deployable = shown_composite(run_card), deployable_composite(run_card)
    if composite is not None and composite >= deployable:
        return ReviewTrigger(True)
    threshold = f"{deployable:.2f}"
    if composite is None:
        return ReviewTrigger(False, _("This run card has no composite, under the Deployable threshold of "
                                      "%(threshold)s: write why it should be reviewed anyway.")
                             % {"threshold": threshold})
    return ReviewTrigger(False, _("This run card has composite %(composite)s, under the Deployable threshold of "
                                  "%(threshold)s: write why it should be reviewed anyway.")
                         % {"composite": f"{composite:.2f}", "threshold": threshold})


def transfer_eligible(run_card: RunCard) -> bool:
    """SPEC §5: on gold_standard and approved at the review gate (decision in force); a legacy-composite card also
    needs a Deployable composite (its pair's band). A standard/1 card has no composite: the community's approval
    decides."""
    if run_card.segment != "gold_standard":
        return False
    composite = shown_composite(run_card)
    if run_card.scoring_standard != STANDARD_1 and (composite is None or composite < deployable_composite(run_card)):
        return False
    latest = latest_decision(run_card)
    return latest is not None and latest.outcome == Decision.Outcome.APPROVE


def shown_item_texts(user, campaign: Campaign, item: Item, *, where: str) -> dict[str, str]:
    """`item_texts` as the rating page shows them, the audit event recorded in the same call when the item's
    entry is secret."""
    if item.entry.is_secret:
        record_secret_access(user, {campaign.organization_id: 1}, where)
    return item_texts(item, campaign.show_reference)


def item_texts(item: Item, show_reference: bool) -> dict[str, str]:
    """What a speaker sees of an item: the source, the candidate and, when the campaign says so, the
    reference (such campaigns have no control items: the reference would give them away)."""
    texts = {"source": item.entry.source, "candidate": item.candidate}
    if show_reference:
        texts["reference"] = item.entry.reference
    return texts


def ratings_withdrawn_since(decision: Decision) -> int:
    """Ratings the decision was taken on that their speakers withdrew after it (one aggregate)."""
    return RatingWithdrawal.objects.filter(campaign_id=decision.campaign_id, withdrawn_at__gt=decision.decided_at
                                           ).aggregate(n=Sum("counted"))["n"] or 0


# Credit: how each speaker is named on the lists that name speakers.


def credits_to_choose(user) -> list[Organization]:
    """The organizations a user may set their credit for: those they speak for now or have ever rated for."""
    if not user.is_authenticated:
        return []
    rated = Rating.objects.filter(speaker=user).values("assignment__campaign__organization_id")
    return list(Organization.objects.filter(Q(pk__in=org_ids_with_roles(user, [Role.SPEAKER])) | Q(pk__in=rated))
                .order_by("name"))


def credit_choices(user) -> dict[int, SpeakerCredit]:
    """The user's credit choice per organization id (no row: anonymous)."""
    return {credit.organization_id: credit for credit in SpeakerCredit.objects.filter(user=user)}


def credited_name(credit: SpeakerCredit | None, full_name: str) -> str | None:
    """The name a credit shows, or None for an anonymous speaker (also when they chose their name and have none)."""
    if credit is None or credit.choice == SpeakerCredit.Choice.ANONYMOUS:
        return None
    if credit.choice == SpeakerCredit.Choice.DISPLAY_NAME:
        return credit.display_name
    return full_name.strip() or None


def credited_names(organization_id: int, speaker_ids: Sequence[int]) -> dict[int, str | None]:
    """Each speaker's credited name with the organization, None for the anonymous (two queries)."""
    users = dict((pk, f"{first} {last}") for pk, first, last in get_user_model().objects.filter(
        pk__in=list(speaker_ids)).values_list("pk", "first_name", "last_name"))
    credits = {credit.user_id: credit for credit in SpeakerCredit.objects.filter(
        organization_id=organization_id, user_id__in=list(users))}
    return {pk: credited_name(credits.get(pk), full_name) for pk, full_name in users.items()}


def speaker_labels(organization: Organization, speaker_ids: Sequence[int]) -> dict[int, str]:
    """How each speaker appears on a list of the organization (the decision page, exports): the name they chose to
    be credited by, or "Anonymous speaker N" — N stable within the list, by account order."""
    names = credited_names(organization.pk, speaker_ids)
    labels: dict[int, str] = {}
    anonymous = 0
    for pk in sorted(names):
        name = names[pk]
        if name is None:
            anonymous += 1
            name = _("Anonymous speaker %(number)d") % {"number": anonymous}
        labels[pk] = name
    return labels


@dataclass(frozen=True)
class RatingSpeakers:
    """Who rated in a campaign (`rated`), and whose current ratings, other than "can't judge", count (`counting`,
    before any exclusion)."""

    rated: frozenset[int]
    counting: frozenset[int]


def rating_speakers(campaign: Campaign, summary: Sequence[SpeakerRatings] | None = None) -> RatingSpeakers:
    """Who rated, counted in `rating_summary`'s pass (`summary` when the caller has it already)."""
    summary = rating_summary(campaign) if summary is None else summary
    return RatingSpeakers(frozenset(row.speaker_id for row in summary),
                          frozenset(row.speaker_id for row in summary if row.counting))


def campaign_speaker_labels(campaign: Campaign, speakers: RatingSpeakers | None = None) -> dict[int, str]:
    """`speaker_labels` of everyone who was ever in the campaign's pool or rated in it."""
    rated = (speakers or rating_speakers(campaign)).rated
    ids = set(campaign.pool.values_list("user_id", flat=True)) | rated
    return speaker_labels(campaign.organization, sorted(ids))


@dataclass(frozen=True)
class ReviewCredits:
    """Who reviewed a card for the public: how many speakers, of which community, and the names of those who chose
    to be named."""

    organization: str
    speakers: int
    names: tuple[str, ...]

    @property
    def anonymous(self) -> int:
        return self.speakers - len(self.names)


def review_credits(run_card: RunCard) -> ReviewCredits | None:
    """`campaign_credits` of the campaign of the card's decision in force; None while the card was never decided."""
    decision = latest_decision(run_card)
    return None if decision is None else campaign_credits(decision.campaign)


def campaign_credits(campaign: Campaign, speakers: RatingSpeakers | None = None) -> ReviewCredits:
    """The speakers whose ratings count in the campaign (withdrawn ratings and speakers left out by governance
    staff do not), credited as each chose."""
    left_out = set(SpeakerExclusion.objects.filter(campaign=campaign, included_at__isnull=True)
                   .values_list("speaker_id", flat=True))
    speaker_ids = sorted((speakers or rating_speakers(campaign)).counting - left_out)
    names = sorted(name for name in credited_names(campaign.organization_id, speaker_ids).values() if name)
    return ReviewCredits(campaign.organization.name, len(speaker_ids), tuple(names))


# Pay: the speakers' working time, what it is owed and what was paid.


@dataclass(frozen=True)
class Rate:
    hourly_rate: Decimal | None
    currency: str
    source: str  # "campaign", "organization" or "" (none set)


def stored_pay_policy(organization: Organization) -> PayPolicy | None:
    return PayPolicy.objects.filter(organization=organization).first()


def campaign_rate(campaign: Campaign) -> Rate:
    return rate_in_force(campaign, PayPolicy.objects.filter(organization_id=campaign.organization_id).first())


def rate_in_force(campaign: Campaign | None, policy: PayPolicy | None) -> Rate:
    """The campaign's own hourly rate, else its organization's (`policy`), else none."""
    if campaign is not None and campaign.hourly_rate is not None:
        return Rate(campaign.hourly_rate, campaign.currency, "campaign")
    if policy is not None:
        return Rate(policy.hourly_rate, policy.currency, "organization")
    return Rate(None, "", "")


CENT = Decimal("0.01")


def amount_owed(seconds: float, rate: Rate) -> Decimal | None:
    if rate.hourly_rate is None:
        return None
    return (Decimal(str(round(seconds, 3))) * rate.hourly_rate / 3600).quantize(CENT, rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class PayFigures:
    """A speaker's time in a campaign and what it is owed and was paid."""

    ratings: int
    seconds: float
    owed: Decimal | None
    paid: Decimal

    @property
    def hours(self) -> float:
        return self.seconds / 3600

    @property
    def balance(self) -> Decimal | None:
        return None if self.owed is None else self.owed - self.paid


@dataclass(frozen=True)
class TimesheetRow(PayFigures):
    """One speaker's line of a campaign's timesheet: every rating they ever submitted counts (changed, undone or
    withdrawn alike: they are paid for their time whether or not their ratings are used)."""

    speaker_id: int
    email: str
    name: str
    untimed: int
    withdrawn: bool


def timesheet(campaign: Campaign, rate: Rate | None = None) -> list[TimesheetRow]:
    """Each speaker who rated in the campaign, with their time, amount owed and paid (three queries)."""
    rate = rate or campaign_rate(campaign)
    times = (Rating.objects.filter(assignment__campaign=campaign).order_by().values("speaker_id").annotate(
        ratings=Count("pk"), untimed=Count("pk", filter=Q(active_seconds__isnull=True)),
        seconds=Sum("active_seconds"), withdrawn=Count("pk", filter=Q(withdrawal__isnull=False))))
    paid = dict(Payment.objects.filter(campaign=campaign).order_by().values("speaker_id").annotate(
        total=Sum("amount")).values_list("speaker_id", "total"))
    rows = list(times)
    users = {pk: (email, f"{first} {last}".strip()) for pk, email, first, last in get_user_model().objects.filter(
        pk__in=[row["speaker_id"] for row in rows]).values_list("pk", "email", "first_name", "last_name")}
    return sorted((TimesheetRow(
        speaker_id=row["speaker_id"], email=users[row["speaker_id"]][0], name=users[row["speaker_id"]][1],
        ratings=row["ratings"], untimed=row["untimed"], seconds=row["seconds"] or 0.0,
        owed=amount_owed(row["seconds"] or 0.0, rate), paid=paid.get(row["speaker_id"]) or Decimal("0.00"),
        withdrawn=row["withdrawn"] == row["ratings"]) for row in rows), key=lambda row: row.email)


def payments_of(campaign: Campaign) -> QuerySet[Payment]:
    return campaign.payments.select_related("speaker", "recorded_by").order_by("recorded_at", "pk")


@dataclass(frozen=True)
class SpeakerCampaignPay(PayFigures):
    """A speaker's own line for one campaign on their page."""

    campaign: Campaign
    language_pair: str
    rate: Rate
    withdrawn_at: Any
    can_withdraw: bool


def speaker_pay(user) -> list[SpeakerCampaignPay]:
    """Every campaign the speaker rated in, newest first, with their hours, amount owed and paid, and whether their
    ratings are withdrawn: only their own (the queries filter on the user)."""
    times = {row["assignment__campaign_id"]: row for row in Rating.objects.filter(speaker=user).order_by()
             .values("assignment__campaign_id").annotate(
                 ratings=Count("pk"), seconds=Sum("active_seconds"),
                 kept=Count("pk", filter=Q(withdrawal__isnull=True)))}
    if not times:
        return []
    paid = dict(Payment.objects.filter(speaker=user, campaign_id__in=list(times)).order_by().values("campaign_id")
                .annotate(total=Sum("amount")).values_list("campaign_id", "total"))
    withdrawn = dict(RatingWithdrawal.objects.filter(speaker=user, campaign_id__in=list(times)).order_by()
                     .values("campaign_id").annotate(last=Max("withdrawn_at")).values_list("campaign_id", "last"))
    policies = {policy.organization_id: policy for policy in PayPolicy.objects.filter(
        organization__campaigns__pk__in=list(times)).distinct()}
    rows = []
    for campaign in (Campaign.objects.filter(pk__in=list(times)).select_related("organization")
                     .defer(*LARGE_CARD_FIELDS).select_related("run_card__dataset_version").order_by("-opened_at")):
        rate = rate_in_force(campaign, policies.get(campaign.organization_id))
        row = times[campaign.pk]
        seconds = row["seconds"] or 0.0
        rows.append(SpeakerCampaignPay(
            campaign=campaign, language_pair=campaign.run_card.dataset_version.language_pair,
            ratings=row["ratings"], seconds=seconds, rate=rate, owed=amount_owed(seconds, rate),
            paid=paid.get(campaign.pk) or Decimal("0.00"), withdrawn_at=withdrawn.get(campaign.pk),
            can_withdraw=row["kept"] > 0))
    return rows


def speaker_campaign_to_withdraw(user, public_id) -> Campaign | None:
    """A campaign where the user has ratings not yet withdrawn; None (404) otherwise, whoever else rated in it."""
    return (Campaign.objects.filter(public_id=public_id, assignments__ratings__speaker=user,
                                    assignments__ratings__withdrawal__isnull=True)
            .select_related("organization", "run_card__dataset_version").defer(*LARGE_CARD_FIELDS).distinct().first())


# Without a history of its own, an organization's estimates assume the stated default; this many measured ratings
# are enough for its own median to take over.
HISTORY_MINIMUM = 30
HISTORY_SAMPLE = 5000


@dataclass(frozen=True)
class CostEstimate:
    ratings: int
    seconds_per_rating: float
    from_history: bool
    history_ratings: int
    rate: Rate

    @property
    def hours(self) -> float:
        return self.ratings * self.seconds_per_rating / 3600

    @property
    def amount(self) -> Decimal | None:
        return amount_owed(self.ratings * self.seconds_per_rating, self.rate)


def estimated_cost(organization: Organization, ratings: int) -> CostEstimate:
    """What a campaign of this many ratings should cost the organization: ratings × the median measured seconds per
    rating of its last 5,000 timed ratings (once it has 30), else its stated default (45 s when it never set one)."""
    seconds = [value for value in Rating.objects.filter(assignment__campaign__organization=organization,
                                                        active_seconds__isnull=False)
               .order_by("-pk").values_list("active_seconds", flat=True)[:HISTORY_SAMPLE] if value is not None]
    policy = stored_pay_policy(organization)
    rate = rate_in_force(None, policy)
    if len(seconds) >= HISTORY_MINIMUM:
        return CostEstimate(ratings, float(median(seconds)), True, len(seconds), rate)
    default = policy.default_seconds_per_rating if policy else PayPolicy._meta.get_field(
        "default_seconds_per_rating").default
    return CostEstimate(ratings, float(default), False, len(seconds), rate)


def withdrawals_of(campaign: Campaign) -> list[RatingWithdrawal]:
    return list(RatingWithdrawal.objects.filter(campaign=campaign).order_by("withdrawn_at", "pk"))


WithdrawalNotice = tuple[RatingWithdrawal, Decision | None, str, list[tuple[str, str]]]


def withdrawal_notice(withdrawal_pk: int) -> WithdrawalNotice | None:
    """What the withdrawal e-mail needs: the withdrawal, the campaign's decision in force when it was taken after
    that decision (else None), the speaker as credited, and the governance staff's addresses and languages."""
    withdrawal = (RatingWithdrawal.objects.select_related("campaign__organization").filter(pk=withdrawal_pk).first())
    if withdrawal is None:
        return None
    campaign = withdrawal.campaign
    decision = campaign.decisions.filter(decided_at__lt=withdrawal.withdrawn_at).first()
    speaker = campaign_speaker_labels(campaign)[withdrawal.speaker_id]
    recipients = list(get_user_model().objects.filter(
        memberships__organization=campaign.organization, memberships__role=Role.GOVERNANCE, is_active=True)
        .distinct().order_by("email").values_list("email", "interface_language"))
    return withdrawal, decision, speaker, recipients
