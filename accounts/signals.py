"""Personal API tokens never outlive the credentials they were made under, and an account's second factor
goes away whole."""

from allauth.mfa.models import Authenticator
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from .models import User
from .services import revoke_all_api_tokens

PASSWORD_CHANGED = "_password_changed"


@receiver(pre_save, sender=User, dispatch_uid="accounts.notice_password_change")
def notice_password_change(sender, instance: User, update_fields=None, **kwargs) -> None:
    """Compare the stored password hash with the one being saved, whatever changed it through `set_password`
    or `set_unusable_password`: a change or a reset page, the admin (a new password, or password sign-in
    disabled), a command. Django re-hashing the same password at sign-in (a new hasher) is no change."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = User.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    new_secret = getattr(instance, "_password", None) is not None or not instance.has_usable_password()
    setattr(instance, PASSWORD_CHANGED, stored is not None and stored != instance.password and new_secret)


@receiver(post_save, sender=User, dispatch_uid="accounts.password_change_revokes_tokens")
def password_change_revokes_tokens(sender, instance: User, created: bool, **kwargs) -> None:
    if not created and getattr(instance, PASSWORD_CHANGED, False):
        revoke_all_api_tokens(instance.pk, "password changed")
        setattr(instance, PASSWORD_CHANGED, False)


@receiver(post_delete, sender=Authenticator, dispatch_uid="accounts.second_factor_removal_revokes_tokens")
def second_factor_removal_revokes_tokens(sender, instance: Authenticator, **kwargs) -> None:
    """Removing the TOTP authenticator (the user's own page or a maintainer in the admin) revokes the tokens and
    the recovery codes that came with it, so nothing made under the old factor proves anything later."""
    if instance.type == Authenticator.Type.TOTP:
        revoke_all_api_tokens(instance.user_id, "two-factor authentication deactivated")
        Authenticator.objects.filter(user_id=instance.user_id, type=Authenticator.Type.RECOVERY_CODES).delete()
