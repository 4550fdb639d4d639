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


class CommitmentsForm(forms.Form):
    """The organization's commitments (benchmark specification §8.4)."""

    community_relationship = forms.CharField(
        label=gettext_lazy("Relationship with the community"), required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=gettext_lazy("How the organization represents the community: its mandate, who gave it, when."))
    relationship_evidence = forms.CharField(
        label=gettext_lazy("Evidence of it"), required=False, max_length=300,
        help_text=gettext_lazy("Where the evidence is kept, e.g. “Council resolution 2026-14, band office archive”."))
    key_custody = forms.CharField(
        label=gettext_lazy("Key custody"), required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Who holds the keys to the secret segments, and how they are kept."))
    evaluable_commitment = forms.CharField(
        label=gettext_lazy("Commitment to keep the benchmark evaluable"), required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("For how long, and under which conditions, methods can be evaluated on the "
                               "community's data."))
    evaluation_paused_until = forms.DateField(
        label=gettext_lazy("Evaluation paused until"), required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=gettext_lazy("Leave empty unless evaluation is paused."))
    evaluation_pause_reason = forms.CharField(
        label=gettext_lazy("Why evaluation is paused"), required=False, widget=forms.Textarea(attrs={"rows": 2}))
