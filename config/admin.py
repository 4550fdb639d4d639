"""The admin's one read-only base: records that change only through services (which check roles and
write the audit log) are shown to maintainers and never added, edited or deleted there."""

from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
