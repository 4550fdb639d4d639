from django.apps import AppConfig


class LanguagesConfig(AppConfig):
    """The interface's languages: the ones shipped with the code, the ones a community adds and translates in the
    app, and which one each request speaks."""

    name = "languages"
