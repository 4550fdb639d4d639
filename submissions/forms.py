"""Forms of the terms, submission, workflow and transfer pages (the services do the real checks)."""

import re

from django import forms
from django.utils.translation import gettext, gettext_lazy

from leaderboard.declarations import NOTES_MAX_LENGTH, declaration_problems

from .models import DEFAULT_TRANSFER_CLAUSE, DEVELOPER_KEEPS, GOVERNANCE_GETS


class TermsForm(forms.Form):
    version = forms.CharField(label=gettext_lazy("Version label"), max_length=40,
                              help_text=gettext_lazy("For example 1, 2026-1 or 1.1. Published terms are never "
                                                     "edited: a change is a new version."))
    text = forms.CharField(label=gettext_lazy("Participation terms"), widget=forms.Textarea(attrs={"rows": 10}))
    transfer_clause = forms.CharField(
        label=gettext_lazy("Ownership-transfer clause"), initial=DEFAULT_TRANSFER_CLAUSE,
        widget=forms.Textarea(attrs={"rows": 7}),
        help_text=gettext_lazy("Required. The default states SPEC §5's split of rights; adapt it to your "
                               "community's terms."),
    )


class SubmissionForm(forms.Form):
    package = forms.FileField(
        label=gettext_lazy("Method package (.zip or .tar.gz)"),
        help_text=gettext_lazy("method.json, method_card.json, the code and a README. Source code and text files "
                               "only."),
    )
    cost_report = forms.FileField(label=gettext_lazy("Cost report (JSON)"),
                                  help_text=gettext_lazy("cost_per_entry_usd and the cost lines (items) with their "
                                                         "cost_usd."))
    used_development = forms.TypedChoiceField(
        label=gettext_lazy("Did the method use this community's public development entries?"),
        choices=[("no", gettext_lazy("No")), ("yes", gettext_lazy("Yes"))], widget=forms.RadioSelect,
        coerce=lambda value: value == "yes",
        help_text=gettext_lazy("In prompts (few-shot), to train or fine-tune, or to retrieve from. Shown with the "
                               "method's results."))
    development_uses = forms.MultipleChoiceField(
        label=gettext_lazy("How"), required=False, widget=forms.CheckboxSelectMultiple,
        choices=[("few-shot", gettext_lazy("few-shot examples in prompts")),
                 ("fine-tuning", gettext_lazy("training or fine-tuning")),
                 ("retrieval", gettext_lazy("retrieval")), ("other", gettext_lazy("other"))])
    development_entries = forms.CharField(
        label=gettext_lazy("Which entries"), required=False, max_length=20000,
        help_text=gettext_lazy("“all”, or their ids separated by commas or spaces."))
    development_notes = forms.CharField(label=gettext_lazy("Notes on that use"), required=False,
                                        max_length=NOTES_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 2}))
    accept_terms = forms.BooleanField(label=gettext_lazy("I accept these participation terms, including the "
                                                         "ownership-transfer clause"), required=False)

    def __init__(self, *args, needs_acceptance: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["accept_terms"].required = needs_acceptance
        if not needs_acceptance:
            del self.fields["accept_terms"]

    def clean(self) -> dict:
        """The declaration as a run card would carry it (leaderboard.declarations), each problem at its field."""
        data = super().clean()
        used = data.get("used_development")
        if used is None:
            return data
        entries_text = (data.get("development_entries") or "").strip()
        entries: str | list[str] = ("all" if entries_text.lower() == "all"
                                    else [part for part in re.split(r"[\s,]+", entries_text) if part])
        declaration = {"used": used, "notes": data.get("development_notes") or ""}
        if used:
            declaration |= {"uses": data.get("development_uses") or [], "entries": entries}
            if not declaration["uses"]:
                self.add_error("development_uses", gettext("Choose how the entries were used."))
            if not entries:
                self.add_error("development_entries", gettext("Write “all” or the ids of the entries used."))
            if self.errors:
                return data
        elif data.get("development_uses") or entries:
            self.add_error("used_development", gettext("You answered no: leave how and which entries empty."))
            return data
        stored, problems = declaration_problems(declaration)
        fields = {"uses": "development_uses", "entries": "development_entries", "notes": "development_notes"}
        for problem in problems:
            member = problem.path.split(".", 1)[1].split("[", 1)[0] if "." in problem.path else ""
            self.add_error(fields.get(member, "used_development"), gettext("%(where)s: %(message)s") % {
                "where": problem.path, "message": problem.message})
        data["development_data"] = stored
        return data


class AdvanceForm(forms.Form):
    """One move of the workflow; the choices are the moves allowed from the current state."""

    to_state = forms.ChoiceField(label=gettext_lazy("Move to"))
    run_card = forms.ModelChoiceField(
        label=gettext_lazy("Gold run card produced by the sandbox"), queryset=None, required=False,
        help_text=gettext_lazy("Needed to move to “Evaluated”: a verified gold_standard card of your "
                               "datasets."),
    )
    note = forms.CharField(label=gettext_lazy("Note to the submitter"), required=False,
                           widget=forms.Textarea(attrs={"rows": 3}),
                           help_text=gettext_lazy("Required when rejecting before community review."))

    def __init__(self, *args, states, run_cards, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["to_state"].choices = states
        self.fields["run_card"].queryset = run_cards
        self.fields["run_card"].label_from_instance = lambda card: gettext(
            "%(dataset)s %(version)s · %(model)s · composite %(composite)s · %(date)s") % {
            "dataset": card.dataset_version.dataset.identifier, "version": card.dataset_version.version,
            "model": card.model_slug, "composite": card.composite if card.composite is not None else "—",
            "date": f"{card.submitted_at:%Y-%m-%d}"}


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


class TransferForm(forms.Form):
    developer_keeps = forms.CharField(label=gettext_lazy("The developer keeps (one per line)"),
                                      initial="\n".join(DEVELOPER_KEEPS), widget=forms.Textarea(attrs={"rows": 4}))
    governance_gets = forms.CharField(label=gettext_lazy("The governance organization gets (one per line)"),
                                      initial="\n".join(GOVERNANCE_GETS), widget=forms.Textarea(attrs={"rows": 7}))
    notes = forms.CharField(label=gettext_lazy("Notes"), required=False, widget=forms.Textarea(attrs={"rows": 3}))
    confirm = forms.BooleanField(label=gettext_lazy("I record this transfer on behalf of the governance "
                                                    "organization"))

    def clean_developer_keeps(self) -> list[str]:
        return _lines(self.cleaned_data["developer_keeps"])

    def clean_governance_gets(self) -> list[str]:
        return _lines(self.cleaned_data["governance_gets"])


class SignOffForm(forms.Form):
    """A reviewer's sign-off on one declared dependency (the service refuses what is not checked)."""

    dependency_id = forms.CharField(widget=forms.HiddenInput, max_length=200)
    license_checked = forms.BooleanField(label=gettext_lazy("I checked its licence"), required=False)
    source_checked = forms.BooleanField(label=gettext_lazy("I checked its source and pin"), required=False)
    comment = forms.CharField(label=gettext_lazy("Comment"), required=False, widget=forms.Textarea(attrs={"rows": 2}))


class RightsPermissionForm(forms.Form):
    """The rights holder's permission for one A2 dependency, with its document (upload, reference, or both)."""

    dependency_id = forms.ChoiceField(label=gettext_lazy("Dependency"))
    rights_holder = forms.CharField(label=gettext_lazy("Rights holder"), required=False, max_length=300,
                                    help_text=gettext_lazy("Who holds the rights and gave the permission."))
    document = forms.FileField(label=gettext_lazy("Document"), required=False,
                               help_text=gettext_lazy("PDF, PNG, JPEG, plain text or Word (.docx)."))
    document_reference = forms.CharField(label=gettext_lazy("Document reference"), required=False, max_length=500,
                                         help_text=gettext_lazy("A URL or an archive reference, if not uploaded."))
    notes = forms.CharField(label=gettext_lazy("Notes"), required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, dependencies: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dependency_id"].choices = [(dependency, dependency) for dependency in dependencies]


class A1RunForm(forms.Form):
    """Propose the approval of one A1 run on secret sources (a decision of the organization's governance staff)."""

    dataset_version = forms.ModelChoiceField(label=gettext_lazy("Dataset version"), queryset=None)
    segments = forms.MultipleChoiceField(
        label=gettext_lazy("Secret segments the run discloses"), widget=forms.CheckboxSelectMultiple,
        choices=[("gold_standard", "gold_standard"), ("held_out", "held_out")])
    note = forms.CharField(label=gettext_lazy("Note"), required=False, widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, versions, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["dataset_version"].queryset = versions
        self.fields["dataset_version"].label_from_instance = lambda version: (
            f"{version.dataset.identifier} {version.version} ({version.language_pair})")


class RevisionForm(forms.Form):
    """The submitter's corrected package, before the manifest audit."""

    package = forms.FileField(label=gettext_lazy("Corrected package (.zip or .tar.gz)"),
                              help_text=gettext_lazy("The same method (the same method_id), checked as at "
                                                     "submission; the cost report stays."))
