"""Every read of elicitation that has a rule: whether a batch serves, who may translate and verify it, what each
person is given next, what a translation is compared with, and the figures curators see. Translating pages never read
machine output: the only read of stored predictions is `closest_machine_output`, on the server, after submission.

The reads of the translate and verify loops (the item and its batch, the items ahead, a submission's checks) are
compiled once per connection and prepared (common.compiled), as the rating loop's are: building them cost the ORM
more than PostgreSQL spent running them, on every item."""

import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import BooleanField, Count, Exists, ExpressionWrapper, F, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce

from common.compiled import CompiledQuery, loaded, rows_together
from corpus.models import (
    PUBLIC_SEGMENTS,
    SECRET_SEGMENTS,
    ConsentUse,
    Domain,
    Register,
    source_digest,
    source_digest_of,
)
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
UPCOMING = 20
"""How many items ahead elicit.js holds (as rate.js does): a while of work without a connection, a small download,
and one fetch for about fifteen items."""


def serving_batches(batch_path: str = "") -> Q:
    """Batches (reached through `batch_path`) that serve work: open, and their community's consent to corpus creation
    in force (the one rule, read on every request, so that revoking the consent pauses them at the next one)."""
    prefix = f"{batch_path}__" if batch_path else ""
    return Q(**{f"{prefix}status": Batch.Status.OPEN}) & consent_filter(ConsentUse.CORPUS_CREATION, f"{prefix}dataset")


def is_serving(batch: Batch) -> bool:
    return batch.status == Batch.Status.OPEN and has_consent(batch.dataset, ConsentUse.CORPUS_CREATION)


def serving_when_read(batch_path: str = "") -> ExpressionWrapper:
    """`serving_batches` as a column of the rows read: whether the batch served work when its page was read."""
    return ExpressionWrapper(serving_batches(batch_path), output_field=BooleanField())


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


# What a translate or verify page and a submission load: the item with its batch (its dataset and organization, and
# whether it served work when read: `serving_when_read`).
_WORKING_BATCH = CompiledQuery(
    lambda batch: Batch.objects.filter(public_id=batch).select_related("dataset", "organization")
    .annotate(serving_when_read=serving_when_read()).order_by()[:1],
    batch=uuid.UUID)
_WORKING_SOURCE = CompiledQuery(
    lambda source: Source.objects.filter(public_id=source).select_related("batch__dataset", "batch__organization")
    .annotate(batch_serving=serving_when_read("batch")).order_by()[:1],
    source=uuid.UUID)
_WORKING_TRANSLATION = CompiledQuery(
    lambda translation: Translation.objects.filter(public_id=translation)
    .select_related("source__batch__dataset", "source__batch__organization")
    .annotate(batch_serving=serving_when_read("source__batch")).order_by()[:1],
    translation=uuid.UUID)


def working_batch(public_id: uuid.UUID) -> Batch | None:
    """The batch with its dataset and organization, and `serving_when_read`."""
    found = _WORKING_BATCH.objects(batch=public_id)
    return found[0] if found else None


def working_source(public_id: uuid.UUID) -> Source | None:
    """The source with its batch (its dataset and organization, and `serving_when_read`)."""
    found = _WORKING_SOURCE.objects(source=public_id)
    if not found:
        return None
    found[0].batch.serving_when_read = found[0].batch_serving
    return found[0]


def working_translation(public_id: uuid.UUID) -> Translation | None:
    """The translation with its source and batch (its dataset and organization, and `serving_when_read`)."""
    found = _WORKING_TRANSLATION.objects(translation=public_id)
    if not found:
        return None
    found[0].source.batch.serving_when_read = found[0].batch_serving
    return found[0]


def current_version(translation: Translation) -> TranslationVersion:
    return translation.versions.order_by("-number").first()  # type: ignore[return-value]


def active_translations(source_path: str = "pk") -> Subquery:
    """How many translations of the source (`OuterRef(source_path)`) are in progress or accepted: what a source's
    translations per source are counted against."""
    return Subquery(Translation.objects.filter(source=OuterRef(source_path), status__in=ACTIVE_TRANSLATION)
                    .order_by().values("source").annotate(n=Count("pk")).values("n"))


def translatable_sources(speaker: int) -> QuerySet[Source]:
    """Sources the speaker may translate now, in any batch: open, not translated nor skipped by them, still short of
    their batch's translations per source (the rule; `sources_to_translate` takes one batch's in order)."""
    return (Source.objects.filter(status=Source.Status.OPEN)
            .exclude(Exists(Translation.objects.filter(source=OuterRef("pk"), translator=speaker)))
            .exclude(Exists(Skip.objects.filter(source=OuterRef("pk"), speaker=speaker)))
            .alias(taken=Coalesce(active_translations(), 0)).filter(taken__lt=F("batch__translations_per_source")))


def sources_to_translate(batch: int, speaker: int) -> QuerySet[Source]:
    """The batch's `translatable_sources` in the batch's order: read in position order until enough are found,
    never the whole batch."""
    return translatable_sources(speaker).filter(batch=batch).order_by("position")


def to_translate(user, batch: Batch) -> QuerySet[Source]:
    return sources_to_translate(batch.pk, user.pk)


def translations_to_revise(user) -> QuerySet[Translation]:
    """The person's translations sent back to them for revision, in any batch."""
    return Translation.objects.filter(translator=user, status=Translation.Status.REVISION)


def to_revise(user, batch: Batch) -> QuerySet[Translation]:
    return (translations_to_revise(user).filter(source__batch=batch).select_related("source")
            .order_by("source__position"))


def revision_details(translations: Sequence[Translation]) -> dict[int, tuple[str, list[str]]]:
    """Per translation sent back for revision, what its translator sees again: the text of its current version and
    the verifiers' notes, in order (two queries however many translations, none for none)."""
    if not translations:
        return {}
    ids = [translation.pk for translation in translations]
    texts = dict(TranslationVersion.objects.filter(translation__in=ids).order_by("translation_id", "number")
                 .values_list("translation_id", "text"))  # the last version of each is its current one
    notes: dict[int, list[str]] = defaultdict(list)
    for translation_id, comment in (Verification.objects.filter(translation__in=ids,
                                                                outcome=Verification.Outcome.REVISE)
                                    .order_by("created_at").values_list("translation_id", "comment")):
        notes[translation_id].append(comment)
    return {pk: (texts[pk], notes[pk]) for pk in ids}


_UPCOMING_SOURCES = CompiledQuery(
    lambda batch, speaker: sources_to_translate(batch, speaker).filter(segment__in=PUBLIC_SEGMENTS)[:UPCOMING],
    batch=int, speaker=int)
_UPCOMING_REVISIONS = CompiledQuery(
    lambda batch, speaker: Translation.objects.filter(source__batch=batch, translator=speaker,
                                                      status=Translation.Status.REVISION,
                                                      source__segment__in=PUBLIC_SEGMENTS)
    .select_related("source").order_by("source__position")[:UPCOMING],
    batch=int, speaker=int)


def upcoming_work(user, batch: Batch) -> tuple[list[Translation], list[Source]]:
    """What elicit.js holds ahead, of the public segments only (a phone never holds a secret source): the
    translations sent back to the speaker for revision, then the sources they may translate, UPCOMING of each at
    most, in the batch's order."""
    return (_UPCOMING_REVISIONS.objects(batch=batch.pk, speaker=user.pk),
            _UPCOMING_SOURCES.objects(batch=batch.pk, speaker=user.pk))


def verifiable_translations(verifier: int) -> QuerySet[Translation]:
    """Translations waiting for verification that the verifier may verify, in any batch: not theirs, not of a
    translator they declared a conflict with in that batch, not already judged by them in their current version."""
    return (Translation.objects.filter(status=Translation.Status.SUBMITTED)
            .exclude(translator=verifier)
            .exclude(Exists(DeclaredConflict.objects.filter(batch=OuterRef("source__batch_id"), verifier=verifier,
                                                            translator=OuterRef("translator_id"))))
            .exclude(Exists(Verification.objects.filter(translation=OuterRef("pk"), verifier=verifier,
                                                        stale_at__isnull=True))))


def translations_to_verify(batch: int, verifier: int) -> QuerySet[Translation]:
    """The batch's `verifiable_translations` in the order of its sources."""
    return (verifiable_translations(verifier).filter(source__batch=batch).select_related("source")
            .order_by("source__position", "created_at"))


def to_verify(user, batch: Batch) -> QuerySet[Translation]:
    return translations_to_verify(batch.pk, user.pk)


def current_versions_to_verify(batch: int, verifier: int) -> QuerySet[TranslationVersion]:
    """The current versions of `translations_to_verify` that the verifier did not write (an editing verifier never
    verifies their own edit), with their translations and sources, in the same order: read in the batch's order
    until enough are found, never the whole batch."""
    return (TranslationVersion.objects.filter(translation__source__batch=batch,
                                              translation__status=Translation.Status.SUBMITTED)
            .exclude(translation__translator=verifier).exclude(author=verifier)
            .exclude(Exists(DeclaredConflict.objects.filter(batch=batch, verifier=verifier,
                                                            translator=OuterRef("translation__translator_id"))))
            .exclude(Exists(Verification.objects.filter(translation=OuterRef("translation_id"), verifier=verifier,
                                                        stale_at__isnull=True)))
            .exclude(Exists(TranslationVersion.objects.filter(translation=OuterRef("translation_id"),
                                                              number__gt=OuterRef("number"))))
            .select_related("translation__source")
            .order_by("translation__source__position", "translation__created_at"))


_NEXT_TO_VERIFY = CompiledQuery(lambda batch, verifier: current_versions_to_verify(batch, verifier)[:1],
                                batch=int, verifier=int)
_UPCOMING_TO_VERIFY = CompiledQuery(
    lambda batch, verifier: current_versions_to_verify(batch, verifier)
    .filter(translation__source__segment__in=PUBLIC_SEGMENTS)[:UPCOMING],
    batch=int, verifier=int)


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


def next_to_verify(user, batch: Batch) -> Translation | None:
    """The translation the verify page shows next (of any segment)."""
    found = _NEXT_TO_VERIFY.objects(batch=batch.pk, verifier=user.pk)
    return found[0].translation if found else None


def upcoming_to_verify(user, batch: Batch) -> list[tuple[Translation, TranslationVersion]]:
    """What elicit.js holds ahead on the verify page: the next UPCOMING translations of the public segments with
    their current versions (a phone never holds a secret source)."""
    return [(version.translation, version) for version in _UPCOMING_TO_VERIFY.objects(batch=batch.pk,
                                                                                       verifier=user.pk)]


# A submission's checks, read in one round trip once its item's row is locked (inside the caller's transaction), as
# the rating post's are (review.selectors.rating.lock_rating_target).
_SOURCE_LOCK = CompiledQuery(
    lambda source: Source.objects.select_for_update(of=("self",)).filter(pk=source).order_by().values_list("pk"),
    source=int)
_TRANSLATING_CHECKS = CompiledQuery(
    lambda source, speaker, client_id: Source.objects.filter(pk=source).order_by().annotate(
        serving=Exists(Batch.objects.filter(serving_batches(), pk=OuterRef("batch_id"))),
        skipped=Exists(Skip.objects.filter(source=OuterRef("pk"), speaker=speaker)),
        taken=Coalesce(active_translations(), 0),
        own=Subquery(Translation.objects.filter(source=OuterRef("pk"), translator=speaker).values("pk")[:1]),
        own_status=Subquery(Translation.objects.filter(source=OuterRef("pk"), translator=speaker)
                            .values("status")[:1]),
        sent_for=Subquery(TranslationVersion.objects.filter(client_id=client_id).values("pk")[:1]),
    ).values_list("status", "serving", "skipped", "taken", "own", "own_status", "sent_for",
                  "batch__translations_per_source", "batch__guideline_version"),
    source=int, speaker=int, client_id=uuid.UUID)


@dataclass(frozen=True)
class TranslatingChecks:
    status: str  # the source's status
    serving: bool  # the batch serves work now (`serving_batches`)
    skipped: bool  # the speaker skipped the source
    taken: int  # translations of the source in progress or accepted
    own: int | None  # the speaker's translation of the source
    own_status: str | None
    sent_for: int | None  # the version a submission with this client id stored already
    translations_per_source: int
    guideline_version: int


def lock_translating_target(source: int, speaker: int, client_id: uuid.UUID) -> TranslatingChecks | None:
    """Lock the source's row (inside the caller's transaction: translations of one source are stored one at a time)
    and read what decides whether the speaker's translation is stored, in one round trip; None when there is no
    such source."""
    locked, checks = rows_together((_SOURCE_LOCK, {"source": source}),
                                   (_TRANSLATING_CHECKS, {"source": source, "speaker": speaker,
                                                          "client_id": client_id}))
    return TranslatingChecks(*checks[0]) if locked and checks else None


_TRANSLATION_LOCK = CompiledQuery(
    lambda translation: Translation.objects.select_for_update(of=("self",)).filter(pk=translation).order_by()
    .values_list("status", "revision_rounds"),
    translation=int)
_VERIFYING_CHECKS = CompiledQuery(
    lambda translation, verifier, client_id: Translation.objects.filter(pk=translation).order_by().annotate(
        serving=Exists(Batch.objects.filter(serving_batches(), pk=OuterRef("source__batch_id"))),
        conflicted=Exists(DeclaredConflict.objects.filter(batch=OuterRef("source__batch_id"), verifier=verifier,
                                                          translator=OuterRef("translator_id"))),
        judged=Exists(Verification.objects.filter(translation=OuterRef("pk"), verifier=verifier,
                                                  stale_at__isnull=True)),
        sent_for=Subquery(Verification.objects.filter(client_id=client_id).values("pk")[:1]),
    ).values_list("serving", "conflicted", "judged", "sent_for"),
    translation=int, verifier=int, client_id=uuid.UUID)
VERSION_FIELDS = ("id", "translation_id", "number", "text", "author_id", "morphological_analysis",
                  "suspected_system", "suspected_chrf")
_CURRENT_VERSION = CompiledQuery(
    lambda translation: TranslationVersion.objects.filter(translation=translation).order_by("-number")
    .annotate(accepts=Coalesce(Subquery(
        Verification.objects.filter(version=OuterRef("pk"), stale_at__isnull=True, outcome=Verification.Outcome.ACCEPT)
        .order_by().values("version").annotate(n=Count("verifier", distinct=True)).values("n")), 0))
    .values_list(*VERSION_FIELDS, "accepts")[:1],
    translation=int)


@dataclass(frozen=True)
class VerifyingChecks:
    status: str  # the translation's status
    revision_rounds: int
    version: TranslationVersion  # its current version
    accepts: int  # how many distinct people accepted the current version (accepts of earlier ones are stale)
    serving: bool  # the batch serves work now (`serving_batches`)
    conflicted: bool  # the verifier declared a conflict of interest with the translator
    judged: bool  # the verifier has a verification of the translation in force
    sent_for: int | None  # the verification a submission with this client id stored already


def lock_verifying_target(translation: int, verifier: int, client_id: uuid.UUID) -> VerifyingChecks | None:
    """Lock the translation's row (inside the caller's transaction) and read its current version and what decides
    whether the verifier's verdict is stored, in one round trip; None when there is no such translation."""
    locked, checks, versions = rows_together(
        (_TRANSLATION_LOCK, {"translation": translation}),
        (_VERIFYING_CHECKS, {"translation": translation, "verifier": verifier, "client_id": client_id}),
        (_CURRENT_VERSION, {"translation": translation}))
    if not locked or not checks or not versions:
        return None
    (status, revision_rounds), (serving, conflicted, judged, sent_for) = locked[0], checks[0]
    *version, accepts = versions[0]
    return VerifyingChecks(status, revision_rounds, loaded(TranslationVersion, VERSION_FIELDS, version), accepts,
                           serving, conflicted, judged, sent_for)


@dataclass(frozen=True)
class MachineMatch:
    system: str
    score: float


MAX_MACHINE_OUTPUTS = 500
"""The stored outputs a submission is compared with at most (a source scored by that many runs is rare)."""

# Run-card results by their entry's source text, found through the index of the texts' digests (corpus
# `entry_source_digest`); the text itself comes along, so that a digest shared by another text never counts.
_MACHINE_OUTPUTS = CompiledQuery(
    lambda digest: RunCardResult.objects.alias(source_digest=source_digest_of("entry"))
    .filter(source_digest=digest).exclude(predicted="").order_by()
    .values_list("predicted", "run_card__model_slug", "entry__source")[:MAX_MACHINE_OUTPUTS],
    digest=uuid.UUID)


def closest_machine_output(source: Source, text: str) -> MachineMatch | None:
    """The stored machine output (a leaderboard run's prediction for an entry with this very source text) closest to
    `text` by chrF++, when at least MACHINE_LIKE_CHRF. Read on the server after a translation is submitted, never
    to build a page."""
    texts = {source.text, source.text.strip()}
    best: MachineMatch | None = None
    scores: dict[str, float] = {}
    for digest in {source_digest(text_) for text_ in texts}:
        for predicted, system, entry_source in _MACHINE_OUTPUTS.rows(digest=digest):
            if entry_source not in texts:
                continue
            if predicted not in scores:  # outputs many runs share are scored once
                scores[predicted] = chrf(text, predicted)
            score = scores[predicted]
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
