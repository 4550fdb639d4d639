from django import forms

from .models import Context, Domain, Register, Segment
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
