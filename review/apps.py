from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"

    def ready(self):
        from . import decisions, signals  # noqa: F401 - signals connects the consent receiver

        decisions.register()
