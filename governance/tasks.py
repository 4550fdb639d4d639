from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import User

from . import selectors, services
from .models import Decision, DecisionState


def _language_of(user: User) -> str:
    """The signer's interface language when it has a catalog, else the site's."""
    if user.interface_language:
        try:
            return translation.get_supported_language_variant(user.interface_language)
        except LookupError:
            pass
    return settings.LANGUAGE_CODE


@shared_task(autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def notify_signers(decision_id: int, event: str = "opened") -> int:
    """E-mail each member who may sign the decision and has not signed its current revision: a new decision, or
    one whose payload changed (their earlier signature is stale). Returns how many were written to."""
    decision = Decision.objects.select_related("organization", "proposer").get(pk=decision_id)
    if decision.state != DecisionState.OPEN:
        return 0
    signed = set(decision.signatures.filter(revision=decision.revision).values_list("signer_id", flat=True))
    ids = selectors.eligible_ids(decision.organization, decision.kind, decision.payload, decision.proposer_id) - signed
    base = getattr(settings, "SITE_BASE_URL", "http://localhost:8000").rstrip("/")
    sent = 0
    for user in User.objects.filter(pk__in=ids, is_active=True).order_by("pk"):
        with translation.override(_language_of(user)):
            subject = (_("Your signature is asked: %(summary)s") if event == "opened" else
                       _("A decision you may sign changed: %(summary)s")) % {"summary": decision.shown_summary}
            message = render_to_string("governance/decision_email.txt", {
                "decision": decision, "event": event, "link": f"{base}/decisions/{decision.public_id}/"})
        send_mail(subject, message, None, [user.email])
        sent += 1
    return sent


@shared_task
def settle_due_decisions() -> dict[str, int]:
    """Execute the decisions whose least open time has passed with k approvals, expire the outdated (beat)."""
    return services.settle_due()
