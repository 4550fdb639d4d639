from django import forms
from django.utils.translation import gettext_lazy

from .models import PASS_MARK_RANGE, PRACTICE_RATINGS, RETRY_WAIT_RANGE, VARIETY_MAX_LENGTH, Proficiency

# The review scale's names, as review's rating page shows them (the same translations).
RATING_LABELS = {
    "reject": gettext_lazy("Reject"),
    "gist": gettext_lazy("Gist"),
    "acceptable": gettext_lazy("Acceptable"),
    "excellent": gettext_lazy("Excellent"),
}
RATING_EXPLANATIONS = {
    "reject": gettext_lazy("Wrong or unusable: the meaning is lost or changed."),
    "gist": gettext_lazy("The meaning is clear, but the wording is wrong."),
    "acceptable": gettext_lazy("Correct, with minor issues."),
    "excellent": gettext_lazy("As good as a translation by a fluent person."),
}
RATING_CHOICES = [(value, RATING_LABELS[value]) for value in PRACTICE_RATINGS]
RATING_BUTTONS = [(value, RATING_LABELS[value], RATING_EXPLANATIONS[value]) for value in PRACTICE_RATINGS]


def level_field(label) -> forms.TypedChoiceField:
    return forms.TypedChoiceField(coerce=int, choices=Proficiency.choices, label=label,
                                  error_messages={"invalid_choice": gettext_lazy(
                                      "Choose a level of the scale, from 0 (not at all) to 4 (expert).")})


class LevelsForm(forms.Form):
    reading = level_field(gettext_lazy("Reading"))
    writing = level_field(gettext_lazy("Writing"))


class SkillForm(LevelsForm):
    """A language the speaker reads or writes; the service reads the codes (`speakers.services.add_skill`)."""

    language = forms.CharField(
        max_length=35, label=gettext_lazy("Language"),
        help_text=gettext_lazy("Its ISO 639 code, such as en, eng, fr or crk; a tag such as crk-Cans also gives the "
                               "script."))
    variety = forms.CharField(
        required=False, max_length=VARIETY_MAX_LENGTH, label=gettext_lazy("Variety or dialect"),
        help_text=gettext_lazy("Optional, in your own words or as a code: Plains Cree y-dialect, Swampy Cree, …"))
    script = forms.CharField(
        required=False, max_length=35, label=gettext_lazy("Script"),
        help_text=gettext_lazy("Optional: the ISO 15924 code of the writing you read, such as Latn (Roman letters, "
                               "SRO) or Cans (syllabics). Record each script you read separately."))

    field_order = ["language", "variety", "script", "reading", "writing"]


class VouchForm(forms.Form):
    email = forms.EmailField(label=gettext_lazy("The speaker's e-mail address"), max_length=254)


class WithdrawForm(forms.Form):
    reason = forms.CharField(required=False, max_length=500, label=gettext_lazy("Why (optional, kept in the audit "
                                                                                "log)"))


class PracticeRoundForm(forms.Form):
    required = forms.BooleanField(
        required=False, label=gettext_lazy("Speakers must pass the practice round before joining a review campaign"),
        help_text=gettext_lazy("Needs at least 5 items. Pools already drawn stay as they are."))
    pass_mark_percent = forms.IntegerField(
        min_value=PASS_MARK_RANGE[0], max_value=PASS_MARK_RANGE[1], initial=80, label=gettext_lazy("Pass mark (%)"),
        help_text=gettext_lazy("The share of items a speaker must answer right, from 50 to 100."))
    retry_wait_hours = forms.IntegerField(
        min_value=RETRY_WAIT_RANGE[0], max_value=RETRY_WAIT_RANGE[1], initial=24,
        label=gettext_lazy("Hours to wait before trying again"),
        help_text=gettext_lazy("After a failed attempt, from 0 to 720 (30 days)."))


class PracticeItemForm(forms.Form):
    source = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=2000,
                             label=gettext_lazy("Source"))
    candidate = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=2000,
                                label=gettext_lazy("Candidate translation"),
                                help_text=gettext_lazy("Written by your community for training: never a corpus "
                                                       "entry or an evaluation output."))
    right = forms.MultipleChoiceField(choices=RATING_CHOICES, widget=forms.CheckboxSelectMultiple,
                                      label=gettext_lazy("Ratings counted right"),
                                      help_text=gettext_lazy("Tick one, or several when more than one answer is "
                                                             "fair."))
    explanation = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=4000,
                                  label=gettext_lazy("Explanation"),
                                  help_text=gettext_lazy("Shown to the speaker after they answer, right or not."))
    source_language = forms.CharField(required=False, max_length=35, label=gettext_lazy("Language of the source"),
                                      help_text=gettext_lazy("Optional BCP 47 tag, such as en."))
    target_language = forms.CharField(required=False, max_length=35,
                                      label=gettext_lazy("Language of the translation"),
                                      help_text=gettext_lazy("Optional BCP 47 tag, such as crk or crk-Cans."))


class PracticeAnswerForm(forms.Form):
    value = forms.ChoiceField(choices=RATING_CHOICES, label=gettext_lazy("Your rating"))
