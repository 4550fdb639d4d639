from django.apps import AppConfig


class CommonConfig(AppConfig):
    """Helpers every app shares and that know no app: the admin bases, the append-only rule, COPY inserts,
    located problems. The bottom layer, next to `accounts`."""

    name = "common"
