from django import forms

from .models import Role


class InvitationForm(forms.Form):
    email = forms.EmailField(label="E-mail address", widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    role = forms.ChoiceField(choices=[(Role.SPEAKER, "Speaker"), (Role.CURATOR, "Corpus curator")])


class RoleForm(forms.Form):
    role = forms.ChoiceField(label="Role", choices=Role.choices)
