"""Background work of review campaigns; each task only calls services and is safe to run twice."""

from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail, send_mass_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from . import planning
from .gate import OUTCOME_LABELS
from .models import Campaign
from .selectors import decisions as decisions_selectors
from .selectors import speaker_rights as speaker_rights_selectors
from .services.campaigns import due_reminders, mark_invited, prepare_campaign, send_reminder, uninvited_members
from .services.figures import refresh_summary

# As the review pages show a deadline: with its time zone ("3 Dec 2026, 17:00 UTC").
DEADLINE_FORMAT = "j M Y, H:i T"


def site_url(path: str) -> str:
    return f"{settings.SITE_BASE_URL.rstrip('/')}{path}"


def in_language(language: str):
    """The recipient's interface language for their e-mail; '' (never chosen) is the site's default."""
    return translation.override(language or settings.LANGUAGE_CODE)


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def prepare_campaign_task(campaign_pk: int) -> None:
    """Sample and assign a large campaign after the request that opened it returned."""
    prepare_campaign(campaign_pk)


@shared_task(acks_late=True)
def plan_campaign_task(arguments: dict) -> None:
    """Simulate a campaign plan for the form (seconds of work, never in a web request) and keep it in the cache;
    ``arguments`` holds the design and the thresholds as ``planning.requested_plan`` enqueued them."""
    planning.store_plan(arguments["design"], arguments["policy"])


def invitation(campaign: Campaign, language: str) -> tuple[str, str]:
    """The invitation's subject and body in one language."""
    with in_language(language):
        context = {"campaign": campaign, "link": site_url(reverse("review:queue"))}
        subject = _("Translations to review for %(organization)s") % {"organization": campaign.organization.name}
        return settings.ACCOUNT_EMAIL_SUBJECT_PREFIX + subject, render_to_string("review/invitation_email.txt", context)


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_campaign_invitations_task(campaign_pk: int) -> int:
    """E-mail each pool speaker once that items wait for them (never the method: reviews are blind), in their
    interface language."""
    campaign = Campaign.objects.select_related("organization").get(pk=campaign_pk)
    messages: dict[str, tuple[str, str]] = {}
    sent = 0
    for member in uninvited_members(campaign_pk):
        language = member.user.interface_language
        if language not in messages:
            messages[language] = invitation(campaign, language)
        subject, body = messages[language]
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [member.user.email])
        mark_invited(member)
        sent += 1
    return sent


def reminder(campaign: Campaign, language: str) -> tuple[str, str]:
    """The deadline reminder's subject and body in one language."""
    with in_language(language):
        context = {"campaign": campaign, "link": site_url(reverse("review:queue"))}
        deadline = date_format(timezone.localtime(campaign.deadline), DEADLINE_FORMAT)
        subject = _("Reminder: reviews due %(deadline)s") % {"deadline": deadline}
        return settings.ACCOUNT_EMAIL_SUBJECT_PREFIX + subject, render_to_string("review/reminder_email.txt", context)


@shared_task(acks_late=True)
def send_deadline_reminders_task() -> int:
    """Run by Celery beat: one reminder per campaign, a day before its deadline, to speakers with items left,
    each in their interface language."""
    def send(campaign: Campaign, recipients: list[tuple[str, str]]) -> int:
        messages = {language: reminder(campaign, language) for language in {pair[1] for pair in recipients}}
        return send_mass_mail([(*messages[language], settings.DEFAULT_FROM_EMAIL, [address])
                               for address, language in recipients])

    return sum(send_reminder(campaign_pk, send) for campaign_pk in due_reminders())


@shared_task(acks_late=True)
def refresh_campaign_summary_task(campaign_pk: int) -> None:
    refresh_summary(campaign_pk)


@shared_task(acks_late=True)
def refresh_open_campaign_summaries_task() -> int:
    """Run by Celery beat: keep the headline figures of running campaigns fresh for list pages."""
    pks = list(Campaign.objects.filter(status=Campaign.Status.OPEN).values_list("pk", flat=True))
    for pk in pks:
        refresh_summary(pk)
    return len(pks)


def decision_notice(decision, aggregate, language: str) -> tuple[str, str]:
    """The decision notice's subject and body in one language."""
    with in_language(language):
        run_card = decision.campaign.run_card
        approved = decision.outcome == decision.Outcome.APPROVE
        context = {
            "decision": decision, "approved": approved, "run_card": run_card, "aggregate": aggregate.campaign,
            "distinct_speakers": aggregate.distinct_speakers, "organization": decision.campaign.organization,
            "recommendation": OUTCOME_LABELS.get(decision.recommendation.get("outcome"), ""),
            "link": site_url(reverse("leaderboard:card", args=[run_card.public_id])),
        }
        outcome = _("approved") if approved else _("not approved")
        subject = _("Community review of your run card: %(outcome)s") % {"outcome": outcome}
        return settings.ACCOUNT_EMAIL_SUBJECT_PREFIX + subject, render_to_string("review/decision_email.txt", context)


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_decision_notice_task(decision_pk: int) -> bool:
    """Tell the card's submitter the community's decision in their interface language: the outcome and the
    campaign's aggregates, never an item nor the rationale (governance staff's own words stay with them)."""
    notice = decisions_selectors.decision_notice(decision_pk)
    if notice is None:
        return False
    decision, aggregate = notice
    developer = decision.campaign.run_card.submitted_by
    subject, body = decision_notice(decision, aggregate, developer.interface_language)
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [developer.email])
    return True


def withdrawal_notice(withdrawal, decision, speaker: str, language: str) -> tuple[str, str]:
    """The withdrawal notice's subject and body in one language."""
    with in_language(language):
        campaign = withdrawal.campaign
        context = {"withdrawal": withdrawal, "campaign": campaign, "decision": decision,
                   "speaker": speaker, "closed": campaign.status == Campaign.Status.CLOSED,
                   "link": site_url(reverse("review:decision", args=[campaign.public_id]))}
        # One line, whatever the title holds: a line break in a subject stops the whole message.
        subject = _("A speaker withdrew their ratings: %(campaign)s") % {"campaign": " ".join(campaign.title.split())}
        return (settings.ACCOUNT_EMAIL_SUBJECT_PREFIX + subject,
                render_to_string("review/withdrawal_email.txt", context))


@shared_task(acks_late=True, autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_withdrawal_notice_task(withdrawal_pk: int) -> int:
    """Tell the organization's governance staff that a speaker withdrew their ratings of a campaign, how many, and
    whether a decision in force was taken on them; each in their interface language. The speaker is named as they
    chose to be credited."""
    notice = speaker_rights_selectors.withdrawal_notice(withdrawal_pk)
    if notice is None:
        return 0
    withdrawal, decision, speaker, recipients = notice
    messages = {language: withdrawal_notice(withdrawal, decision, speaker, language)
                for language in {language for _address, language in recipients}}
    return send_mass_mail([(*messages[language], settings.DEFAULT_FROM_EMAIL, [address])
                           for address, language in recipients])
