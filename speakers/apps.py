from django.apps import AppConfig


class SpeakersConfig(AppConfig):
    """The speakers' ledger: the languages each speaker reads and writes, who attested them, and each organization's
    practice round. Review (and later corpus elicitation) draws its speakers from it."""

    name = "speakers"
