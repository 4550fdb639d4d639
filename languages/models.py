"""Interface languages a community writes itself (docs/i18n.md). Shipped languages (settings.LANGUAGES) live in
the code's message catalogs; these live here, so governance staff translate without a deployment."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from organizations.models import Organization

# A BCP 47 language tag in lower case (RFC 5646 §2.1): language (with up to three extended subtags), then optional
# script, region, variants, extensions, and a private-use part such as "crk-x-ux".
BCP47_LOWER = (r"^[a-z]{2,3}(-[a-z]{3}){0,3}(-[a-z]{4})?(-([a-z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*"
               r"(-[0-9a-wy-z](-[a-z0-9]{2,8})+)*(-x(-[a-z0-9]{1,8})+)?$")


class InterfaceLanguage(models.Model):
    """A language a community added for the interface; `revision` grows with every saved translation so that each
    web process rebuilds its catalog on the next request (no restart)."""

    class Direction(models.TextChoices):
        LTR = "ltr", "Left to right"
        RTL = "rtl", "Right to left"

    code = models.CharField(max_length=35, unique=True, help_text="BCP 47 tag, lower case, e.g. crk or oj-ca.")
    name = models.CharField(max_length=100, help_text="The language's name in the language itself.")
    direction = models.CharField(max_length=3, choices=Direction.choices, default=Direction.LTR)
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="interface_languages")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    revision = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(direction__in=["ltr", "rtl"]), name="interfacelanguage_direction_valid"),
            models.CheckConstraint(condition=Q(code__regex=BCP47_LOWER), name="interfacelanguage_code_bcp47_lower"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class InterfaceTranslation(models.Model):
    """One interface string in a community language, keyed like a message catalog entry (context + English
    text). A string without a row shows in English."""

    # Indexed as the first column of interfacetranslation_unique.
    language = models.ForeignKey(InterfaceLanguage, on_delete=models.CASCADE,
                                 related_name="translations", db_index=False)
    msgctxt = models.CharField(max_length=200, blank=True)
    msgid = models.TextField()
    msgstr = models.TextField()
    msgstr_plural = models.TextField(blank=True, help_text="The plural form, for strings that have one.")
    updated_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["language", "msgctxt", "msgid"], name="interfacetranslation_unique"),
            models.CheckConstraint(condition=~Q(msgstr=""), name="interfacetranslation_msgstr_not_empty"),
        ]

    def __str__(self) -> str:
        return self.msgid[:60]


# At most this many languages a user falls back on before English, which every string has.
MAX_FALLBACKS = 2


class LanguageFallbacks(models.Model):
    """The languages a user reads, in order, for the strings their interface language has not translated yet (a
    speaker choosing Plains Cree, then French: a string the community has not written yet shows in French, not in
    English). English always comes last."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="language_fallbacks")
    codes = models.JSONField(default=list, help_text="Interface language codes, in the order they are tried.")
    updated_at = models.DateTimeField(default=timezone.now)
