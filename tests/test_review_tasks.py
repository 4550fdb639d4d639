"""A large campaign is sampled and assigned by a Celery task on a real worker (Redis in CI) after the
request that opened it has returned; the speakers' invitation e-mails follow from another task."""

import pytest

from review import services
from review.models import Assignment, Campaign
from review.services import campaigns as campaign_services

from .review_setup import MODEL_SLUG, gold_card, settings_for, speakers
from .test_tasks import BROKER, task_delivery  # noqa: F401 - fixture


@pytest.mark.django_db(transaction=BROKER)
def test_a_large_campaign_is_prepared_by_a_task_once_and_its_speakers_emailed(
        steward, governance_user, task_delivery, monkeypatch):  # noqa: F811
    monkeypatch.setattr(campaign_services, "INLINE_ASSIGNMENT_LIMIT", 10)
    card = gold_card(steward, governance_user, count=30)
    pool = speakers(steward, 3)
    # Without a broker the eager chain runs at once: preparing enqueues the invitations on commit too.
    with task_delivery.deferred(tasks=1 if BROKER else 2):
        campaign = services.open_campaign(
            run_card=card,
            actor=governance_user,
            values=settings_for(pool, sample_size=20),
        )
        assert campaign.status == Campaign.Status.PREPARING and not campaign.items.exists()

    addresses = {speaker.email for speaker in pool}
    sent = task_delivery.wait_for_mail(lambda message: message.to[0] in addresses, count=len(addresses))
    assert sorted(message.to[0] for message in sent) == sorted(addresses)
    assert all(MODEL_SLUG not in message.body for message in sent), "reviews are blind, e-mails too"
    campaign.refresh_from_db()
    assert campaign.status == Campaign.Status.OPEN
    assert campaign.items.count() == 20
    assert Assignment.objects.filter(campaign=campaign).count() == 60
    services.prepare_campaign(campaign.pk)
    assert Assignment.objects.filter(campaign=campaign).count() == 60, "running the task again assigns nothing"
