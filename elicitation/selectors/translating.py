"""What a translator is given and what decides whether their translation is stored: the sources they may translate
and their translations sent back for revision (the queues, and what elicit.js holds ahead), a translation's current
version, and a translation's checks read in one round trip with its source's row locked.

The items ahead and the checks are compiled once per connection and prepared (common.compiled), as the rating loop's
are."""

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Exists, F, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from common.compiled import CompiledQuery, rows_together
from corpus.models import PUBLIC_SEGMENTS

from ..models import Batch, Skip, Source, Translation, TranslationVersion, Verification
from .access import PersonsChecks, serving_batches
from .machine_output import machine_output_reads

ACTIVE_TRANSLATION = [Translation.Status.SUBMITTED, Translation.Status.REVISION, Translation.Status.ACCEPTED]
UPCOMING = 20
"""How many items ahead elicit.js holds (as rate.js does): a while of work without a connection, a small download,
and one fetch for about fifteen items."""


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


# A translation's checks, read in one round trip once its source's row is locked (inside the caller's transaction), as
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
    problem: str | None  # why the speaker may not translate in the batch (`qualification_problem`)
    counted_until: datetime | None  # where the speaker's work clock stands (locked)
    machine_outputs: list[list[tuple]]  # the stored outputs for the source's text (`closest_machine_output`)


def lock_translating_target(source: Source, speaker, client_id: uuid.UUID, *, timed: bool) -> TranslatingChecks | None:
    """Lock the source's row (inside the caller's transaction: translations of one source are stored one at a time)
    and read what decides whether the speaker's translation is stored, the speaker's qualification and work clock
    (`PersonsChecks`) and the machine outputs it is compared with, in one round trip; None when there is no such
    source."""
    person, outputs = PersonsChecks(speaker, source.batch, timed=timed), machine_output_reads(source)
    locked, checks, *found = rows_together(
        (_SOURCE_LOCK, {"source": source.pk}),
        (_TRANSLATING_CHECKS, {"source": source.pk, "speaker": speaker.pk, "client_id": client_id}),
        *person.runs, *outputs)
    if not locked or not checks:
        return None
    problem, counted_until = person.read(found[:len(person.runs)])
    status, serving, skipped, taken, own, own_status, sent_for, per_source, guideline_version = checks[0]
    return TranslatingChecks(status, serving, skipped, taken, own, own_status, sent_for, per_source, guideline_version,
                             problem, counted_until, found[len(person.runs):])
