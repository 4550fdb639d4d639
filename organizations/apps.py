from django.apps import AppConfig


class OrganizationsConfig(AppConfig):
    """The ground floor above accounts: organizations, roles, invitations, permissions and the audit log."""

    name = "organizations"
