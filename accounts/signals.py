"""Personal API tokens never outlive the credentials they were made under."""

from allauth.mfa.models import Authenticator
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from .models import User
from .services import revoke_all_api_tokens


@receiver(post_save, sender=User, dispatch_uid="accounts.password_change_revokes_tokens")
def password_change_revokes_tokens(sender, instance: User, created: bool, **kwargs) -> None:
    """A saved password that was set since the last save (`set_password` keeps the raw one until then),
    by any path: change, reset, the admin, a command."""
    if not created and getattr(instance, "_password", None) is not None:
        revoke_all_api_tokens(instance.pk, "password changed")


@receiver(post_delete, sender=Authenticator, dispatch_uid="accounts.second_factor_removal_revokes_tokens")
def second_factor_removal_revokes_tokens(sender, instance: Authenticator, **kwargs) -> None:
    if instance.type == Authenticator.Type.TOTP:
        revoke_all_api_tokens(instance.user_id, "two-factor authentication deactivated")
