from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "review"

    def ready(self):
        from . import decisions, paid_work, signals  # noqa: F401 - signals connects the consent receiver

        decisions.register()
        paid_work.register()
