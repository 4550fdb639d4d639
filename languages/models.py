"""Interface languages a community writes itself (docs/i18n.md). Shipped languages (settings.LANGUAGES) live in
the code's message catalogs; these live here, so governance staff translate without a deployment."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from organizations.models import Organization


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
            models.CheckConstraint(condition=Q(code__regex=r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$"),
                                   name="interfacelanguage_code_bcp47_lower"),
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
