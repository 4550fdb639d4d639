from django.apps import AppConfig


class ElicitationConfig(AppConfig):
    name = "elicitation"
    verbose_name = "Elicitation"

    def ready(self):
        from . import paid_work

        paid_work.register()
