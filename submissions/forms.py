"""Forms of the terms, submission, workflow and transfer pages (the services do the real checks)."""

from django import forms

from .models import DEFAULT_TRANSFER_CLAUSE, DEVELOPER_KEEPS, GOVERNANCE_GETS


class TermsForm(forms.Form):
    version = forms.CharField(label="Version label", max_length=40,
                              help_text="For example 1, 2026-1 or 1.1. Published terms are never edited: "
                                        "a change is a new version.")
    text = forms.CharField(label="Participation terms", widget=forms.Textarea(attrs={"rows": 10}))
    transfer_clause = forms.CharField(
        label="Ownership-transfer clause", initial=DEFAULT_TRANSFER_CLAUSE, widget=forms.Textarea(attrs={"rows": 7}),
        help_text="Required. The default states SPEC §5's split of rights; adapt it to your community's terms.",
    )


class SubmissionForm(forms.Form):
    package = forms.FileField(
        label="Method package (.zip or .tar.gz)",
        help_text="method.json, method_card.json, the code and a README. Source code and text files only.",
    )
    cost_report = forms.FileField(label="Cost report (JSON)",
                                  help_text="cost_per_entry_usd and the cost lines (items) with their cost_usd.")
    accept_terms = forms.BooleanField(label="I accept these participation terms, including the ownership-transfer "
                                            "clause", required=False)

    def __init__(self, *args, needs_acceptance: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["accept_terms"].required = needs_acceptance
        if not needs_acceptance:
            del self.fields["accept_terms"]


class AdvanceForm(forms.Form):
    """One move of the workflow; the choices are the moves allowed from the current state."""

    to_state = forms.ChoiceField(label="Move to")
    run_card = forms.ModelChoiceField(
        label="Gold run card produced by the sandbox", queryset=None, required=False,
        help_text="Needed to move to \u201cEvaluated\u201d: a verified gold_standard card of your datasets.",
    )
    note = forms.CharField(label="Note to the submitter", required=False, widget=forms.Textarea(attrs={"rows": 3}),
                           help_text="Required when rejecting before community review.")

    def __init__(self, *args, states, run_cards, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["to_state"].choices = states
        self.fields["run_card"].queryset = run_cards
        self.fields["run_card"].label_from_instance = lambda card: (
            f"{card.dataset_version.dataset.identifier} {card.dataset_version.version} · {card.model_slug} · "
            f"composite {card.composite if card.composite is not None else '—'} · {card.submitted_at:%Y-%m-%d}"
        )


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.splitlines() if line.strip()]


class TransferForm(forms.Form):
    developer_keeps = forms.CharField(label="The developer keeps (one per line)", initial="\n".join(DEVELOPER_KEEPS),
                                      widget=forms.Textarea(attrs={"rows": 4}))
    governance_gets = forms.CharField(label="The governance organization gets (one per line)",
                                      initial="\n".join(GOVERNANCE_GETS), widget=forms.Textarea(attrs={"rows": 7}))
    notes = forms.CharField(label="Notes", required=False, widget=forms.Textarea(attrs={"rows": 3}))
    confirm = forms.BooleanField(label="I record this transfer on behalf of the governance organization")

    def clean_developer_keeps(self) -> list[str]:
        return _lines(self.cleaned_data["developer_keeps"])

    def clean_governance_gets(self) -> list[str]:
        return _lines(self.cleaned_data["governance_gets"])
