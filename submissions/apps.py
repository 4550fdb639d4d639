from django.apps import AppConfig


class SubmissionsConfig(AppConfig):
    """The top floor: participation terms, method submissions, ownership transfers and the governance dashboard."""

    name = "submissions"

    def ready(self) -> None:
        from . import decisions

        decisions.register()
