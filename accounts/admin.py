from allauth.mfa.admin import AuthenticatorAdmin as AllauthAuthenticatorAdmin
from allauth.mfa.models import Authenticator
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from common.admin import ReadOnlyAdmin, SafeAdmin

from .models import ApiToken, User


@admin.register(User)
class UserAdmin(SafeAdmin, BaseUserAdmin):
    ordering = ["email"]
    list_display = ["email", "is_staff", "is_active", "date_joined"]
    list_filter = ["is_staff", "is_superuser", "is_active"]
    search_fields = ["email"]
    fieldsets = [
        (None, {"fields": ["email", "password"]}),
        ("Name", {"fields": ["first_name", "last_name"]}),
        ("Permissions", {"fields": ["is_active", "is_staff", "is_superuser", "groups", "user_permissions"]}),
        ("Dates", {"fields": ["last_login", "date_joined"]}),
    ]
    add_fieldsets = [(None, {"classes": ["wide"], "fields": ["email", "password1", "password2"]})]

    def has_delete_permission(self, request, obj=None):
        """Accounts are deactivated, not deleted: their ratings and audit events stay."""
        return False


@admin.register(ApiToken)
class ApiTokenAdmin(ReadOnlyAdmin):
    """Tokens are created by their owners only; a maintainer sees which exist (never a key)."""

    list_display = ["prefix", "user", "name", "scope", "created_at", "expires_at", "revoked_at"]
    list_filter = ["scope"]
    search_fields = ["user__email", "prefix"]
    exclude = ["key_hash"]


admin.site.unregister(Authenticator)


@admin.register(Authenticator)
class AuthenticatorAdmin(SafeAdmin):
    """Which authenticators exist and when they were used, never their secrets (stored encrypted anyway:
    accounts.mfa_adapter). A maintainer may delete one for a user who lost their phone; that revokes the
    user's API tokens and their sessions prove nothing any more."""

    list_display = AllauthAuthenticatorAdmin.list_display
    list_filter = ["type"]
    search_fields = ["user__email"]
    fields = readonly_fields = ["user", "type", "created_at", "last_used_at"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
