from django import forms
from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .labels import CONSENT_USE_LABELS, CONTEXT_LABELS, DOMAIN_LABELS, REGISTER_LABELS, SEGMENT_LABELS
from .models import CONSENT_USE_EXPLANATIONS, ConsentUse, Segment
from .resources import canonical_int
from .services.versions import Move, move_problems, version_name_problems
from .validation import SEGMENT_MAP, VERSION

SEGMENT_CHOICES = list(SEGMENT_LABELS.items())
REGISTER_CHOICES = list(REGISTER_LABELS.items())
CONTEXT_CHOICES = list(CONTEXT_LABELS.items())
DOMAIN_CHOICES = list(DOMAIN_LABELS.items())
DIFFICULTY_CHOICES = [("", "—"), *[(str(n), str(n)) for n in range(1, 6)]]


def optional_choices(choices) -> list[tuple[str, str]]:
    return [("", "—"), *choices]


class CorpusUploadForm(forms.Form):
    """The corpus file, and the envelope fields a file in one of the harness's other shapes may lack (named as
    corpus.validation.SUPPLIED_FIELDS names them): optional until an import finds one missing, which
    `require_missing` then marks required."""

    organization = forms.ChoiceField(label=gettext_lazy("Steward organization"))
    file = forms.FileField(
        label=gettext_lazy("Corpus file (JSON)"),
        help_text=gettext_lazy('A JSON file {"dataset": {...}, "entries": [...]} in the corpus format, or a file '
                               "the evaluation harness reads: a flat object with corpus_id and entries, the corpus "
                               "builder's file, or a bare list of entries."),
    )
    dataset_id = forms.CharField(
        label=gettext_lazy("Dataset id"), max_length=200, required=False,
        help_text=gettext_lazy("Letters, digits, '.', '_' and '-', e.g. edtekla-dev-v1."))
    dataset_version = forms.CharField(label=gettext_lazy("Version"), max_length=50, required=False,
                                      help_text=gettext_lazy("e.g. 1.0"))
    source_language = forms.CharField(label=gettext_lazy("Source language"), max_length=35, required=False,
                                      help_text=gettext_lazy("A BCP 47 code, e.g. en or eng."))
    target_language = forms.CharField(label=gettext_lazy("Target language"), max_length=35, required=False,
                                      help_text=gettext_lazy("A BCP 47 code, e.g. crk."))
    language_pair = forms.CharField(
        label=gettext_lazy("Language pair label"), max_length=100, required=False,
        help_text=gettext_lazy("e.g. EN→CRK; without it, the two languages are used."))
    created = forms.CharField(label=gettext_lazy("Created"), max_length=40, required=False,
                              help_text=gettext_lazy("An ISO 8601 date, e.g. 2026-05-01."),
                              widget=forms.TextInput(attrs={"placeholder": "2026-05-01"}))
    license = forms.CharField(label=gettext_lazy("Licence"), max_length=100, required=False,
                              help_text=gettext_lazy("An SPDX identifier, e.g. CC-BY-4.0."))

    SUPPLIED = ("dataset_id", "dataset_version", "source_language", "target_language", "language_pair", "created",
                "license")

    def __init__(self, *args, organizations=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.organizations = {org.slug: org for org in organizations}
        self.fields["organization"].choices = [(org.slug, org.name) for org in organizations]
        if len(self.organizations) == 1:
            self.fields["organization"].initial = next(iter(self.organizations))
        self.missing: list[str] = []
        self.segment_names: list[str] = []
        count = 0
        while f"segment_name_{count}" in self.data:
            self.map_segment(str(self.data[f"segment_name_{count}"]))
            count += 1

    def map_segment(self, name: str) -> None:
        """Ask which of the four segments the file's segment name `name` is (a required choice, never preset)."""
        if name in self.segment_names:
            return
        index = len(self.segment_names)
        self.segment_names.append(name)
        self.fields[f"segment_name_{index}"] = forms.CharField(widget=forms.HiddenInput, initial=name)
        if self.is_bound and f"segment_name_{index}" not in self.data:
            self.data = self.data.copy()  # a name the import asked for: sent back with the next upload
            self.data[f"segment_name_{index}"] = name
        self.fields[f"segment_as_{index}"] = forms.ChoiceField(
            label=_("Segment of the entries named %(name)s") % {"name": f"“{name}”"},
            choices=optional_choices(SEGMENT_CHOICES),
            help_text=_("This file names a segment that is none of the four: choose which one its entries are."))

    def supplied(self) -> dict:
        """The envelope fields given and the segments chosen for the file's own segment names, for
        corpus.services.import_corpus."""
        given: dict = {name: self.cleaned_data[name] for name in self.SUPPLIED if self.cleaned_data.get(name)}
        chosen = {name: self.cleaned_data.get(f"segment_as_{index}") for index, name in enumerate(self.segment_names)}
        if chosen:
            given[SEGMENT_MAP] = {name: segment for name, segment in chosen.items() if segment}
        return given

    def supplied_fields(self):
        return [self[name] for name in self.SUPPLIED]

    def segment_fields(self):
        """The bound (hidden name, segment choice) field pairs of the file's own segment names."""
        return [(self[f"segment_name_{index}"], self[f"segment_as_{index}"])
                for index in range(len(self.segment_names))]

    def require_missing(self, problems) -> None:
        """Mark each field the file lacked (or gave otherwise) as required, its problem beside it: for a field left
        empty, what to do on this page (the problem's own text also names the command's option and the API's
        parameter)."""
        for problem in problems:
            name = getattr(problem, "parameter", "")
            if name == SEGMENT_MAP and problem.value is not None:
                self.map_segment(problem.value)
                continue
            if name in self.fields and name not in self.missing:
                self.missing.append(name)
                self.fields[name].required = True
                self.fields[name].widget.attrs["required"] = True
                message = problem.message if self.data.get(name) else _("The file does not give it: fill it in here.")
                self.errors.setdefault(name, self.error_class()).append(message)


class EntryForm(forms.Form):
    """One entry; new entries default to `elicited` provenance, the usual origin of curated entries."""

    entry_id = forms.CharField(label=gettext_lazy("Id"), max_length=200,
                               help_text=gettext_lazy("An integer, or an identifier such as tatoeba_11207167; unique "
                                                      "in this version."))
    source = forms.CharField(label=gettext_lazy("Source"), widget=forms.Textarea(attrs={"rows": 3}))
    reference = forms.CharField(label=gettext_lazy("Reference"), widget=forms.Textarea(attrs={"rows": 3}))
    segment = forms.ChoiceField(label=gettext_lazy("Segment"), choices=SEGMENT_CHOICES, initial=Segment.DEVELOPMENT)
    difficulty = forms.TypedChoiceField(
        label=gettext_lazy("Difficulty"), choices=DIFFICULTY_CHOICES, coerce=int, required=False, empty_value=None
    )
    provenance = forms.CharField(label=gettext_lazy("Provenance"), max_length=200, initial="elicited")
    register = forms.ChoiceField(label=gettext_lazy("Register"), choices=optional_choices(REGISTER_CHOICES),
                                 required=False)
    context = forms.ChoiceField(label=gettext_lazy("Context"), choices=optional_choices(CONTEXT_CHOICES),
                                required=False)
    domain = forms.ChoiceField(label=gettext_lazy("Domain"), choices=optional_choices(DOMAIN_CHOICES), required=False)
    morphological_analysis = forms.CharField(label=gettext_lazy("Morphological analysis"),
                                             widget=forms.Textarea(attrs={"rows": 2}), required=False)
    notes = forms.CharField(label=gettext_lazy("Notes"), widget=forms.Textarea(attrs={"rows": 2}), required=False)
    variant_class = forms.CharField(label=gettext_lazy("Variant class"), max_length=200, required=False)
    document_id = forms.CharField(
        label=gettext_lazy("Text it belongs to"), max_length=200, required=False,
        help_text=gettext_lazy("Entries of one story or conversation share this identifier; speakers see the "
                               "sentences around the one they rate."))

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
        label=gettext_lazy("New version"), regex=VERSION, max_length=50,
        error_messages={"invalid": gettext_lazy("Use letters, digits, '.', '_', '+' and '-', e.g. 1.1.")},
    )


class RotationForm(NextVersionForm):
    """A rotation of segments as governance staff type it: the new version's name and one move per line, `<entry id>
    <segment>`. Every problem is shown beside its field, located by line, by the rules the service applies again
    (corpus.services.versions: version_name_problems, move_problems)."""

    moves = forms.CharField(
        label=gettext_lazy("Moves"), widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
        error_messages={"required": gettext_lazy(
            "Give at least one move: one line per entry, its id and the segment it moves to.")},
    )

    def __init__(self, *args, version, **kwargs):
        super().__init__(*args, **kwargs)
        self.version = version
        self.fields["moves"].help_text = _(
            "One move per line: the entry's id, a space, the segment it moves to (e.g. “17 held_out”). Segments: "
            "%(segments)s.") % {"segments": ", ".join(Segment.values)}
        self.fields["new_version"].widget.attrs["placeholder"] = _("e.g. 1.1")
        self.listed: list[Move] = []

    def clean_new_version(self) -> str:
        name = self.cleaned_data["new_version"]
        problems = version_name_problems(self.version, name)
        if problems:
            raise forms.ValidationError(problems)
        return name

    def clean_moves(self) -> str:
        """Every problem of the list at once: a line that is not `<entry id> <segment>`, then each move the rotation
        would refuse, by line."""
        text = self.cleaned_data["moves"]
        problems = []
        for number, line in enumerate(text.splitlines(), 1):
            parts = line.strip().rsplit(None, 1)
            if len(parts) == 2:
                self.listed.append(Move(parts[0].rstrip(",;:"), parts[1].lower(), number))
            elif parts:
                problems.append(_("line %(line)s: expected “<entry id> <segment>”, found %(text)s")
                                % {"line": number, "text": repr(line.strip()[:80])})
        if self.listed or not problems:
            problems += move_problems(self.version, self.listed)
        if problems:
            raise forms.ValidationError(problems)
        return text

    def moves_by_entry(self) -> dict[str, str]:
        """entry id → segment, for corpus.services.rotate_segments."""
        return {move.entry_id: move.segment for move in self.listed}


class EntryFilterForm(forms.Form):
    q = forms.CharField(label=gettext_lazy("Search"), required=False)
    segment = forms.ChoiceField(label=gettext_lazy("Segment"), choices=optional_choices(SEGMENT_CHOICES),
                                required=False)
    difficulty = forms.TypedChoiceField(
        label=gettext_lazy("Difficulty"), choices=DIFFICULTY_CHOICES, coerce=int, required=False, empty_value=None
    )
    domain = forms.ChoiceField(label=gettext_lazy("Domain"), choices=optional_choices(DOMAIN_CHOICES), required=False)
    register = forms.ChoiceField(label=gettext_lazy("Register"), choices=optional_choices(REGISTER_CHOICES),
                                 required=False)
    provenance = forms.CharField(label=gettext_lazy("Provenance"), required=False, max_length=200)


class ConsentForm(forms.Form):
    """A community's consent as governance staff record it; corpus.services.grant_consent validates again."""

    uses = forms.MultipleChoiceField(
        label=gettext_lazy("Uses this consent covers"), choices=list(CONSENT_USE_LABELS.items()),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": gettext_lazy("Choose at least one use the community consented to.")},
    )
    granted_by_name = forms.CharField(
        label=gettext_lazy("Granted by"), max_length=300,
        error_messages={"required": gettext_lazy(
            "Name the person or body who granted consent on the community's behalf.")},
        help_text=gettext_lazy("The person or body who granted consent on the community's behalf, e.g. "
                               "“Council resolution 2026-14, Chief and Council”."),
    )
    granted_on = forms.DateField(
        label=gettext_lazy("Date granted"), widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"required": gettext_lazy("Give the date the consent was granted.")},
        help_text=gettext_lazy("The date of the decision, not today's date if it was earlier."),
    )
    document = forms.FileField(
        label=gettext_lazy("Supporting document"), required=False,
        widget=forms.ClearableFileInput(attrs={"accept": ".pdf,.png,.jpg,.jpeg,.txt,.docx"}),
    )
    document_reference = forms.CharField(
        label=gettext_lazy("Document reference"), max_length=500, required=False,
        help_text=gettext_lazy("A URL or where the paper original is kept, e.g. “Band office archive, binder 7”. "
                               "Give a document, a reference, or both."),
    )
    notes = forms.CharField(
        label=gettext_lazy("Notes"), required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Conditions or context the community attached, for other governance staff."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["granted_on"].widget.attrs["max"] = timezone.localdate().isoformat()
        self.fields["document"].help_text = _(
            "The signed agreement, resolution or minutes: PDF, PNG, JPEG, plain text or Word (.docx), up to "
            "%(megabytes)s MB. Only your organization's governance staff can download it."
        ) % {"megabytes": settings.CONSENT_DOCUMENT_MAX_BYTES // (1024 * 1024)}

    def clean(self):
        """Every problem at once: the service's own rules (date not in the future, a document or a reference,
        the document's size and type) are checked here too, for each field without an error yet."""
        from .services.consent import consent_problems

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
        return [{"value": use.value, "label": CONSENT_USE_LABELS[use], "explanation": CONSENT_USE_EXPLANATIONS[use],
                 "checked": use.value in chosen, "id": f"id_uses_{index}"}
                for index, use in enumerate(ConsentUse)]


class RevokeConsentForm(forms.Form):
    reason = forms.CharField(
        label=gettext_lazy("Why is the consent revoked?"), widget=forms.Textarea(attrs={"rows": 3}),
        help_text=gettext_lazy("Kept with the record and in the audit log; shown to governance staff only, never "
                               "publicly."),
        error_messages={"required": gettext_lazy(
            "Say why the consent is revoked; the reason is kept with the record.")},
    )


class CulturalLabelForm(forms.Form):
    """Attach a Local Contexts label or notice (corpus.label_services.attach_label checks every value)."""

    label_type = forms.CharField(label=gettext_lazy("Label or notice"), widget=forms.Select)
    scope = forms.CharField(label=gettext_lazy("Applies to"), required=False, widget=forms.Select)
    name = forms.CharField(label=gettext_lazy("Name, as the community wrote it"), required=False,
                           help_text=gettext_lazy("Empty: the label's Local Contexts name."))
    text = forms.CharField(label=gettext_lazy("The community's text"), widget=forms.Textarea(attrs={"rows": 4}),
                           help_text=gettext_lazy("Plain text, shown exactly as written (no HTML)."))
    language = forms.CharField(label=gettext_lazy("Language of the name and text"), required=False,
                               help_text=gettext_lazy("A language tag, e.g. crk, en or fr-CA."))
    community = forms.CharField(label=gettext_lazy("Community"), required=False)
    restrictive = forms.ChoiceField(label=gettext_lazy("Restrictive"), choices=(
        ("default", gettext_lazy("As the label type has it (Community Use Only, Secret / Sacred, Men and Women "
                                 "Restricted are restrictive)")),
        ("1", gettext_lazy("Yes: public export and release wait for a release decision")),
        ("0", gettext_lazy("No"))), initial="default")

    def __init__(self, *args, label_types=(), scopes=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["label_type"].widget.choices = list(label_types)
        self.fields["scope"].widget.choices = list(scopes)


class LabelTranslationForm(forms.Form):
    language = forms.CharField(label=gettext_lazy("Language"), help_text=gettext_lazy("A language tag, e.g. fr."))
    name = forms.CharField(label=gettext_lazy("Translated name"), required=False)
    text = forms.CharField(label=gettext_lazy("Translated text, written by the community"),
                           widget=forms.Textarea(attrs={"rows": 3}))


class HubProjectForm(forms.Form):
    project_file = forms.FileField(label=gettext_lazy("Local Contexts Hub project file (JSON)"), help_text=gettext_lazy(
        "The project as the Hub's API v2 gives it (GET /api/v2/projects/<unique_id>/), saved to a file."))
    scope = forms.CharField(label=gettext_lazy("Applies to"), required=False, widget=forms.Select)

    def __init__(self, *args, scopes=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scope"].widget.choices = list(scopes)
