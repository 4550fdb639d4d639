"""A batch's figures per person, as the curator's dashboard and governance staff's pay page show them: translations
and their outcomes, machine-output flags, verifications and agreement, working time, what it is owed at the rate in
force (`owed_for`, the one reckoning) and what was paid; skips by reason."""

from collections import Counter, defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, QuerySet

from ledger.selectors import (
    Rate,
    amount_owed,
    in_cents,
    paid_per_speaker,
    rate_in_force,
    speaker_labels,
    stored_pay_policy,
)

from ..models import Batch, Skip, SkipReason, Translation, TranslationVersion, Verification


@dataclass(frozen=True)
class SpeakerFigures:
    user_id: int
    label: str
    translated: int
    accepted: int
    rejected: int
    flagged: int
    verified: int
    agreement: float | None
    seconds: float
    owed: Decimal | None
    paid: Decimal

    @property
    def balance(self) -> Decimal | None:
        return None if self.owed is None else self.owed - self.paid


def batch_rate(batch: Batch) -> Rate:
    """The batch's own hourly rate, else its organization's, else none."""
    return rate_in_force(batch, stored_pay_policy(batch.organization))


def owed_for(seconds: float, accepted: int, batch: Batch, rate: Rate) -> Decimal | None:
    """Time at the rate in force, plus the batch's amount per accepted translation when it has one."""
    owed = amount_owed(seconds, rate)
    if owed is not None and batch.amount_per_accepted:
        owed += batch.amount_per_accepted * accepted
    return owed


def speaker_figures(batch: Batch, rate: Rate | None = None) -> list[SpeakerFigures]:
    """Per person: translations and their outcomes, machine-output flags, verifications and how often they agreed
    with the translation's final outcome, working time, what it is owed at the rate in force and what was paid (a
    constant number of queries)."""
    translations = list(Translation.objects.filter(source__batch=batch).exclude(status=Translation.Status.WITHDRAWN)
                        .values_list("pk", "translator_id", "status"))
    status_of = {pk: status for pk, _translator, status in translations}
    versions = list(TranslationVersion.objects.filter(translation__source__batch=batch)
                    .values_list("author_id", "translation_id", "suspected_system", "seconds", "number"))
    verifications = list(Verification.objects.filter(translation__source__batch=batch)
                         .values_list("verifier_id", "translation_id", "outcome", "seconds"))
    people: dict[int, Counter] = defaultdict(Counter)
    seconds: dict[int, float] = defaultdict(float)
    for _pk, translator, status in translations:
        people[translator]["translated"] += 1
        people[translator][status] += 1
    for author, _translation, suspected, spent, _number in versions:
        seconds[author] += spent
        if suspected:
            people[author]["flagged"] += 1
    for verifier, translation, outcome, spent in verifications:
        seconds[verifier] += spent
        people[verifier]["verified"] += 1
        final = status_of.get(translation)
        if final in (Translation.Status.ACCEPTED, Translation.Status.REJECTED):
            people[verifier]["decided"] += 1
            agreed = (outcome in (Verification.Outcome.ACCEPT, Verification.Outcome.EDIT)) == (
                final == Translation.Status.ACCEPTED)
            people[verifier]["agreed"] += agreed
    rate = rate or batch_rate(batch)
    paid = paid_per_speaker(batch)
    labels = speaker_labels(batch.organization, sorted(people))
    rows = []
    for person in sorted(people, key=lambda pk: labels[pk]):
        counts = people[person]
        rows.append(SpeakerFigures(
            person, labels[person], counts["translated"], counts[Translation.Status.ACCEPTED],
            counts[Translation.Status.REJECTED], counts["flagged"], counts["verified"],
            counts["agreed"] / counts["decided"] if counts["decided"] else None, round(seconds[person], 1),
            owed_for(seconds[person], counts[Translation.Status.ACCEPTED], batch, rate),
            paid.get(person, in_cents(None))))
    return rows


def repeatedly_flagged(figures: list[SpeakerFigures], at_least: int = 2) -> list[SpeakerFigures]:
    """Translators with several translations that resembled machine output: shown to the curator, never acted on
    automatically."""
    return [row for row in figures if row.flagged >= at_least]


def flagged_versions(batch: Batch) -> QuerySet[TranslationVersion]:
    return (TranslationVersion.objects.filter(translation__source__batch=batch).exclude(suspected_system="")
            .select_related("translation__source").order_by("-created_at"))


def batch_cost(figures: list[SpeakerFigures]) -> Decimal | None:
    owed = [row.owed for row in figures if row.owed is not None]
    return sum(owed, Decimal(0)) if owed else None


def skip_counts(batch: Batch) -> dict[str, int]:
    counts = dict(Skip.objects.filter(source__batch=batch).values_list("reason").annotate(n=Count("pk")))
    return {reason: counts.get(reason, 0) for reason in SkipReason.values}
