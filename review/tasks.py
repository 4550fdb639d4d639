"""Background work of review campaigns; each task only calls services and is safe to run twice."""

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail, send_mass_mail
from django.template.loader import render_to_string
from django.urls import reverse

from . import services
from .models import Campaign


def site_url(path: str) -> str:
    return f"{settings.SITE_BASE_URL.rstrip('/')}{path}"


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def prepare_campaign_task(campaign_pk: int) -> None:
    """Sample and assign a large campaign after the request that opened it returned."""
    services.prepare_campaign(campaign_pk)


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_campaign_invitations_task(campaign_pk: int) -> int:
    """E-mail each pool speaker once that items wait for them (never the method: reviews are blind)."""
    campaign = Campaign.objects.select_related("organization").get(pk=campaign_pk)
    context = {"campaign": campaign, "link": site_url(reverse("review:queue"))}
    subject = f"{settings.ACCOUNT_EMAIL_SUBJECT_PREFIX}Translations to review for {campaign.organization.name}"
    body = render_to_string("review/invitation_email.txt", context)
    sent = 0
    for member in services.uninvited_members(campaign_pk):
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [member.user.email])
        services.mark_invited(member)
        sent += 1
    return sent


@shared_task(acks_late=True)
def send_deadline_reminders_task() -> int:
    """Run by Celery beat: one reminder per campaign, a day before its deadline, to speakers with items left."""
    def send(campaign: Campaign, addresses: list[str]) -> int:
        context = {"campaign": campaign, "link": site_url(reverse("review:queue"))}
        subject = f"{settings.ACCOUNT_EMAIL_SUBJECT_PREFIX}Reminder: reviews due {campaign.deadline:%Y-%m-%d %H:%M}"
        body = render_to_string("review/reminder_email.txt", context)
        return send_mass_mail([(subject, body, settings.DEFAULT_FROM_EMAIL, [a]) for a in addresses])

    return sum(services.send_reminder(campaign_pk, send) for campaign_pk in services.due_reminders())


@shared_task(acks_late=True)
def refresh_campaign_summary_task(campaign_pk: int) -> None:
    services.refresh_summary(campaign_pk)


@shared_task(acks_late=True)
def refresh_open_campaign_summaries_task() -> int:
    """Run by Celery beat: keep the headline figures of running campaigns fresh for list pages."""
    pks = list(Campaign.objects.filter(status=Campaign.Status.OPEN).values_list("pk", flat=True))
    for pk in pks:
        services.refresh_summary(pk)
    return len(pks)
