from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"

    def ready(self):
        from . import signals  # noqa: F401 - connects the consent receiver
