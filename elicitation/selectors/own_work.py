"""What a person sees of their own elicitation work: what waits for them in each batch (the same rules as the
queues), their time and pay per batch (only their own work and payments), and what withdrawing it takes back."""

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, QuerySet, Sum

from ledger.models import Payment, PayPolicy
from ledger.selectors import Rate, in_cents, rate_in_force

from ..models import Batch, Translation, TranslationVersion, Verification
from .figures import owed_for
from .translating import translatable_sources, translations_to_revise
from .verifying import verifiable_translations


def work_counts(user, batches: Sequence[Batch]) -> dict[int, dict[str, int]]:
    """Per batch, what the person may do now: sources to translate, their translations to revise, translations to
    verify — the same rules as the queues, in three grouped queries however many batches."""
    ids = [batch.pk for batch in batches]
    if not ids:
        return {}

    def per_batch(queryset: QuerySet, path: str) -> dict[int, int]:
        return dict(queryset.filter(**{f"{path}__in": ids}).order_by().values(path).annotate(n=Count("pk"))
                    .values_list(path, "n"))

    translate = per_batch(translatable_sources(user.pk), "batch")
    revise = per_batch(translations_to_revise(user), "source__batch")
    verify = per_batch(verifiable_translations(user.pk), "source__batch")
    return {pk: {"to_translate": translate.get(pk, 0), "to_revise": revise.get(pk, 0), "to_verify": verify.get(pk, 0)}
            for pk in ids}


@dataclass(frozen=True)
class BatchPay:
    """A person's own line for one batch on their page: their working time (translating and verifying), accepted
    translations, what that is owed at the rate in force and what was paid."""

    batch: Batch
    seconds: float
    accepted: int
    rate: Rate
    owed: Decimal | None
    paid: Decimal

    @property
    def balance(self) -> Decimal | None:
        return None if self.owed is None else self.owed - self.paid


def speaker_batch_pay(user) -> list[BatchPay]:
    """Every batch the person translated or verified in, newest first: only their own work and payments (the
    queries filter on the user; a constant number of them)."""
    seconds: dict[int, float] = defaultdict(float)
    for batch_id, spent in TranslationVersion.objects.filter(author=user).order_by().values_list(
            "translation__source__batch_id").annotate(total=Sum("seconds")):
        seconds[batch_id] += spent or 0.0
    for batch_id, spent in Verification.objects.filter(verifier=user).order_by().values_list(
            "translation__source__batch_id").annotate(total=Sum("seconds")):
        seconds[batch_id] += spent or 0.0
    if not seconds:
        return []
    accepted = dict(Translation.objects.filter(translator=user, status=Translation.Status.ACCEPTED).order_by()
                    .values_list("source__batch_id").annotate(n=Count("pk")))
    paid = dict(Payment.objects.filter(speaker=user, batch_id__in=list(seconds)).order_by().values_list("batch_id")
                .annotate(total=Sum("amount")))
    batches = list(Batch.objects.filter(pk__in=list(seconds)).select_related("organization").order_by("-created_at"))
    policies = {policy.organization_id: policy for policy in PayPolicy.objects.filter(
        organization_id__in={batch.organization_id for batch in batches})}
    rows = []
    for batch in batches:
        rate = rate_in_force(batch, policies.get(batch.organization_id))
        rows.append(BatchPay(batch, seconds[batch.pk], accepted.get(batch.pk, 0), rate,
                             owed_for(seconds[batch.pk], accepted.get(batch.pk, 0), batch, rate),
                             in_cents(paid.get(batch.pk))))
    return rows


def withdrawable_work(user) -> dict[str, int]:
    """What the speaker's "withdraw everything" takes back of their elicited work, and what stays: translations not
    yet withdrawn, and of them those a frozen version holds."""
    translations = Translation.objects.filter(translator=user).exclude(status=Translation.Status.WITHDRAWN)
    kept = translations.filter(entries__version__frozen_at__isnull=False).values("pk").distinct().count()
    return {"withdrawable": translations.count() - kept, "kept": kept}
