"""The forms of the site's own pages."""

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy


class DeleteAccountForm(forms.Form):
    confirm_email = forms.CharField(label=gettext_lazy("Type your e-mail address to confirm"), max_length=254)
    withdraw = forms.BooleanField(
        required=False, label=gettext_lazy("Also withdraw all my ratings and translations"),
        help_text=gettext_lazy("Unticked, your ratings and translations are kept and credited as you chose. "
                               "Translations already in a frozen version of a corpus stay there."))

    def __init__(self, *args, email: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.email = email

    def clean_confirm_email(self) -> str:
        value = self.cleaned_data["confirm_email"].strip()
        if value.lower() != self.email.lower():
            raise forms.ValidationError(_("This is not your account's e-mail address."))
        return value
