from django.apps import AppConfig


class GovernanceConfig(AppConfig):
    name = "governance"

    def ready(self):
        from . import second_factor  # noqa: F401 - connects the authenticator-activation receiver
