from allauth.mfa.base import forms as mfa_forms
from django import forms
from django.utils.translation import gettext_lazy, ngettext

from .models import (
    DEFAULT_TOKEN_LIFETIME_DAYS,
    PUBLIC_NAME_MAX_LENGTH,
    TOKEN_LIFETIME_DAYS,
    TOKEN_SCOPE_LABELS,
    TokenScope,
)


def lifetime_choices() -> list[tuple[int, str]]:
    """Called each time the form is shown, so the days read in the reader's language (a plural formatted when the
    module loads would stay in the language active then)."""
    return [(days, ngettext("%(days)d day", "%(days)d days", days) % {"days": days}) for days in TOKEN_LIFETIME_DAYS]


class ApiTokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name of a new token"), max_length=100, required=False,
        widget=forms.TextInput(attrs={"placeholder": gettext_lazy("e.g. mt-eval publish on my laptop")}))
    scope = forms.ChoiceField(label=gettext_lazy("What it may do"), choices=list(TOKEN_SCOPE_LABELS.items()),
                              initial=TokenScope.PUBLISH, widget=forms.RadioSelect)
    lifetime_days = forms.TypedChoiceField(
        label=gettext_lazy("Expires after"), coerce=int, initial=DEFAULT_TOKEN_LIFETIME_DAYS,
        choices=lifetime_choices)


class PublicNameForm(forms.Form):
    public_name = forms.CharField(
        label=gettext_lazy("Public name"), max_length=PUBLIC_NAME_MAX_LENGTH, required=False,
        help_text=gettext_lazy("Published with the run cards you publish with the harness (mt-eval). Leave it empty to "
                               "be published under your pseudonym. Your e-mail address is never published."))


class SecondFactorCodeMixin:
    """The second factor's code field as a phone should offer it: a number pad (authenticator and recovery codes are
    digits only), and a help text that says a recovery code works too."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        code = self.fields["code"]
        code.widget.attrs.update(inputmode="numeric", spellcheck="false")
        code.help_text = gettext_lazy("The six-digit code your authenticator app shows now, or one of your unused "
                                      "recovery codes.")


class AuthenticateForm(SecondFactorCodeMixin, mfa_forms.AuthenticateForm):
    pass


class ReauthenticateForm(SecondFactorCodeMixin, mfa_forms.ReauthenticateForm):
    pass
