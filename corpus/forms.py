from django import forms
from django.conf import settings
from django.utils import timezone

from .models import CONSENT_USE_EXPLANATIONS, ConsentUse, Context, Domain, Register, Segment
from .resources import canonical_int
from .validation import VERSION


def optional_choices(choices) -> list[tuple[str, str]]:
    return [("", "—"), *choices]


class CorpusUploadForm(forms.Form):
    organization = forms.ChoiceField(label="Steward organization")
    file = forms.FileField(
        label="Corpus file (JSON)",
        help_text='A JSON file {"dataset": {...}, "entries": [...]} in the corpus format.',
    )

    def __init__(self, *args, organizations=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.organizations = {org.slug: org for org in organizations}
        self.fields["organization"].choices = [(org.slug, org.name) for org in organizations]
        if len(self.organizations) == 1:
            self.fields["organization"].initial = next(iter(self.organizations))


class EntryForm(forms.Form):
    """One entry; new entries default to `elicited` provenance, the usual origin of curated entries."""

    entry_id = forms.CharField(label="Id", max_length=200, help_text="An integer, unique in this version.")
    source = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    reference = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))
    segment = forms.ChoiceField(choices=Segment.choices, initial=Segment.DEVELOPMENT)
    difficulty = forms.TypedChoiceField(
        choices=[("", "—"), *[(str(n), str(n)) for n in range(1, 6)]], coerce=int, required=False, empty_value=None
    )
    provenance = forms.CharField(max_length=200, initial="elicited")
    register = forms.ChoiceField(choices=optional_choices(Register.choices), required=False)
    context = forms.ChoiceField(choices=optional_choices(Context.choices), required=False)
    domain = forms.ChoiceField(choices=optional_choices(Domain.choices), required=False)
    morphological_analysis = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    variant_class = forms.CharField(max_length=200, required=False)

    def entry_data(self) -> dict:
        """The entry object as the corpus file format has it: an id of digits becomes an integer and
        empty optional fields are left out rather than stored as empty strings."""
        data = dict(self.cleaned_data)
        raw_id = data.pop("entry_id").strip()
        number = canonical_int(raw_id)
        data = {"id": raw_id if number is None else number, **data}
        return {key: value for key, value in data.items() if value not in (None, "")}


    def entry_changes(self) -> dict:
        """Like entry_data, but a field the curator emptied maps to None, which removes it."""
        changes = self.entry_data()
        for name in self.fields:
            if name != "entry_id":
                changes.setdefault(name, None)
        return changes


class NextVersionForm(forms.Form):
    new_version = forms.RegexField(
        label="New version", regex=VERSION, max_length=50,
        error_messages={"invalid": "Use letters, digits, '.', '_', '+' and '-', e.g. 1.1."},
    )


class EntryFilterForm(forms.Form):
    q = forms.CharField(label="Search", required=False)
    segment = forms.ChoiceField(choices=optional_choices(Segment.choices), required=False)
    difficulty = forms.TypedChoiceField(
        choices=[("", "—"), *[(str(n), str(n)) for n in range(1, 6)]], coerce=int, required=False, empty_value=None
    )
    domain = forms.ChoiceField(choices=optional_choices(Domain.choices), required=False)
    register = forms.ChoiceField(choices=optional_choices(Register.choices), required=False)
    provenance = forms.CharField(required=False, max_length=200)


class ConsentForm(forms.Form):
    """A community's consent as governance staff record it; corpus.services.grant_consent validates again."""

    uses = forms.MultipleChoiceField(
        label="Uses this consent covers", choices=ConsentUse.choices, widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one use the community consented to."},
    )
    granted_by_name = forms.CharField(
        label="Granted by", max_length=300,
        error_messages={"required": "Name the person or body who granted consent on the community's behalf."},
        help_text="The person or body who granted consent on the community's behalf, e.g. "
                  "“Council resolution 2026-14, Chief and Council”.",
    )
    granted_on = forms.DateField(
        label="Date granted", widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"required": "Give the date the consent was granted."},
        help_text="The date of the decision, not today's date if it was earlier.",
    )
    document = forms.FileField(
        label="Supporting document", required=False,
        help_text="The signed agreement, resolution or minutes: PDF, PNG, JPEG, plain text or Word (.docx), "
                  "up to 10 MB. Only your organization's governance staff can download it.",
        widget=forms.ClearableFileInput(attrs={"accept": ".pdf,.png,.jpg,.jpeg,.txt,.docx"}),
    )
    document_reference = forms.CharField(
        label="Document reference", max_length=500, required=False,
        help_text="A URL or where the paper original is kept, e.g. “Band office archive, binder 7”. Give a "
                  "document, a reference, or both.",
    )
    notes = forms.CharField(
        label="Notes", required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Conditions or context the community attached, for other governance staff.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["granted_on"].widget.attrs["max"] = timezone.localdate().isoformat()
        self.fields["document"].help_text = self.fields["document"].help_text.replace(
            "10 MB", f"{settings.CONSENT_DOCUMENT_MAX_BYTES // (1024 * 1024)} MB")

    def clean(self):
        """Every problem at once: the service's own rules (date not in the future, a document or a reference,
        the document's size and type) are checked here too, for each field without an error yet."""
        from .services import consent_problems

        cleaned = super().clean()
        problems = consent_problems(cleaned.get("uses") or list(ConsentUse), cleaned.get("granted_by_name") or "-",
                                    cleaned.get("granted_on"), cleaned.get("document") or None,
                                    cleaned.get("document_reference", ""))
        for name, message in problems.items():
            if name in self.fields and name not in self.errors and name in cleaned:
                self.add_error(name, message)
        return cleaned

    def use_choices(self) -> list[dict]:
        """The use checkboxes with their one-line explanations, checked as submitted."""
        chosen = set(self["uses"].value() or [])
        return [{"value": use.value, "label": use.label, "explanation": CONSENT_USE_EXPLANATIONS[use],
                 "checked": use.value in chosen, "id": f"id_uses_{index}"}
                for index, use in enumerate(ConsentUse)]


class RevokeConsentForm(forms.Form):
    reason = forms.CharField(
        label="Why is the consent revoked?", widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Kept with the record and in the audit log; shown to governance staff only, never publicly.",
        error_messages={"required": "Say why the consent is revoked; the reason is kept with the record."},
    )
