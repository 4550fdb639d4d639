from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string

from .models import Invitation


# The name it was registered under before organizations had an app of its own: messages queued (or retrying)
# across a deploy still find it.
@shared_task(name="governance.tasks.send_invitation_email", autoretry_for=(OSError,), retry_backoff=True, max_retries=5)
def send_invitation_email(invitation_id: int, base_url: str = "") -> None:
    """Send the sign-up link of an invitation; retried when the mail server is unreachable."""
    invitation = Invitation.objects.select_related("organization").get(pk=invitation_id)
    base = base_url or getattr(settings, "SITE_BASE_URL", "http://localhost:8000")
    context = {"invitation": invitation, "link": f"{base.rstrip('/')}/invitations/{invitation.token}/"}
    send_mail(
        subject=f"{settings.ACCOUNT_EMAIL_SUBJECT_PREFIX}Invitation from {invitation.organization.name}",
        message=render_to_string("organizations/invitation_email.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        recipient_list=[invitation.email],
    )
