"""A verifier's verdicts, stored once (a submission whose client id is stored already stores nothing new and returns
what was stored), and what they decide of the translation; checks of a proposed morphological analysis; a verifier's
declared conflict of interest with a translator."""

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from common import compiled

from ..models import (
    MAX_REVISION_ROUNDS,
    MAX_TEXT_LENGTH,
    AnalysisCheck,
    Batch,
    DeclaredConflict,
    Translation,
    TranslationVersion,
    Verification,
)
from ..selectors.verifying import lock_verifying_target
from .errors import AlreadyDone, ElicitationError, NotAllowed, ensure_qualified, not_serving, refuse_unqualified
from .translating import checked_translation_text, new_version, timed_seconds

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
    decides (the serving rule, a declared conflict, the verifier's verdict in force, the client id, the verifier's
    qualification and work clock) in one round trip, then store."""
    source, batch = translation.source, translation.source.batch
    checks = lock_verifying_target(translation, actor, submission.client_id, timed=submission.shown_at is not None)
    if checks is None:  # translations are never deleted
        raise Translation.DoesNotExist(translation.pk)
    refuse_unqualified(checks.problem)
    if translation.translator_id == actor.pk:
        raise NotAllowed(_("You translated this: someone else verifies it."))
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
    seconds, clock = timed_seconds(actor, submission.shown_at, checks.counted_until)
    verification = Verification(
        client_id=submission.client_id, translation=translation, version=version, verifier=actor, outcome=outcome,
        comment=comment, flagged=version.suspected, seconds=seconds)
    decided = None
    if outcome == Verification.Outcome.REJECT:
        decided = Translation.Status.REJECTED
    elif outcome == Verification.Outcome.ACCEPT and checks.accepts + 1 >= batch.verifications_needed(source.segment):
        decided = Translation.Status.ACCEPTED
    # The verification, the translation's outcome and the verifier's work clock in one statement (the translation's
    # and the clock's rows are locked).
    along = [(DECIDE_TRANSLATION, [decided, now, translation.pk])] if decided else []
    compiled.insert(verification, along=along + clock)
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
