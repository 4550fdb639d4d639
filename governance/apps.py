from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    """Migration history only. The organization and submission tables were created under this app and are now
    owned by `organizations` and `submissions` (state-only moves, the tables keep their names). Databases that
    already applied these migrations need them in the graph; the app holds no models and no code."""

    name = "governance"
