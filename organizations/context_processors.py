"""What every page needs to know about the signed-in user's roles: whether to show the banner asking a secret
holder to set up two-factor authentication, which dashboards the navigation links, and whether it is a speaker's."""

from functools import cached_property

from django.http import HttpRequest

from .selectors import governed_organizations, needs_mfa_for_secrets, session_needs_code, speaker_only


class SecretAccess:
    """Evaluated only when a template asks (most pages of anonymous visitors never do)."""

    def __init__(self, user) -> None:
        self.user = user

    @cached_property
    def needs_mfa(self) -> bool:
        return needs_mfa_for_secrets(self.user)

    @cached_property
    def session_only(self) -> bool:
        """The account has two-factor authentication, but this session has not proved it."""
        return session_needs_code(self.user)

    @cached_property
    def speaker_only(self) -> bool:
        return speaker_only(self.user)

    @cached_property
    def dashboards(self) -> list[tuple[str, str]]:
        """(slug, name) of the organizations whose governance dashboard the user opens."""
        return governed_organizations(self.user)


def secret_access(request: HttpRequest) -> dict:
    return {"secret_access": SecretAccess(getattr(request, "user", None))}
