import secrets
import uuid

from django import forms
from django.contrib.auth import get_user_model

from organizations.models import Role

from .models import FLAG_FIELDS, GatePolicy
from .services import Submission

FLAG_LABELS = {
    "semantically_wrong": "Looks like real words, but the meaning is wrong",
    "culturally_inappropriate": "Culturally inappropriate (register or expression the community rejects)",
    "hallucination": "Says something that is not in the source",
    "acceptable_variant": "A good translation that differs from the reference",
}


def pool_candidates(organization):
    return get_user_model().objects.filter(memberships__organization=organization,
                                           memberships__role=Role.SPEAKER).distinct().order_by("email")


class SpeakerChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, user):
        return user.email


class CampaignForm(forms.Form):
    title = forms.CharField(max_length=200, help_text="For governance staff only: speakers review blind.")
    sample_size = forms.IntegerField(min_value=1, help_text="How many outputs to rate, stratified by difficulty tier.")
    ratings_per_item = forms.IntegerField(min_value=1, max_value=10, initial=3,
                                          help_text="Independent ratings each output needs, by different speakers.")
    speakers = SpeakerChoiceField(queryset=None, widget=forms.CheckboxSelectMultiple,
                                  help_text="Speakers of your organization who will rate.")
    seed = forms.IntegerField(min_value=0, max_value=2**62,
                              help_text="The same seed draws the same sample again: keep it to reproduce the campaign.")
    show_reference = forms.BooleanField(required=False, label="Show the human reference to speakers",
                                        help_text="Off by default: speakers judge the translation on its own.")
    control_count = forms.IntegerField(
        min_value=0, initial=0, label="Hidden control items",
        help_text="Human references shown as if they were candidates; a reliable speaker rates them acceptable or "
                  "excellent. Every speaker rates every control item.")
    deadline = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                                   help_text="Optional. Speakers with items left get a reminder a day before.")
    below_threshold_reason = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}), label="Why review below the threshold?",
        help_text="Required when the run card's composite is under 0.70 (the Deployable threshold).")

    def __init__(self, *args, organization, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["speakers"].queryset = pool_candidates(organization)
        if not self.is_bound:
            self.initial.setdefault("seed", secrets.randbelow(1_000_000))


class RatingForm(forms.Form):
    """The rating page's form; the same fields arrive from the page's script as a form post."""

    client_id = forms.UUIDField(widget=forms.HiddenInput, error_messages={
        "required": "The page's submission id is missing: reload the page and rate again.",
        "invalid": "The page's submission id is not a valid UUID: reload the page and rate again.",
    })
    value = forms.ChoiceField(choices=[("reject", "Reject"), ("gist", "Gist"), ("acceptable", "Acceptable"),
                                       ("excellent", "Excellent"), ("cannot_judge", "Can't judge")],
                              error_messages={"required": "Choose a rating.",
                                              "invalid_choice": "Choose Reject, Gist, Acceptable, Excellent or "
                                                                "Can't judge."})
    flags = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple,
                                      choices=[(flag, FLAG_LABELS[flag]) for flag in FLAG_FIELDS])
    comment = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 2}),
                              label="Comment (optional)")
    correction = forms.CharField(required=False, max_length=5000, widget=forms.Textarea(attrs={"rows": 2}),
                                 label="Your translation (optional)")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial.setdefault("client_id", uuid.uuid4())

    def submission(self) -> Submission:
        data = self.cleaned_data
        return Submission(client_id=data["client_id"], value=data["value"], flags=frozenset(data["flags"]),
                          comment=data["comment"], correction=data["correction"])


class DecisionForm(forms.Form):
    outcome = forms.ChoiceField(widget=forms.RadioSelect, choices=[
        ("approve", "Approve: the community accepts this method"),
        ("reject", "Reject: the community does not accept it"),
    ])
    rationale = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}),
                                help_text="Kept with the decision and in the audit log.")

    def __init__(self, *args, can_revoke=False, **kwargs):
        super().__init__(*args, **kwargs)
        if can_revoke:
            self.fields["outcome"].choices = [*self.fields["outcome"].choices,
                                              ("revoke", "Revoke the approval in force")]


class SpeakerForm(forms.Form):
    speaker = forms.ModelChoiceField(queryset=None, label="Add a speaker", empty_label="Choose a speaker")

    def __init__(self, *args, organization, exclude=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["speaker"].queryset = pool_candidates(organization).exclude(pk__in=list(exclude))
        self.fields["speaker"].label_from_instance = lambda user: user.email


class GatePolicyForm(forms.ModelForm):
    class Meta:
        model = GatePolicy
        fields = ["require_complete_coverage", "min_usable_lower_bound", "min_tier_usable_share",
                  "max_reject_share", "min_alpha", "min_rated_items"]
        labels = {
            "require_complete_coverage": "Require every item to have all its ratings",
            "min_usable_lower_bound": "Lowest acceptable lower bound of the usable share",
            "min_tier_usable_share": "Lowest usable share in any difficulty tier",
            "max_reject_share": "Highest share of items rated reject",
            "min_alpha": "Lowest agreement between speakers (Krippendorff's alpha)",
            "min_rated_items": "Fewest rated items to conclude anything",
        }
        widgets = {name: forms.NumberInput(attrs={"step": "0.01", "min": "0", "max": "1"})
                   for name in ["min_usable_lower_bound", "min_tier_usable_share", "max_reject_share"]}

    def clean(self):
        data = super().clean()
        for name in ("min_usable_lower_bound", "min_tier_usable_share", "max_reject_share"):
            value = data.get(name)
            if value is not None and not 0 <= value <= 1:
                self.add_error(name, "Enter a share between 0 and 1.")
        alpha = data.get("min_alpha")
        if alpha is not None and not -1 <= alpha <= 1:
            self.add_error("min_alpha", "Alpha lies between -1 and 1.")
        return data
