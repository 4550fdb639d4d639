"""The admin's bases. Site staff (maintainers) must never read a community's secret text through the admin,
not even by guessing: a changelist answers any field lookup given in its URL (`?raw__contains=…`,
`?source__regex=…`) by which rows it lists, so every admin here accepts only the lookups its own list
filters generate, on the fields it names, and searches only identifiers."""

from django.contrib import admin

# The lookups Django's list filters put in the URL: exact choices, foreign keys, booleans, empty or not,
# and date ranges. Nothing that matches text by parts (contains, startswith, regex, …).
FILTER_LOOKUPS = frozenset({"exact", "isnull", "gte", "lt", "id", "pk", "in"})


class SafeAdmin(admin.ModelAdmin):
    """Filters only on `list_filter` fields (and `date_hierarchy`), with the list filters' own lookups."""

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        first, *rest = lookup.split("__")
        filtered = {item if isinstance(item, str) else item[0] for item in self.list_filter
                    if isinstance(item, (str, list, tuple))}
        if self.date_hierarchy:
            filtered.add(self.date_hierarchy)
        if first not in filtered or not set(rest) <= FILTER_LOOKUPS:
            return False
        return super().lookup_allowed(lookup, value, request)


class ReadOnlyAdmin(SafeAdmin):
    """Records that change only through services (which check roles and write the audit log) are shown to
    maintainers and never added, edited or deleted here."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
