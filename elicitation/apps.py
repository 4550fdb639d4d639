from django.apps import AppConfig


class ElicitationConfig(AppConfig):
    name = "elicitation"
    verbose_name = "Elicitation"
