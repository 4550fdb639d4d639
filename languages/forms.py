from django import forms
from django.utils.translation import gettext_lazy

from .models import InterfaceLanguage


class AddLanguageForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Language tag (BCP 47)"), max_length=35,
        help_text=gettext_lazy("For example crk for Plains Cree or oj for Ojibwe; it cannot change later."),
    )
    name = forms.CharField(label=gettext_lazy("Name of the language, as its speakers write it"), max_length=100)
    direction = forms.ChoiceField(
        label=gettext_lazy("Writing direction"), initial=InterfaceLanguage.Direction.LTR,
        choices=[("ltr", gettext_lazy("Left to right")), ("rtl", gettext_lazy("Right to left"))],
    )
