"""Forms of the terms, submission, workflow and transfer pages (the services do the real checks)."""

from django import forms
from django.utils.translation import gettext, gettext_lazy

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
    accept_terms = forms.BooleanField(label=gettext_lazy("I accept these participation terms, including the "
                                                         "ownership-transfer clause"), required=False)

    def __init__(self, *args, needs_acceptance: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["accept_terms"].required = needs_acceptance
        if not needs_acceptance:
            del self.fields["accept_terms"]


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
