"""Where sign-in lands: a speaker with items waiting goes to their review queue (ACCOUNT_ADAPTER)."""

from django.shortcuts import resolve_url

from organizations.adapter import AccountAdapter as OrganizationsAccountAdapter

from .selectors.rating import waiting_item_count


class AccountAdapter(OrganizationsAccountAdapter):
    def get_login_redirect_url(self, request) -> str:
        """The queue when items wait (one query), else the usual LOGIN_REDIRECT_URL; an explicit `next` still wins
        (allauth asks the adapter only without one)."""
        if waiting_item_count(request.user):
            return resolve_url("review:queue")
        return super().get_login_redirect_url(request)
