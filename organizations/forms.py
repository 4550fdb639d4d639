from django import forms
from django.utils.translation import gettext_lazy

from .models import ROLE_CHOICES, ROLE_LABELS, Role


class InvitationForm(forms.Form):
    email = forms.EmailField(label=gettext_lazy("E-mail address"),
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=[
        (Role.SPEAKER, ROLE_LABELS[Role.SPEAKER]), (Role.CURATOR, ROLE_LABELS[Role.CURATOR])])


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=ROLE_CHOICES)
