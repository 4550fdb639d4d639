"""The form for recording a payment or a correction, used on every pay page (a campaign's timesheet, a batch's)."""

from django import forms
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy


class PaymentForm(forms.Form):
    """A payment to one of the speakers who worked; `corrects` lists the payments a correction may name."""

    speaker = forms.TypedChoiceField(coerce=int, label=gettext_lazy("Speaker"))
    amount = forms.DecimalField(max_digits=9, decimal_places=2, label=gettext_lazy("Amount"),
                                help_text=gettext_lazy("Negative only to correct an earlier payment."))
    paid_on = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), label=gettext_lazy("Paid on"))
    reference = forms.CharField(required=False, max_length=200, label=gettext_lazy("Reference"),
                                help_text=gettext_lazy("A transfer or cheque number, an invoice."))
    corrects = forms.TypedChoiceField(coerce=int, required=False, empty_value=None,
                                      label=gettext_lazy("Corrects the payment"))
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}), max_length=2000,
                           label=gettext_lazy("Note"), help_text=gettext_lazy("Required for a correction: why."))

    def __init__(self, *args, speakers, payments, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["speaker"].choices = [("", "—"), *speakers]
        self.fields["corrects"].choices = [("", _("None: a new payment")), *payments]
        if not self.is_bound:
            self.initial.setdefault("paid_on", timezone.localdate())
