"""Every write of elicitation, each inside one transaction: batches and their sources, translations, skips,
verifications and analysis checks, and accepted translations into a dataset version. A submission whose client id is
stored already stores nothing new and returns what was stored."""

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from common import compiled, errors
from common.errors import ApplicationError, Conflict
from corpus.models import ConsentUse, Dataset, DatasetVersion, Entry, Segment
from corpus.selectors import has_consent
from corpus.services import add_entries, remove_entries
from ledger.models import CURRENCY_PATTERN, MAX_RATING_SECONDS
from ledger.selectors import credited_names
from ledger.worktime import claim_working_time
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require

from .models import (
    MAX_REVISION_ROUNDS,
    MAX_TEXT_LENGTH,
    SKIPS_TO_CURATOR,
    AnalysisCheck,
    Batch,
    DeclaredConflict,
    ElicitedEntry,
    Skip,
    SkipReason,
    Source,
    Translation,
    TranslationVersion,
    Verification,
)
from .selectors.access import is_serving, qualification_problem  # noqa: F401 - services offer is_serving
from .selectors.machine_output import closest_machine_output
from .selectors.translating import current_version, lock_translating_target
from .selectors.verifying import lock_verifying_target
from .sources import SourceRow, checked_rows
from .texts import text_key

MAX_ITEM_SECONDS = MAX_RATING_SECONDS
"""The most one translation or verification's working time may count, whatever happened in between."""


class ElicitationError(ApplicationError):
    pass


class NotAllowed(ElicitationError, errors.NotAllowed):
    """The actor may not do this (a verification of one's own work; not qualified)."""


class NotQualified(NotAllowed):
    """The actor is not among the batch's qualified translators and verifiers (pages answer as if it did not
    exist)."""


class NotServing(ElicitationError, Conflict):
    """The batch is paused, closed, or its community's consent to corpus creation is no longer in force."""


class AlreadyDone(ElicitationError, Conflict):
    pass


def ensure_serving(batch: Batch) -> None:
    if not is_serving(batch):
        raise not_serving(batch)


def not_serving(batch: Batch) -> NotServing:
    """Why the batch takes no work (its consent, else its status)."""
    if not has_consent(batch.dataset, ConsentUse.CORPUS_CREATION):
        return NotServing(_("This batch is paused: its community's consent to corpus creation is no longer in "
                            "force."))
    return NotServing(_("This batch is not taking work at the moment (%(status)s).")
                      % {"status": batch.get_status_display()})


def ensure_qualified(actor: User, batch: Batch) -> None:
    problem = qualification_problem(actor, batch)
    if problem:
        raise NotQualified(_("You may not work on this batch: %(reason)s.") % {"reason": problem})


# Batches and their sources.


@dataclass
class BatchSettings:
    title: str
    source_language: str
    target_language: str
    guideline: str
    variety: str = ""
    translations_per_source: int = 1
    verifications_per_translation: int = 1
    hourly_rate: Decimal | None = None
    currency: str = ""
    amount_per_accepted: Decimal | None = None


TAG_PATTERN = r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$"


def settings_problems(values: BatchSettings) -> dict[str, str]:
    import re

    problems = {}
    if not values.title.strip() or len(values.title) > 200:
        problems["title"] = _("Give the batch a title of at most 200 characters.")
    for name in ("source_language", "target_language"):
        if not re.match(TAG_PATTERN, getattr(values, name).strip()):
            problems[name] = _("Give a BCP 47 language tag, such as en or crk-Latn.")
    if not values.guideline.strip():
        problems["guideline"] = _("Write the guideline translators read with every source.")
    if len(values.variety) > 100:
        problems["variety"] = _("The variety is limited to 100 characters.")
    if not 1 <= values.translations_per_source <= 5:
        problems["translations_per_source"] = _("Between 1 and 5 translations per source.")
    if not 1 <= values.verifications_per_translation <= 5:
        problems["verifications_per_translation"] = _("Between 1 and 5 verifications per translation.")
    paid = values.hourly_rate is not None or values.amount_per_accepted is not None
    if paid and not re.match(CURRENCY_PATTERN, values.currency):
        problems["currency"] = _("Give the pay's currency as an ISO 4217 code, such as CAD.")
    if values.hourly_rate is not None and values.hourly_rate < 0:
        problems["hourly_rate"] = _("The hourly rate cannot be negative.")
    if values.amount_per_accepted is not None and values.amount_per_accepted <= 0:
        problems["amount_per_accepted"] = _("The amount per accepted translation must be more than zero.")
    return problems


@transaction.atomic
def create_batch(*, actor: User, dataset: Dataset, values: BatchSettings,
                 rows: list[SourceRow] | None = None) -> Batch:
    """A new batch for one of the curator's datasets, with its first sources when given. The dataset's community
    must have consented to corpus creation."""
    require(actor, "dataset.curate", dataset, NotAllowed)
    if not has_consent(dataset, ConsentUse.CORPUS_CREATION):
        raise ElicitationError(_("%(dataset)s has no consent in force covering corpus creation: its governance staff "
                                 "record one first.") % {"dataset": dataset.identifier}, "dataset",
                               kind=errors.ErrorKind.CONFLICT)
    problems = settings_problems(values)
    if problems:
        field, message = next(iter(problems.items()))
        raise ElicitationError(message, field)
    paid = values.hourly_rate is not None or values.amount_per_accepted is not None
    batch = Batch.objects.create(
        organization_id=dataset.organization_id, dataset=dataset, title=values.title.strip(),
        source_language=values.source_language.strip(), target_language=values.target_language.strip(),
        variety=" ".join(values.variety.split()), guideline=values.guideline.strip(),
        translations_per_source=values.translations_per_source,
        verifications_per_translation=values.verifications_per_translation,
        hourly_rate=values.hourly_rate, currency=values.currency if paid else "",
        amount_per_accepted=values.amount_per_accepted, created_by=actor)
    record_event(AuditAction.ELICITATION_BATCH_CREATED, actor=actor, organization=dataset.organization, obj=batch,
                 details={"dataset": dataset.identifier, "target_language": batch.target_language})
    if rows:
        store_sources(batch, rows)
    return batch


def store_sources(batch: Batch, rows: list[SourceRow]) -> list[Source]:
    last = batch.sources.aggregate(last=Max("position"))["last"]
    start = 0 if last is None else last + 1
    return Source.objects.bulk_create([
        Source(batch=batch, position=start + index, text=row.text, text_key=row.key, context=row.context,
               difficulty=row.difficulty, register=row.register, domain=row.domain, segment=row.segment,
               origin=row.origin, origin_name=row.origin_name, origin_license=row.origin_license)
        for index, row in enumerate(rows)])


@transaction.atomic
def add_sources(*, actor: User, batch: Batch, raw_rows: list[tuple[str, dict]]) -> list[Source]:
    """Add sources read from a page, a file or the API: all of them, or none when any is wrong
    (SourceFileError lists every problem with its row)."""
    require(actor, "dataset.curate", batch.dataset, NotAllowed)
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    if batch.status == Batch.Status.CLOSED:
        raise AlreadyDone(_("This batch is closed; create a new one."))
    rows = checked_rows(raw_rows, set(batch.sources.values_list("text_key", flat=True)))
    try:
        with transaction.atomic():
            return store_sources(batch, rows)
    except IntegrityError as error:  # a concurrent upload of the same text
        raise AlreadyDone(_("Another upload added some of these sources meanwhile; nothing was added. Send the file "
                            "again to see which.")) from error


@transaction.atomic
def set_batch_status(*, actor: User, batch: Batch, status: str) -> Batch:
    require(actor, "dataset.curate", batch.dataset, NotAllowed)
    if status not in Batch.Status.values:
        raise ElicitationError(_("Unknown status."), "status")
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    if batch.status == Batch.Status.CLOSED:
        raise AlreadyDone(_("This batch is closed."))
    batch.status = status
    batch.save(update_fields=["status"])
    return batch


@transaction.atomic
def update_guideline(*, actor: User, batch: Batch, guideline: str) -> Batch:
    """A new guideline for the batch, its version counted on: each translation records the version it was written
    under, and its entry says so."""
    require(actor, "dataset.curate", batch.dataset, NotAllowed)
    if not guideline.strip():
        raise ElicitationError(_("Write the guideline translators read with every source."), "guideline")
    batch = Batch.objects.select_for_update().get(pk=batch.pk)
    if guideline.strip() != batch.guideline:
        batch.guideline = guideline.strip()
        batch.guideline_version += 1
        batch.save(update_fields=["guideline", "guideline_version"])
    return batch


@transaction.atomic
def release_source(*, actor: User, source: Source, retire: bool) -> Source:
    """The curator's answer to a source sent back by speakers: serve it again, or retire it."""
    require(actor, "dataset.curate", source.batch.dataset, NotAllowed)
    source = Source.objects.select_for_update().get(pk=source.pk)
    source.status = Source.Status.RETIRED if retire else Source.Status.OPEN
    source.save(update_fields=["status"])
    if not retire:
        source.skips.filter(reason__in=[SkipReason.SOURCE_ERROR, SkipReason.INAPPROPRIATE]).delete()
    return source


# Translating.


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


def timed_seconds(actor: User, shown_at: datetime | None) -> float:
    """The server's measure of the work's time: from when it showed the item, capped, and paid only as far as the
    person's work clock allows (ledger.worktime), so that items held together on a phone, or rated in review
    meanwhile, never count more than the wall time between them."""
    if shown_at is None:
        return 0.0
    now = timezone.now()
    claimed = min(MAX_ITEM_SECONDS, max(0.0, (now - shown_at).total_seconds()))
    return claim_working_time(speaker=actor, claimed=claimed, shown_at=shown_at, now=now)


def new_version(translation: Translation, *, number: int, text: str, author: User, client_id: uuid.UUID,
                analysis: str = "", shown_at: datetime | None = None, pasted: bool | None = None,
                typed: int | None = None, guideline_version: int | None = None) -> TranslationVersion:
    """A new version of the translation (its guideline version, when not given, the batch's), compared with the
    stored machine outputs for its source."""
    match = closest_machine_output(translation.source, text)
    version = TranslationVersion(
        client_id=client_id, translation=translation, number=number, text=text, author=author,
        guideline_version=guideline_version or translation.source.batch.guideline_version,
        morphological_analysis=analysis.strip()[:MAX_TEXT_LENGTH],
        suspected_system=match.system if match else "", suspected_chrf=match.score if match else None,
        pasted=pasted, typed_characters=typed, seconds=timed_seconds(author, shown_at))
    compiled.insert(version)
    return version


def submit_translation(*, actor: User, source: Source,
                       submission: TranslationSubmission) -> tuple[TranslationVersion, bool]:
    """Store a speaker's translation of `source` once (a first one, or a revision asked for): the stored version and
    whether it is new. It is compared with every stored machine output for the source and flagged when close."""
    ensure_qualified(actor, source.batch)
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
    speaker's own translation or skip, the translations it has, the client id) in one round trip, then store."""
    checks = lock_translating_target(source.pk, actor.pk, submission.client_id)
    if checks is None:  # sources are never deleted while translations hold them
        raise Source.DoesNotExist(source.pk)
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
    return new_version(translation, number=number, text=text, author=actor, client_id=submission.client_id,
                       analysis=submission.analysis, shown_at=submission.shown_at, pasted=submission.pasted,
                       typed=submission.typed_characters, guideline_version=checks.guideline_version), True


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


# Verifying.


DECIDE_TRANSLATION = f"UPDATE {Translation._meta.db_table} SET status = %s, decided_at = %s WHERE id = %s"


@dataclass
class VerificationSubmission:
    client_id: uuid.UUID
    outcome: str
    version: int
    comment: str = ""
    text: str = ""
    shown_at: datetime | None = None


def verify_translation(*, actor: User, translation: Translation,
                       submission: VerificationSubmission) -> tuple[Verification, bool]:
    """Record a verifier's judgement of the translation's current version once. Never by its translator nor by the
    author of the version (NotAllowed), nor by someone who declared a conflict with the translator."""
    if submission.outcome not in Verification.Outcome.values:
        raise ElicitationError(_("Choose accept, needs revision, reject or edit."), "outcome")
    if len(submission.comment) > MAX_TEXT_LENGTH:
        raise ElicitationError(_("The comment is limited to %(limit)d characters.") % {"limit": MAX_TEXT_LENGTH},
                               "comment")
    ensure_qualified(actor, translation.source.batch)
    try:
        with transaction.atomic():
            return store_verification(actor, translation, submission)
    except IntegrityError:
        stored = Verification.objects.filter(client_id=submission.client_id).first()
        if stored is None:
            raise AlreadyDone(_("You have already verified this translation.")) from None
        return same_verification(stored, actor, translation), False


def same_verification(stored: Verification, actor: User, translation: Translation) -> Verification:
    if stored.verifier_id != actor.pk or stored.translation_id != translation.pk:
        raise ElicitationError(_("This submission id belongs to other work; reload the page."), "client_id")
    return stored


def store_verification(actor: User, translation: Translation,
                       submission: VerificationSubmission) -> tuple[Verification, bool]:
    """The verification's transaction: lock the translation and read its current version and everything that
    decides (the serving rule, a declared conflict, the verifier's verdict in force, the client id) in one round
    trip, then store."""
    source, batch = translation.source, translation.source.batch
    if translation.translator_id == actor.pk:
        raise NotAllowed(_("You translated this: someone else verifies it."))
    checks = lock_verifying_target(translation.pk, actor.pk, submission.client_id)
    if checks is None:  # translations are never deleted
        raise Translation.DoesNotExist(translation.pk)
    if checks.sent_for is not None:
        return same_verification(Verification.objects.get(pk=checks.sent_for), actor, translation), False
    translation.status, translation.revision_rounds, version = checks.status, checks.revision_rounds, checks.version
    if version.author_id == actor.pk:
        raise NotAllowed(_("You wrote this version: someone else verifies it."))
    if checks.conflicted:
        raise NotAllowed(_("You declared a conflict of interest with this translator."))
    if not checks.serving:
        raise not_serving(Batch.objects.select_related("dataset").get(pk=batch.pk))
    if translation.status != Translation.Status.SUBMITTED:
        raise AlreadyDone(_("This translation is not waiting for verification (%(status)s).")
                          % {"status": translation.get_status_display()})
    if submission.version != version.number:
        raise AlreadyDone(_("The translation changed since you opened it; reload the page to verify its new "
                            "version."), "version")
    if checks.judged:
        raise AlreadyDone(_("You have already verified this translation."))
    comment = submission.comment.strip()
    outcome = submission.outcome
    if outcome in (Verification.Outcome.REJECT, Verification.Outcome.REVISE) and not comment:
        raise ElicitationError(_("Say why, for the translator: a rejection or a revision needs a comment."),
                               "comment")
    if outcome == Verification.Outcome.ACCEPT and version.suspected and not comment:
        raise ElicitationError(_("This translation resembles machine output (%(system)s): say in a comment why you "
                                 "accept it.") % {"system": version.suspected_system}, "comment")
    if outcome == Verification.Outcome.REVISE and translation.revision_rounds >= MAX_REVISION_ROUNDS:
        raise ElicitationError(_("This translation was sent back %(count)d times already: accept, edit or reject it.")
                               % {"count": MAX_REVISION_ROUNDS}, "outcome")
    text = checked_translation_text(submission.text, source) if outcome == Verification.Outcome.EDIT else ""
    if outcome == Verification.Outcome.EDIT and text == version.text:
        raise ElicitationError(_("The edit is the same text: accept it instead."), "text")
    now = timezone.now()
    verification = Verification(
        client_id=submission.client_id, translation=translation, version=version, verifier=actor, outcome=outcome,
        comment=comment, flagged=version.suspected, seconds=timed_seconds(actor, submission.shown_at))
    decided = None
    if outcome == Verification.Outcome.REJECT:
        decided = Translation.Status.REJECTED
    elif outcome == Verification.Outcome.ACCEPT and checks.accepts + 1 >= batch.verifications_needed(source.segment):
        decided = Translation.Status.ACCEPTED
    # The verification and the translation's outcome in one statement (the translation's row is locked).
    compiled.insert(verification, along=[(DECIDE_TRANSLATION, [decided, now, translation.pk])] if decided else ())
    if decided:
        translation.status, translation.decided_at = decided, now
    if outcome == Verification.Outcome.EDIT:
        Verification.objects.filter(translation=translation, stale_at__isnull=True).exclude(
            pk=verification.pk).update(stale_at=now)
        new_version(translation, number=version.number + 1, text=text, author=actor, client_id=uuid.uuid4(),
                    analysis=version.morphological_analysis)
    elif outcome == Verification.Outcome.REVISE:
        translation.status = Translation.Status.REVISION
        translation.revision_rounds += 1
        Verification.objects.filter(translation=translation, stale_at__isnull=True).update(stale_at=now)
        translation.save(update_fields=["status", "revision_rounds"])
    return verification, True


@transaction.atomic
def check_analysis(*, actor: User, version: TranslationVersion, status: str, method: str,
                   note: str = "") -> AnalysisCheck:
    """Confirm or dispute a proposed morphological analysis, saying how it was checked. Not by its proposer."""
    version = TranslationVersion.objects.select_related("translation__source__batch__dataset").get(pk=version.pk)
    if not version.morphological_analysis:
        raise ElicitationError(_("No analysis was proposed with this translation."))
    if version.author_id == actor.pk or version.translation.translator_id == actor.pk:
        raise NotAllowed(_("You proposed this analysis: someone else checks it."))
    ensure_qualified(actor, version.translation.source.batch)
    if status not in AnalysisCheck.Status.values:
        raise ElicitationError(_("Confirm or dispute the analysis."), "status")
    if not method.strip() or len(method) > 300:
        raise ElicitationError(_("Say how you checked it (at most 300 characters)."), "method")
    check, created = AnalysisCheck.objects.get_or_create(
        version=version, checked_by=actor, defaults={"status": status, "method": method.strip(), "note": note.strip()})
    if not created:
        raise AlreadyDone(_("You have already checked this analysis."))
    return check


@transaction.atomic
def declare_verification_conflict(*, actor: User, translation: Translation, reason: str) -> DeclaredConflict:
    """The verifier will not verify this translator's work in the batch (a relative, a close colleague): their
    queue leaves it out from now on, and the translation goes to someone else."""
    batch = translation.source.batch
    ensure_qualified(actor, batch)
    if translation.translator_id == actor.pk:
        raise NotAllowed(_("You translated this: someone else verifies it."))
    if not reason.strip() or len(reason) > 300:
        raise ElicitationError(_("Say what the conflict of interest is (at most 300 characters)."), "reason")
    conflict, _created = DeclaredConflict.objects.get_or_create(
        batch=batch, verifier=actor, translator_id=translation.translator_id, defaults={"reason": reason.strip()})
    return conflict


# Into the corpus.


def link_copies(actor: User, version: DatasetVersion, translations: list[Translation]) -> set[int]:
    """Entries `version` holds already for some of `translations` (copied with the version it was created from) are
    linked to them, not added again: the ids of those translations."""
    wanted = {str(translation.public_id): translation for translation in translations}
    found: dict[int, Entry] = {}
    for entry in version.entries.filter(provenance="elicited").only("pk", "document"):
        held = json.loads(entry.document).get("elicitation")
        translation = wanted.get(str(held.get("translation"))) if isinstance(held, dict) else None
        if translation is not None:
            found[translation.pk] = entry
    ElicitedEntry.objects.bulk_create([ElicitedEntry(translation_id=pk, version=version, entry=entry, added_by=actor)
                                       for pk, entry in found.items()])
    return set(found)


def entry_document(translation: Translation, version: TranslationVersion, segment: str, entry_id: int,
                   names: dict[int, str | None], verifier_ids: list[int]) -> dict:
    """The corpus entry an accepted translation becomes: provenance `elicited`, and who made it as each person chose
    to be credited (anonymous otherwise)."""
    source, batch = translation.source, translation.source.batch

    def credited(user_id: int) -> str:
        return names.get(user_id) or "anonymous"

    data: dict = {"id": entry_id, "source": source.text, "reference": version.text, "segment": segment,
                  "difficulty": source.difficulty, "provenance": "elicited", "register": source.register,
                  "domain": source.domain}
    confirmed = version.analysis_checks.filter(status=AnalysisCheck.Status.CONFIRMED).exists()
    if version.morphological_analysis and confirmed:
        data["morphological_analysis"] = version.morphological_analysis
    if source.context:
        data["notes"] = source.context
    data["elicitation"] = {
        "batch": str(batch.public_id), "translation": str(translation.public_id), "variety": batch.variety,
        "target_language": batch.target_language,
        "guideline_version": version.guideline_version, "translator": credited(translation.translator_id),
        "verifiers": [credited(pk) for pk in verifier_ids],
        "source_origin": source.origin, **({"source_origin_name": source.origin_name} if source.origin_name else {}),
        **({"source_origin_license": source.origin_license} if source.origin_license else {}),
    }
    return data


@transaction.atomic
def add_accepted_to_version(*, actor: User, batch: Batch, version: DatasetVersion,
                            segment: str = "") -> list[ElicitedEntry]:
    """Every accepted translation of the batch not yet in `version` becomes one of its entries: in `segment` when
    the curator chose one for the whole batch, else in its source's segment. Run again, it adds only what is new."""
    require(actor, "dataset.curate", batch.dataset, NotAllowed)
    if version.dataset_id != batch.dataset_id:
        raise ElicitationError(_("Choose a version of %(dataset)s.") % {"dataset": batch.dataset.identifier},
                               "version")
    if segment and segment not in Segment.values:
        raise ElicitationError(_("Unknown segment."), "segment")
    if not has_consent(batch.dataset, ConsentUse.CORPUS_CREATION):
        raise NotServing(_("This batch is paused: its community's consent to corpus creation is no longer in "
                           "force."))
    version = DatasetVersion.objects.select_for_update().select_related("dataset").get(pk=version.pk)
    if version.is_frozen:
        raise AlreadyDone(_("%(version)s is frozen: create a new version to add entries.") % {"version": version},
                          "version")
    accepted = list(Translation.objects.filter(source__batch=batch, status=Translation.Status.ACCEPTED)
                    .exclude(entries__version=version).select_related("source__batch")
                    .order_by("source__position", "created_at"))
    copied = link_copies(actor, version, accepted)
    accepted = [translation for translation in accepted if translation.pk not in copied]
    if not accepted:
        return []
    versions = {translation.pk: current_version(translation) for translation in accepted}
    verifiers: dict[int, list[int]] = {}
    for translation_id, verifier_id in (Verification.objects.filter(
            translation__in=accepted, stale_at__isnull=True, outcome=Verification.Outcome.ACCEPT)
            .order_by("created_at").values_list("translation_id", "verifier_id")):
        verifiers.setdefault(translation_id, []).append(verifier_id)
    people = {t.translator_id for t in accepted} | {pk for ids in verifiers.values() for pk in ids}
    names = credited_names(batch.organization_id, sorted(people))
    numeric = [int(value) for value in version.entries.values_list("entry_id", flat=True) if value.isdigit()]
    next_id = max(numeric, default=0) + 1
    documents = []
    for offset, translation in enumerate(accepted):
        documents.append(entry_document(translation, versions[translation.pk],
                                        segment or translation.source.segment, next_id + offset, names,
                                        verifiers.get(translation.pk, [])))
    entries = add_entries(actor=actor, version=version, documents=documents)
    links = ElicitedEntry.objects.bulk_create([
        ElicitedEntry(translation=translation, version=version, entry=entry, added_by=actor)
        for translation, entry in zip(accepted, entries, strict=True)])
    return links


# What a speaker takes back.


@transaction.atomic
def withdraw_elicited_work(*, actor: User) -> dict[str, int]:
    """The speaker's translations that are in no frozen version leave every batch (kept, marked withdrawn) and the
    unfrozen versions they were added to; what is in a frozen version stays, as every frozen version does."""
    frozen = set(ElicitedEntry.objects.filter(translation__translator=actor, version__frozen_at__isnull=False)
                 .values_list("translation_id", flat=True))
    translations = list(Translation.objects.select_for_update().filter(translator=actor).exclude(
        status=Translation.Status.WITHDRAWN).exclude(pk__in=frozen))
    removed = 0
    links = list(ElicitedEntry.objects.filter(translation__in=translations).select_related("version", "entry"))
    by_version: dict[int, list] = {}
    for link in links:
        by_version.setdefault(link.version_id, []).append(link)
    for held in by_version.values():
        removed += remove_entries(actor=None, version=held[0].version, entries=[link.entry for link in held],
                                  reason="elicited work withdrawn by its translator")
    Translation.objects.filter(pk__in=[t.pk for t in translations]).update(status=Translation.Status.WITHDRAWN,
                                                                            decided_at=timezone.now())
    return {"withdrawn": len(translations), "entries_removed": removed, "kept_in_frozen_versions": len(frozen)}

