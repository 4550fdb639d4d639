from django import forms

from .models import Role


class InvitationForm(forms.Form):
    email = forms.EmailField(label="E-mail address")
    role = forms.ChoiceField(choices=[(Role.SPEAKER, "Speaker"), (Role.CURATOR, "Corpus curator")])
