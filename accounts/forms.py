from django import forms

from .models import DEFAULT_TOKEN_LIFETIME_DAYS, TOKEN_LIFETIME_DAYS, TokenScope


class ApiTokenForm(forms.Form):
    name = forms.CharField(label="Name of a new token", max_length=100, required=False,
                           widget=forms.TextInput(attrs={"placeholder": "e.g. mt-eval publish on my laptop"}))
    scope = forms.ChoiceField(label="What it may do", choices=TokenScope.choices, initial=TokenScope.PUBLISH,
                              widget=forms.RadioSelect)
    lifetime_days = forms.TypedChoiceField(
        label="Expires after", coerce=int, initial=DEFAULT_TOKEN_LIFETIME_DAYS,
        choices=[(days, f"{days} days") for days in TOKEN_LIFETIME_DAYS])
