from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.models import User

from .audit import seal_secret_views
from .models import Invitation


def email_language(invitation: Invitation, sender_language: str) -> str:
    """The invited person's own interface language when they already have an account, else the inviter's. Only
    languages shipped with a catalog qualify: a community language's strings live in the database, above this
    layer."""
    recipient_language = User.objects.filter(email__iexact=invitation.email).values_list(
        "interface_language", flat=True).first()
    for code in (recipient_language, sender_language):
        if code:
            try:
                return translation.get_supported_language_variant(code)
            except LookupError:
                continue
    return settings.LANGUAGE_CODE


# The name it was registered under before organizations had an app of its own: messages queued (or retrying)
# across a deploy still find it.
@shared_task(name="governance.tasks.send_invitation_email", autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_invitation_email(invitation_id: int, base_url: str = "", language: str = "") -> None:
    """Send the sign-up link of an invitation; retried when the mail server is unreachable. `language` is the
    inviter's, used when the invited address has no account with a language of its own."""
    invitation = Invitation.objects.select_related("organization", "invited_by").get(pk=invitation_id)
    base = base_url or getattr(settings, "SITE_BASE_URL", "http://localhost:8000")
    context = {"invitation": invitation, "link": f"{base.rstrip('/')}/invitations/{invitation.token}/"}
    with translation.override(email_language(invitation, language)):
        subject = _("Invitation from %(organization)s") % {"organization": invitation.organization.name}
        message = render_to_string("organizations/invitation_email.txt", context)
    send_mail(
        subject=f"{settings.ACCOUNT_EMAIL_SUBJECT_PREFIX}{subject}",
        message=message,
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[invitation.email],
    )


@shared_task
def seal_secret_views_task() -> int:
    """Chain the secret views recorded since the last run into the audit log (beat: every few seconds)."""
    return seal_secret_views()

