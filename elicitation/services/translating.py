"""A speaker's translations and skips, each stored once: a submission whose client id is stored already stores
nothing new and returns what was stored. A translation is timed by the server (`timed_seconds`) and compared with the
stored machine outputs for its source (`new_version`), as a verifier's edit is."""

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from common import compiled
from ledger.models import MAX_RATING_SECONDS
from ledger.worktime import SET_WORK_CLOCK, paid_seconds

from ..models import (
    MAX_TEXT_LENGTH,
    SKIPS_TO_CURATOR,
    Batch,
    Skip,
    SkipReason,
    Source,
    Translation,
    TranslationVersion,
)
from ..selectors.machine_output import closest_machine_output
from ..selectors.translating import current_version, lock_translating_target
from ..texts import text_key
from .errors import AlreadyDone, ElicitationError, ensure_qualified, ensure_serving, not_serving, refuse_unqualified

MAX_ITEM_SECONDS = MAX_RATING_SECONDS
"""The most one translation or verification's working time may count, whatever happened in between."""


@dataclass
class TranslationSubmission:
    client_id: uuid.UUID
    text: str
    analysis: str = ""
    shown_at: datetime | None = None
    pasted: bool | None = None
    typed_characters: int | None = None


def checked_translation_text(text: str, source: Source, field: str = "text") -> str:
    text = text.strip()
    if not text:
        raise ElicitationError(_("The translation is empty: write it in the box."), field)
    if len(text) > MAX_TEXT_LENGTH:
        raise ElicitationError(_("The translation is %(length)d characters long; at most %(limit)d are taken.")
                               % {"length": len(text), "limit": MAX_TEXT_LENGTH}, field)
    if text_key(text) == source.text_key:
        raise ElicitationError(_("The translation is the source text itself: write it in the target language."),
                               field)
    return text


def timed_seconds(actor: User, shown_at: datetime | None,
                  counted_until: datetime | None) -> tuple[float, list[tuple[str, list]]]:
    """The server's measure of the work's time: from when it showed the item, capped, and paid only as far as the
    person's work clock allows (ledger.worktime: `counted_until`, read locked with the submission's checks), so that
    items held together on a phone, or rated in review meanwhile, never count more than the wall time between them;
    with the statement that moves the clock on, sent with the work's insert."""
    if shown_at is None:
        return 0.0, []
    now = timezone.now()
    claimed = min(MAX_ITEM_SECONDS, max(0.0, (now - shown_at).total_seconds()))
    paid, until = paid_seconds(claimed, shown_at=shown_at, counted_until=counted_until, now=now)
    return paid, [(SET_WORK_CLOCK, [actor.pk, until])]


def new_version(translation: Translation, *, number: int, text: str, author: User, client_id: uuid.UUID,
                analysis: str = "", pasted: bool | None = None, typed: int | None = None,
                guideline_version: int | None = None, machine_outputs: list[list[tuple]] | None = None,
                seconds: float = 0.0, along: Sequence[tuple[str, Sequence]] = ()) -> TranslationVersion:
    """A new version of the translation (its guideline version, when not given, the batch's), compared with the
    stored machine outputs for its source (`machine_outputs` when read with the submission's checks), stored with
    the statements `along` it (the work clock's)."""
    match = closest_machine_output(translation.source, text, machine_outputs)
    version = TranslationVersion(
        client_id=client_id, translation=translation, number=number, text=text, author=author,
        guideline_version=guideline_version or translation.source.batch.guideline_version,
        morphological_analysis=analysis.strip()[:MAX_TEXT_LENGTH],
        suspected_system=match.system if match else "", suspected_chrf=match.score if match else None,
        pasted=pasted, typed_characters=typed, seconds=seconds)
    compiled.insert(version, along=along)
    return version


def submit_translation(*, actor: User, source: Source,
                       submission: TranslationSubmission) -> tuple[TranslationVersion, bool]:
    """Store a speaker's translation of `source` once (a first one, or a revision asked for): the stored version and
    whether it is new. It is compared with every stored machine output for the source and flagged when close."""
    try:
        with transaction.atomic():
            return store_translation(actor, source, submission)
    except IntegrityError:
        existing = TranslationVersion.objects.filter(client_id=submission.client_id).select_related(
            "translation").first()
        if existing is None:
            raise AlreadyDone(_("You have already translated this source.")) from None
        return same_submission(existing, actor, source), False


def same_submission(existing: TranslationVersion, actor: User, source: Source) -> TranslationVersion:
    if existing.author_id != actor.pk or existing.translation.source_id != source.pk:
        raise ElicitationError(_("This submission id belongs to other work; reload the page."), "client_id")
    return existing


def store_translation(actor: User, source: Source,
                      submission: TranslationSubmission) -> tuple[TranslationVersion, bool]:
    """The translation's transaction: lock the source and read everything that decides (the serving rule, the
    speaker's own translation or skip, the translations it has, the client id, the speaker's qualification and work
    clock, the machine outputs to compare with) in one round trip, then store."""
    checks = lock_translating_target(source, actor, submission.client_id, timed=submission.shown_at is not None)
    if checks is None:  # sources are never deleted while translations hold them
        raise Source.DoesNotExist(source.pk)
    refuse_unqualified(checks.problem)
    if checks.sent_for is not None:
        existing = TranslationVersion.objects.select_related("translation").get(pk=checks.sent_for)
        return same_submission(existing, actor, source), False
    if not checks.serving:
        raise not_serving(Batch.objects.select_related("dataset").get(pk=source.batch_id))
    text = checked_translation_text(submission.text, source)
    if checks.own is not None:
        if checks.own_status != Translation.Status.REVISION:
            raise AlreadyDone(_("You have already translated this source."))
        translation = Translation.objects.select_for_update().get(pk=checks.own)
        translation.source = source
        number = current_version(translation).number + 1
        translation.status = Translation.Status.SUBMITTED
        translation.save(update_fields=["status"])
    else:
        if checks.status != Source.Status.OPEN:
            raise AlreadyDone(_("This source is no longer served for translation."))
        if checks.skipped:
            raise AlreadyDone(_("You skipped this source."))
        if checks.taken >= checks.translations_per_source:
            raise AlreadyDone(_("This source has all the translations it needs."))
        translation = Translation(source=source, translator=actor)
        compiled.insert(translation)
        number = 1
    seconds, clock = timed_seconds(actor, submission.shown_at, checks.counted_until)
    return new_version(translation, number=number, text=text, author=actor, client_id=submission.client_id,
                       analysis=submission.analysis, pasted=submission.pasted, typed=submission.typed_characters,
                       guideline_version=checks.guideline_version, machine_outputs=checks.machine_outputs,
                       seconds=seconds, along=clock), True


def skip_source(*, actor: User, source: Source, client_id: uuid.UUID, reason: str, note: str = "") -> tuple[Skip, bool]:
    """The speaker passes on a source, saying why. When SKIPS_TO_CURATOR distinct speakers found it erroneous or
    inappropriate, it stops being served and goes back to the curator."""
    stored = Skip.objects.filter(client_id=client_id).first()
    if stored is not None:
        if stored.speaker_id != actor.pk or stored.source_id != source.pk:
            raise ElicitationError(_("This submission id belongs to other work; reload the page."), "client_id")
        return stored, False
    if reason not in SkipReason.values:
        raise ElicitationError(_("Choose why you skip it: %(choices)s.") % {"choices": ", ".join(SkipReason.values)},
                               "reason")
    if len(note) > MAX_TEXT_LENGTH:
        raise ElicitationError(_("The note is limited to %(limit)d characters.") % {"limit": MAX_TEXT_LENGTH}, "note")
    with transaction.atomic():
        source = Source.objects.select_for_update().select_related("batch__dataset").get(pk=source.pk)
        ensure_serving(source.batch)
        ensure_qualified(actor, source.batch)
        if Translation.objects.filter(source=source, translator=actor).exists():
            raise AlreadyDone(_("You have already translated this source."))
        skip, created = Skip.objects.get_or_create(source=source, speaker=actor, defaults={
            "client_id": client_id, "reason": reason, "note": note.strip()})
        if created and source.status == Source.Status.OPEN and source.skips.filter(
                reason__in=[SkipReason.SOURCE_ERROR, SkipReason.INAPPROPRIATE]).count() >= SKIPS_TO_CURATOR:
            source.status = Source.Status.HELD
            source.save(update_fields=["status"])
        return skip, created
