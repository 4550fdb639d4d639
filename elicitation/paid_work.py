"""Elicitation's kind of paid work for the ledger (`ledger.work`): a batch, paid to the people who translated or
verified in it (its hourly pay on submit, an optional amount per accepted translation). Registered from
`ElicitationConfig.ready`."""

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _

from ledger import work

from .models import Batch, TranslationVersion, Verification


def has_worked(batch: Batch, speaker) -> bool:
    return (TranslationVersion.objects.filter(translation__source__batch=batch, author=speaker).exists()
            or Verification.objects.filter(translation__source__batch=batch, verifier=speaker).exists())


def organizations_worked_for(user) -> QuerySet:
    return Batch.objects.filter(
        Q(pk__in=TranslationVersion.objects.filter(author=user).values("translation__source__batch_id"))
        | Q(pk__in=Verification.objects.filter(verifier=user).values("translation__source__batch_id"))
    ).values("organization_id")


def nobody_message() -> str:
    return _("This person has neither translated nor verified in the batch.")


def register() -> None:
    work.register(work.PaidWork(model=Batch, payment_field="batch", has_worked=has_worked,
                                organizations_worked_for=organizations_worked_for, nobody_message=nobody_message))
