"""The admin's bases. Site staff (maintainers) must never read a community's secret text through the admin,
not even by guessing: a changelist answers any field lookup given in its URL (`?raw__contains=…`,
`?source__regex=…`) by which rows it lists, so every admin here accepts only the lookups its own list
filters generate, on the fields it names, and searches only identifiers."""

from django.contrib import admin
from django.db import models

# The lookups Django's list filters put in the URL after a filtered field's path: exact choices, foreign keys,
# booleans, empty or not, and (date fields only) ranges. Nothing that matches text by parts.
FILTER_LOOKUPS = frozenset({"exact", "isnull", "id", "pk"})
DATE_RANGE_LOOKUPS = frozenset({"gte", "lt", "day", "month", "year"})


class SafeAdmin(admin.ModelAdmin):
    """Filters only on the `list_filter` field paths (and `date_hierarchy`), with the list filters' own
    lookups; every other lookup in a changelist URL answers 400 (DisallowedModelAdminLookup)."""

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        paths = {item if isinstance(item, str) else item[0] for item in self.list_filter
                 if isinstance(item, (str, list, tuple))}
        if self.date_hierarchy:
            paths.add(self.date_hierarchy)
        parts = lookup.split("__")
        for length in range(len(parts), 0, -1):
            path, rest = "__".join(parts[:length]), set(parts[length:])
            if path in paths:
                allowed = FILTER_LOOKUPS | (DATE_RANGE_LOOKUPS if self._is_date(path) else frozenset())
                return rest <= allowed and super().lookup_allowed(lookup, value, request)
        return False

    def _is_date(self, path: str) -> bool:
        model = self.model
        *relations, name = path.split("__")
        for relation in relations:
            model = model._meta.get_field(relation).related_model
        return isinstance(model._meta.get_field(name), models.DateField)


class ReadOnlyAdmin(SafeAdmin):
    """Records that change only through services (which check roles and write the audit log) are shown to
    maintainers and never added, edited or deleted here."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
