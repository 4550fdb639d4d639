from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self):
        from . import second_factor, signals  # noqa: F401 - connect their receivers
