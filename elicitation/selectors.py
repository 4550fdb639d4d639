"""Every read of elicitation that has a rule: whether a batch serves, who may translate and verify it, what each
person is given next, what a translation is compared with, and the figures curators see. Translating pages never read
machine output: the only read of stored predictions is `closest_machine_output`, on the server, after submission."""

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Count, Q, QuerySet, Sum

from corpus.models import SECRET_SEGMENTS, ConsentUse, Domain, Register, Segment
from corpus.selectors import READINESS_MINIMUMS, consent_filter, has_consent
from leaderboard.models import RunCardResult
from ledger.models import Payment, PayPolicy
from ledger.selectors import (
    Rate,
    amount_owed,
    in_cents,
    paid_per_speaker,
    rate_in_force,
    speaker_labels,
    stored_pay_policy,
)
from organizations.audit import record_secret_access
from organizations.models import Role
from organizations.selectors import org_ids_with_roles
from speakers.selectors import Requirement, qualification_problems, qualified_for_each

from .models import (
    Batch,
    DeclaredConflict,
    Skip,
    SkipReason,
    Source,
    Translation,
    TranslationVersion,
    Verification,
)
from .texts import MACHINE_LIKE_CHRF, chrf

WORKING_ROLES = (Role.SPEAKER, Role.CURATOR, Role.GOVERNANCE)
ACTIVE_TRANSLATION = [Translation.Status.SUBMITTED, Translation.Status.REVISION, Translation.Status.ACCEPTED]


def serving_batches() -> Q:
    """Batches that serve work: open, and their community's consent to corpus creation in force (the one rule,
    read on every request, so that revoking the consent pauses them at the next one)."""
    return Q(status=Batch.Status.OPEN) & consent_filter(ConsentUse.CORPUS_CREATION, "dataset")


def is_serving(batch: Batch) -> bool:
    return batch.status == Batch.Status.OPEN and has_consent(batch.dataset, ConsentUse.CORPUS_CREATION)


def requirement(batch: Batch) -> Requirement:
    """The qualification a translator or verifier of the batch needs: the same one as a reviewer of the pair
    (speakers.selectors.Requirement), in the batch's variety and the target tag's script."""
    return Requirement.of(batch.organization, batch.source_language, batch.target_language, batch.variety)


def qualification_problem(user, batch: Batch) -> str | None:
    """Why `user` may not translate or verify in the batch, or None."""
    if batch.organization_id not in org_ids_with_roles(user, WORKING_ROLES):
        return str(batch.organization)
    return qualification_problems(requirement(batch), [user.pk]).get(user.pk)


def batches_for(user) -> list[Batch]:
    """The serving batches of the user's organizations that they are qualified for (two queries, however many)."""
    batches = list(Batch.objects.filter(serving_batches(), organization_id__in=org_ids_with_roles(user, WORKING_ROLES))
                   .select_related("organization", "dataset").order_by("-created_at"))
    qualified = qualified_for_each(user.pk, [requirement(batch) for batch in batches])
    return [batch for batch, ok in zip(batches, qualified, strict=True) if ok]


def current_version(translation: Translation) -> TranslationVersion:
    return translation.versions.order_by("-number").first()  # type: ignore[return-value]


def translation_slots_left(source: Source) -> int:
    taken = source.translations.filter(status__in=ACTIVE_TRANSLATION).count()
    return source.batch.translations_per_source - taken


def to_translate(user, batch: Batch) -> QuerySet[Source]:
    """Sources of the batch the user may translate now, in the batch's order: open, not translated nor skipped by
    them, still short of translations."""
    return (batch.sources.filter(status=Source.Status.OPEN)
            .exclude(translations__translator=user).exclude(skips__speaker=user)
            .annotate(taken=Count("translations", filter=Q(translations__status__in=ACTIVE_TRANSLATION)))
            .filter(taken__lt=batch.translations_per_source).order_by("position"))


def to_revise(user, batch: Batch) -> QuerySet[Translation]:
    return (Translation.objects.filter(source__batch=batch, translator=user, status=Translation.Status.REVISION)
            .select_related("source").order_by("source__position"))


def revision_notes(translation: Translation) -> list[Verification]:
    return list(translation.verifications.filter(outcome=Verification.Outcome.REVISE).order_by("created_at"))


def to_verify(user, batch: Batch) -> QuerySet[Translation]:
    """Translations of the batch waiting for verification that the user may verify: not theirs, not of a translator
    they declared a conflict with, not already judged by them in their current version."""
    conflicted = DeclaredConflict.objects.filter(batch=batch, verifier=user).values("translator_id")
    judged = Verification.objects.filter(verifier=user, stale_at__isnull=True).values("translation_id")
    return (Translation.objects.filter(source__batch=batch, status=Translation.Status.SUBMITTED)
            .exclude(translator=user).exclude(translator_id__in=conflicted).exclude(pk__in=judged)
            .select_related("source").order_by("source__position", "created_at"))


def verification_items(user, batch: Batch, limit: int,
                       segments: Sequence[str] = ()) -> list[tuple[Translation, TranslationVersion]]:
    """The user's next translations to verify with their current version, of sources in `segments` when given (two
    queries)."""
    queue = to_verify(user, batch)
    if segments:
        queue = queue.filter(source__segment__in=segments)
    translations = list(queue[: limit * 3])
    latest: dict[int, TranslationVersion] = {}
    for version in TranslationVersion.objects.filter(translation__in=translations).order_by("number"):
        latest[version.translation_id] = version
    items = [(t, latest[t.pk]) for t in translations if latest[t.pk].author_id != user.pk]
    return items[:limit]


@dataclass(frozen=True)
class MachineMatch:
    system: str
    score: float


def closest_machine_output(source: Source, text: str) -> MachineMatch | None:
    """The stored machine output (a leaderboard run's prediction for an entry with this very source text) closest to
    `text` by chrF++, when at least MACHINE_LIKE_CHRF. Read on the server after a translation is submitted, never
    to build a page."""
    predictions = (RunCardResult.objects.filter(entry__source__in={source.text, source.text.strip()})
                   .exclude(predicted="").values_list("predicted", "run_card__model_slug")[:500])
    best: MachineMatch | None = None
    for predicted, system in predictions:
        score = chrf(text, predicted)
        if score >= MACHINE_LIKE_CHRF and (best is None or score > best.score):
            best = MachineMatch(system, round(score, 1))
    return best


# What the curator sees.


@dataclass(frozen=True)
class MatrixRow:
    difficulty: int
    by_register: list[int]
    total: int


def coverage_matrix(batch: Batch) -> dict:
    """Counts of the batch's sources per difficulty tier × register, and per domain, beside what benchmark readiness
    asks (§11.1): three of five tiers, two registers, each segment's minimum."""
    rows = (batch.sources.exclude(status=Source.Status.RETIRED).values("difficulty", "register", "domain", "segment")
            .annotate(n=Count("pk")))
    cells: Counter = Counter()
    domains: Counter = Counter()
    segments: Counter = Counter()
    domain_tiers: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        cells[(row["difficulty"], row["register"])] += row["n"]
        domains[row["domain"]] += row["n"]
        segments[row["segment"]] += row["n"]
        domain_tiers[row["domain"]][row["difficulty"]] += row["n"]
    registers = list(Register.values)
    matrix = [MatrixRow(tier, [cells[(tier, register)] for register in registers],
                        sum(cells[(tier, register)] for register in registers)) for tier in range(1, 6)]
    tiers = sum(1 for row in matrix if row.total)
    used_registers = sum(1 for index in range(len(registers)) if any(row.by_register[index] for row in matrix))
    return {
        "registers": registers, "rows": matrix,
        "domains": [(domain, domains[domain], [domain_tiers[domain][tier] for tier in range(1, 6)])
                    for domain in Domain.values if domains[domain]],
        "segments": [(segment, segments[segment], minimum, max(0, minimum - segments[segment]))
                     for segment, minimum in READINESS_MINIMUMS.items()],
        "tiers": tiers, "tiers_ok": tiers >= 3, "register_count": used_registers, "registers_ok": used_registers >= 2,
        "total": sum(domains.values()),
    }


def held_sources(batch: Batch) -> QuerySet[Source]:
    """Sources speakers sent back (two found them erroneous or inappropriate), with their skips."""
    return batch.sources.filter(status=Source.Status.HELD).prefetch_related("skips").order_by("position")


def batch_progress(batch: Batch) -> dict:
    """Per tier and per domain: sources, translated, accepted, rejected (three queries)."""
    per: dict[tuple[str, object], Counter] = defaultdict(Counter)
    for difficulty, domain, n in batch.sources.exclude(status=Source.Status.RETIRED).values_list(
            "difficulty", "domain").annotate(n=Count("pk")):
        per[("tier", difficulty)]["sources"] += n
        per[("domain", domain)]["sources"] += n
    for difficulty, domain, status, n in (Translation.objects.filter(source__batch=batch)
                                          .values_list("source__difficulty", "source__domain", "status")
                                          .annotate(n=Count("pk"))):
        for key in (("tier", difficulty), ("domain", domain)):
            if status != Translation.Status.WITHDRAWN:
                per[key]["translated"] += n
            if status in (Translation.Status.ACCEPTED, Translation.Status.REJECTED):
                per[key][status] += n
    keys = ("sources", "translated", "accepted", "rejected")
    return {
        "tiers": [(tier, [per[("tier", tier)][key] for key in keys]) for tier in range(1, 6)
                  if per[("tier", tier)]["sources"]],
        "domains": [(domain, [per[("domain", domain)][key] for key in keys]) for domain in Domain.values
                    if per[("domain", domain)]["sources"]],
        "totals": [sum(per[("tier", tier)][key] for tier in range(1, 6)) for key in keys],
    }


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


def segment_choices() -> list[str]:
    return list(Segment.values)


def speaker_work(user) -> dict:
    """What a speaker has done in elicitation, for their own page: translations per status, verifications, time."""
    statuses = dict(Translation.objects.filter(translator=user).values_list("status").annotate(n=Count("pk")))
    return {"statuses": statuses, "verified": Verification.objects.filter(verifier=user).count()}


def withdrawable_work(user) -> dict[str, int]:
    """What the speaker's "withdraw everything" takes back of their elicited work, and what stays: translations not
    yet withdrawn, and of them those a frozen version holds."""
    translations = Translation.objects.filter(translator=user).exclude(status=Translation.Status.WITHDRAWN)
    kept = translations.filter(entries__version__frozen_at__isnull=False).values("pk").distinct().count()
    return {"withdrawable": translations.count() - kept, "kept": kept}


def record_shown_source(user, source: Source, where: str) -> None:
    """A page showing a gold_standard or held_out source — the text of a future secret entry — records it in the
    audit log as every page showing secret entries does (`secret_entries.shown`, with no-store caching)."""
    if source.segment in SECRET_SEGMENTS:
        record_secret_access(user, {source.batch.organization_id: 1}, where)
