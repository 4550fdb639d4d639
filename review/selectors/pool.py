"""Who may be in a campaign's pool, and who is in it."""

from collections.abc import Sequence

from django.db.models import (
    Count,
    Q,
)
from django.utils.translation import gettext as _

from corpus.language_pairs import split_pair
from leaderboard.models import RunCard
from leaderboard.selectors import conflicts_of
from organizations.models import Organization, Role
from organizations.selectors import holding_role, members_with_role, org_ids_with_roles
from speakers.selectors import Requirement, practice_problems, qualification_problems

from ..models import (
    Assignment,
    Campaign,
)


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
    speakers = members_with_role(organization, Role.SPEAKER).values_list("user_id", flat=True)
    return pool_refusals(run_card, organization, list(speakers), variety)


def speaking_in(user, campaign_path: str = "") -> Q:
    """Campaigns (reached through `campaign_path`) in whose pool `user` is, not having left, while still a
    speaker of the campaign's organization: the one rule for who reaches a campaign's items as a rater
    (`in_pool` and `speaks_for` are its two halves, for the hot path that checks the second in memory)."""
    prefix = f"{campaign_path}__" if campaign_path else ""
    return in_pool(user, campaign_path) & holding_role(user, Role.SPEAKER, f"{prefix}organization")


def in_pool(user, campaign_path: str = "") -> Q:
    prefix = f"{campaign_path}__" if campaign_path else ""
    return Q(**{f"{prefix}pool__user": user, f"{prefix}pool__left_at__isnull": True})


def speaks_for(user, organization_id: int) -> bool:
    """The membership half of `speaking_in`, from the request's remembered memberships (no query)."""
    return organization_id in org_ids_with_roles(user, [Role.SPEAKER])


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
