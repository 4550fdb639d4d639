from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site on top of every layer: it registers the system checks and holds the demo loader."""

    name = "config"
    verbose_name = "Site"

    def ready(self):
        from . import checks  # noqa: F401 - registers the deployment checks
