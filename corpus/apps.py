from django.apps import AppConfig


class CorpusConfig(AppConfig):
    name = "corpus"

    def ready(self) -> None:
        from . import decisions

        decisions.register()
