from django import forms
from django.utils.translation import gettext_lazy, ngettext_lazy

from .models import DEFAULT_TOKEN_LIFETIME_DAYS, TOKEN_LIFETIME_DAYS, TOKEN_SCOPE_LABELS, TokenScope


class ApiTokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name of a new token"), max_length=100, required=False,
        widget=forms.TextInput(attrs={"placeholder": gettext_lazy("e.g. mt-eval publish on my laptop")}))
    scope = forms.ChoiceField(label=gettext_lazy("What it may do"), choices=list(TOKEN_SCOPE_LABELS.items()),
                              initial=TokenScope.PUBLISH, widget=forms.RadioSelect)
    lifetime_days = forms.TypedChoiceField(
        label=gettext_lazy("Expires after"), coerce=int, initial=DEFAULT_TOKEN_LIFETIME_DAYS,
        choices=[(days, ngettext_lazy("%(days)d day", "%(days)d days", "days") % {"days": days})
                 for days in TOKEN_LIFETIME_DAYS])
