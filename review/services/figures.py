"""A campaign's stored headline figures, refreshed by a task when what counts changes or a page finds them stale."""

from collections.abc import Sequence
from functools import partial

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from ..gate import evaluate_gate
from ..models import (
    Campaign,
)


def refresh_summary(campaign_pk: int) -> Campaign:
    """Store the campaign's headline figures for list pages and the dashboard."""
    from ..selectors.decisions import gate_policy_for
    from ..selectors.figures import campaign_aggregate

    campaign = Campaign.objects.select_related("organization").get(pk=campaign_pk)
    aggregate = campaign_aggregate(campaign)
    result = evaluate_gate(aggregate, gate_policy_for(campaign.organization))
    overall = aggregate.campaign
    campaign.summary = {
        "coverage": overall.coverage, "rated_items": overall.rated_items, "items": overall.items,
        "usable_share": overall.estimate, "wilson_low": overall.interval_low, "wilson_high": overall.interval_high,
        "alpha": aggregate.alpha, "gate": result.outcome,
    }
    campaign.summary_at = timezone.now()
    Campaign.objects.filter(pk=campaign.pk).update(summary=campaign.summary, summary_at=campaign.summary_at)
    return campaign


# Celery beat refreshes the stored figures of open campaigns every five minutes; without beat (`make run`) nothing
# would, so the pages that show them (the governance dashboard, the list of campaigns) ask for the figures when none
# are stored or ratings arrived after they were: at most once a minute per campaign, and for a few campaigns per
# view, so that a view never recomputes much.
FIGURES_REQUEST_SECONDS = 60
FIGURES_REQUESTED_PER_VIEW = 3


def request_fresh_figures(campaigns: Sequence[Campaign]) -> None:
    """Ask for the figures of the campaigns whose stored ones are stale (`refresh_campaign_summary_task`, after the
    current transaction commits), the oldest first, at most FIGURES_REQUESTED_PER_VIEW, and give those campaigns
    the figures stored by then. With a worker they arrive for a later view; with no broker (a laptop's `make run`,
    no Celery beat either) the task runs in-process, so this view shows them already. The cache remembers each
    request for FIGURES_REQUEST_SECONDS: views meanwhile neither ask again nor recompute."""
    from ..selectors.campaigns import figures_stale

    stale = sorted((campaign for campaign in campaigns if figures_stale(campaign)),
                   key=lambda campaign: (campaign.summary_at is not None, campaign.summary_at or 0))
    requested = [campaign.pk for campaign in stale[:FIGURES_REQUESTED_PER_VIEW]
                 if cache.add(f"campaign-figures-requested:{campaign.pk}", True, FIGURES_REQUEST_SECONDS)]
    if not requested:
        return
    from ..tasks import refresh_campaign_summary_task

    for pk in requested:
        transaction.on_commit(partial(refresh_campaign_summary_task.delay, pk), robust=True)
    stored = {pk: (summary, summary_at) for pk, summary, summary_at in
              Campaign.objects.filter(pk__in=requested).values_list("pk", "summary", "summary_at")}
    for campaign in campaigns:
        if campaign.pk in stored:
            campaign.summary, campaign.summary_at = stored[campaign.pk]


def refresh_summary_after_commit(campaign: Campaign) -> None:
    """The campaigns list's figures follow a change of what counts (not only new ratings)."""
    from ..tasks import refresh_campaign_summary_task

    transaction.on_commit(lambda: refresh_campaign_summary_task.delay(campaign.pk), robust=True)
