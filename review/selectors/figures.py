"""A campaign's evidence: its observations, the aggregate the gate reads, and the ratings behind it."""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.core.cache import cache
from django.core.paginator import Page, Paginator
from django.db.models import (
    Count,
    Max,
    Q,
    QuerySet,
)

from organizations.audit import record_secret_access

from ..aggregation import CampaignAggregate, ItemObservations, Observation, aggregate
from ..models import (
    FLAG_FIELDS,
    Campaign,
    Rating,
    SpeakerExclusion,
)


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


def items_needing_attention(campaign: Campaign) -> QuerySet[Rating]:
    """Current ratings that carry a flag, a comment or a correction, with the item's texts: what the
    decision page lists for governance staff (callers have checked the reader is one)."""
    return (Rating.objects.filter(noted_ratings(), assignment__campaign=campaign, is_current=True)
            .select_related("assignment__item__entry", "assignment__item__result", "speaker")
            .order_by("assignment__item_id", "created_at"))


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
