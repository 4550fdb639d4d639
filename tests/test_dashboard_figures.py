"""The governance dashboard's campaign figures appear without Celery beat: a view that finds none stored, or
ratings newer than the stored ones, asks for them (`refresh_campaign_summary_task` after commit; in-process with
no broker), once a minute per campaign at most."""

import pytest
from django.core.cache import cache

from review import services as review_services
from review.models import Assignment, Campaign
from review.selectors import figures_stale

from .review_setup import gold_card, rate_everything, settings_for, speakers, submit

DASHBOARD = "/orgs/steward/dashboard/"


@pytest.fixture
def campaign(steward, governance_user):
    card = gold_card(steward, governance_user, count=12)
    return review_services.open_campaign(run_card=card, actor=governance_user,
                                         values=settings_for(speakers(steward, 2), title="Clinic phrases",
                                                             sample_size=4, ratings_per_item=1))


def campaign_row(response):
    (row,) = response.context["board"].campaigns
    return row


@pytest.mark.django_db(transaction=True)
def test_figures_appear_on_the_view_that_finds_them_missing(client, campaign, governance_user, eager_tasks):
    """No beat, no broker: the task runs in-process right away, so the first view already shows the figures."""
    rate_everything(campaign)
    assert Campaign.objects.get(pk=campaign.pk).summary_at is None
    client.force_login(governance_user)
    response = client.get(DASHBOARD)
    row = campaign_row(response)
    assert (row.covered_items, row.item_count, row.fully_covered) == (4, 4, True)
    assert "4 of 4 items fully rated" in response.content.decode()
    assert Campaign.objects.get(pk=campaign.pk).summary["items"] == 4


@pytest.mark.django_db
def test_stale_figures_are_asked_for_once_then_shown(client, campaign, governance_user, eager_tasks,
                                                      django_capture_on_commit_callbacks):
    client.force_login(governance_user)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        assert campaign_row(client.get(DASHBOARD)).item_count == 0  # none stored yet: asked for
    assert len(callbacks) == 1
    with django_capture_on_commit_callbacks() as callbacks:
        row = campaign_row(client.get(DASHBOARD))
    assert callbacks == [] and (row.covered_items, row.item_count, row.gate_label) == (0, 4, "Insufficient evidence")

    rate_everything(campaign)
    assert figures_stale(campaign_row(client.get(DASHBOARD)).campaign)
    cache.delete(f"campaign-figures-requested:{campaign.pk}")  # a minute later
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        client.get(DASHBOARD)
    assert len(callbacks) == 1
    with django_capture_on_commit_callbacks() as callbacks:
        row = campaign_row(client.get(DASHBOARD))
    assert callbacks == [] and (row.covered_items, row.item_count) == (4, 4)

    assignment = Assignment.objects.filter(campaign=campaign).first()
    submit(assignment, "excellent")  # a changed rating, after the figures were stored
    assert figures_stale(campaign_row(client.get(DASHBOARD)).campaign)
    with django_capture_on_commit_callbacks() as callbacks:
        client.get(DASHBOARD)
    assert callbacks == [], "asked for less than a minute ago: not again"
    cache.delete(f"campaign-figures-requested:{campaign.pk}")  # a minute later
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        client.get(DASHBOARD)
    assert len(callbacks) == 1
    assert not figures_stale(campaign_row(client.get(DASHBOARD)).campaign)


@pytest.mark.django_db
def test_a_view_asks_for_a_few_campaigns_at_most(client, steward, governance_user, eager_tasks,
                                                 django_capture_on_commit_callbacks):
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 2)
    for number in range(review_services.FIGURES_REQUESTED_PER_VIEW + 2):
        opened = review_services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
            pool, title=f"Campaign {number}", sample_size=2, ratings_per_item=1))
        rate_everything(opened)
    client.force_login(governance_user)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        client.get(DASHBOARD)
    assert len(callbacks) == review_services.FIGURES_REQUESTED_PER_VIEW
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        client.get(DASHBOARD)
    assert len(callbacks) == 2
    with django_capture_on_commit_callbacks() as callbacks:
        board = client.get(DASHBOARD).context["board"]
    assert callbacks == [] and all(row.item_count == 2 for row in board.campaigns)


@pytest.mark.django_db
def test_the_campaigns_list_says_figures_are_being_computed_rather_than_a_dash(client, steward, governance_user):
    """A view asks for a few campaigns' figures at a time, which a worker computes after the page is drawn: a
    campaign with ratings and no figures yet says so, and a dash means no figure can exist yet."""
    card = gold_card(steward, governance_user, count=12)
    pool = speakers(steward, 2)
    rated = []
    for number in range(review_services.FIGURES_REQUESTED_PER_VIEW + 1):
        opened = review_services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
            pool, title=f"Campaign {number}", sample_size=2, ratings_per_item=1))
        rate_everything(opened)
        rated.append(opened)
    unrated = review_services.open_campaign(run_card=card, actor=governance_user, values=settings_for(
        pool, title="Not rated yet", sample_size=2, ratings_per_item=1))
    Campaign.objects.update(summary={}, summary_at=None)
    client.force_login(governance_user)
    page = client.get("/review/campaigns/").content.decode()
    rows = {row.split("</a>")[0].rsplit(">", 1)[-1]: row for row in page.split("<tr>")[2:]}
    for campaign in rated:
        assert 'class="muted figures-pending">being computed<' in rows[campaign.title]
        assert '<td data-label="Coverage">—</td>' not in rows[campaign.title]
    assert '<td data-label="Coverage">—</td>' in rows[unrated.title] and "being computed" not in rows[unrated.title]
    assert "appear when you reload the page" in page
