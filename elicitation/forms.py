"""The forms of the elicitation pages: a batch and its sources (curators), a translation or a skip (translators), a
verification (verifiers), accepted translations into a version (curators)."""

import time
import uuid
from datetime import UTC, datetime

from django import forms
from django.core import signing
from django.utils.translation import gettext_lazy

from corpus.labels import DOMAIN_LABELS, REGISTER_LABELS, SEGMENT_LABELS
from corpus.models import Dataset, DatasetVersion, Domain, Register, Segment

from .models import MAX_TEXT_LENGTH, Origin, SkipReason, Verification
from .services.batches import BatchSettings
from .services.translating import TranslationSubmission
from .services.verifying import VerificationSubmission

SHOWN_SALT = "elicitation.shown"


def shown_token(item: uuid.UUID) -> str:
    """When the server showed this item, signed: the submission sends it back, and the server times the work by it."""
    return signing.Signer(salt=SHOWN_SALT).sign(f"{item}:{int(time.time())}")


def shown_at(token: str, item: uuid.UUID) -> datetime | None:
    try:
        value = signing.Signer(salt=SHOWN_SALT).unsign(token or "")
    except signing.BadSignature:
        return None
    shown_item, _sep, stamp = value.rpartition(":")
    if shown_item != str(item) or not stamp.isdigit():
        return None
    return datetime.fromtimestamp(int(stamp), tz=UTC)


class BatchForm(forms.Form):
    dataset = forms.ModelChoiceField(queryset=Dataset.objects.none(), label=gettext_lazy("Dataset"))
    title = forms.CharField(max_length=200, label=gettext_lazy("Title"))
    source_language = forms.CharField(max_length=35, label=gettext_lazy("Source language"), initial="en",
                                      help_text=gettext_lazy("A BCP 47 tag, such as en."))
    target_language = forms.CharField(max_length=35, label=gettext_lazy("Target language"),
                                      help_text=gettext_lazy("A BCP 47 tag with the community's script when it has "
                                                             "one, such as crk-Latn or crk-Cans."))
    variety = forms.CharField(max_length=100, required=False, label=gettext_lazy("Variety (dialect)"))
    guideline = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}), label=gettext_lazy("Guideline"),
                                help_text=gettext_lazy("Shown to translators with every source."))
    translations_per_source = forms.IntegerField(min_value=1, max_value=5, initial=1,
                                                 label=gettext_lazy("Translations per source"))
    verifications_per_translation = forms.IntegerField(
        min_value=1, max_value=5, initial=1, label=gettext_lazy("Verifications per translation"),
        help_text=gettext_lazy("gold_standard sources always get at least 2."))
    hourly_rate = forms.DecimalField(min_value=0, max_digits=8, decimal_places=2, required=False,
                                     label=gettext_lazy("Hourly rate"),
                                     help_text=gettext_lazy("Empty: the organization's rate."))
    currency = forms.CharField(max_length=3, required=False, label=gettext_lazy("Currency"))
    amount_per_accepted = forms.DecimalField(min_value=0, max_digits=8, decimal_places=2, required=False,
                                             label=gettext_lazy("Amount per accepted translation (optional)"))
    sources = forms.FileField(required=False, label=gettext_lazy("Sources file (CSV or JSON, optional)"))

    def __init__(self, *args, datasets=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dataset"].queryset = datasets if datasets is not None else Dataset.objects.none()

    def values(self) -> BatchSettings:
        data = self.cleaned_data
        return BatchSettings(
            title=data["title"], source_language=data["source_language"], target_language=data["target_language"],
            guideline=data["guideline"], variety=data["variety"],
            translations_per_source=data["translations_per_source"],
            verifications_per_translation=data["verifications_per_translation"], hourly_rate=data["hourly_rate"],
            currency=data["currency"].strip().upper(), amount_per_accepted=data["amount_per_accepted"])


class SourcesFileForm(forms.Form):
    sources = forms.FileField(label=gettext_lazy("Sources file (CSV or JSON)"), allow_empty_file=True)


def labelled(values, labels):
    return [(value, labels.get(value, value)) for value in values]


class SourceForm(forms.Form):
    """One source typed on the page."""

    source = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), max_length=MAX_TEXT_LENGTH,
                             label=gettext_lazy("Source text"))
    context = forms.CharField(required=False, max_length=MAX_TEXT_LENGTH, label=gettext_lazy("Context (optional)"))
    difficulty = forms.ChoiceField(choices=[(str(n), str(n)) for n in range(1, 6)], label=gettext_lazy("Difficulty"))
    register = forms.ChoiceField(choices=labelled(Register.values, REGISTER_LABELS), label=gettext_lazy("Register"))
    domain = forms.ChoiceField(choices=labelled(Domain.values, DOMAIN_LABELS), label=gettext_lazy("Domain"))
    segment = forms.ChoiceField(choices=labelled(Segment.values, SEGMENT_LABELS), label=gettext_lazy("Segment"))
    origin = forms.ChoiceField(choices=Origin.choices, label=gettext_lazy("Origin"))
    origin_name = forms.CharField(required=False, max_length=300,
                                  label=gettext_lazy("Name of the public source or proposing system"))
    origin_license = forms.CharField(required=False, max_length=100,
                                     label=gettext_lazy("Licence of the public source (SPDX)"))

    def raw_row(self) -> dict:
        return dict(self.data.items()) | {name: self.cleaned_data[name] for name in self.fields}


class TranslationForm(forms.Form):
    client_id = forms.UUIDField(widget=forms.HiddenInput)
    text = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 4}),
                           max_length=MAX_TEXT_LENGTH * 2, label=gettext_lazy("Your translation"))
    analysis = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), max_length=MAX_TEXT_LENGTH,
                               label=gettext_lazy("Morphological analysis (optional)"))
    shown = forms.CharField(required=False, widget=forms.HiddenInput)
    pasted = forms.NullBooleanField(required=False, widget=forms.HiddenInput)
    typed = forms.IntegerField(required=False, min_value=0, widget=forms.HiddenInput)

    def submission(self, item: uuid.UUID) -> TranslationSubmission:
        data = self.cleaned_data
        return TranslationSubmission(client_id=data["client_id"], text=data["text"], analysis=data["analysis"],
                                     shown_at=shown_at(data["shown"], item), pasted=data["pasted"],
                                     typed_characters=data["typed"])


class SkipForm(forms.Form):
    client_id = forms.UUIDField(widget=forms.HiddenInput)
    reason = forms.ChoiceField(choices=SkipReason.choices, widget=forms.RadioSelect,
                               label=gettext_lazy("Why you skip it"))
    note = forms.CharField(required=False, max_length=MAX_TEXT_LENGTH, label=gettext_lazy("Note (optional)"))


class VerificationForm(forms.Form):
    client_id = forms.UUIDField(widget=forms.HiddenInput)
    version = forms.IntegerField(widget=forms.HiddenInput, min_value=1)
    outcome = forms.ChoiceField(choices=Verification.Outcome.choices, label=gettext_lazy("Your verdict"))
    comment = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), max_length=MAX_TEXT_LENGTH,
                              label=gettext_lazy("Comment for the translator"))
    text = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}), max_length=MAX_TEXT_LENGTH * 2,
                           label=gettext_lazy("Your edited translation"))
    shown = forms.CharField(required=False, widget=forms.HiddenInput)

    def submission(self, item: uuid.UUID) -> VerificationSubmission:
        data = self.cleaned_data
        return VerificationSubmission(client_id=data["client_id"], outcome=data["outcome"], version=data["version"],
                                      comment=data["comment"], text=data["text"],
                                      shown_at=shown_at(data["shown"], item))


class AnalysisCheckForm(forms.Form):
    status = forms.ChoiceField(choices=[("confirmed", gettext_lazy("Confirm")), ("disputed", gettext_lazy("Dispute"))],
                               widget=forms.RadioSelect, label=gettext_lazy("The proposed analysis"))
    method = forms.CharField(max_length=300, label=gettext_lazy("How you checked it"))
    note = forms.CharField(required=False, max_length=MAX_TEXT_LENGTH, label=gettext_lazy("Note (optional)"))


class IntoCorpusForm(forms.Form):
    version = forms.ModelChoiceField(queryset=DatasetVersion.objects.none(), label=gettext_lazy("Draft version"))
    segment = forms.ChoiceField(required=False, label=gettext_lazy("Segment"), choices=[
        ("", gettext_lazy("Each source's own segment")), *labelled(Segment.values, SEGMENT_LABELS)])

    def __init__(self, *args, versions=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["version"].queryset = versions if versions is not None else DatasetVersion.objects.none()
