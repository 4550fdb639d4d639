"""What a verifier is given and what decides whether their verdict is stored: the translations they may verify
(never their own, nor a translator's they declared a conflict with, nor one they judged in its current version), in
the batch's order and ahead on the phone, and a verdict's checks read in one round trip with the translation's row
locked, its current version with them.

The items ahead and the checks are compiled once per connection and prepared (common.compiled), as the rating loop's
are."""

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Exists, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from common.compiled import CompiledQuery, loaded, rows_together
from corpus.models import PUBLIC_SEGMENTS

from ..models import Batch, DeclaredConflict, Translation, TranslationVersion, Verification
from .access import PersonsChecks, serving_batches
from .translating import UPCOMING


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


def next_to_verify(user, batch: Batch) -> Translation | None:
    """The translation the verify page shows next (of any segment)."""
    found = _NEXT_TO_VERIFY.objects(batch=batch.pk, verifier=user.pk)
    return found[0].translation if found else None


def upcoming_to_verify(user, batch: Batch) -> list[tuple[Translation, TranslationVersion]]:
    """What elicit.js holds ahead on the verify page: the next UPCOMING translations of the public segments with
    their current versions (a phone never holds a secret source)."""
    return [(version.translation, version) for version in _UPCOMING_TO_VERIFY.objects(batch=batch.pk,
                                                                                       verifier=user.pk)]


# A verdict's checks, read in one round trip once its translation's row is locked (inside the caller's transaction),
# as a translation's are (translating.lock_translating_target).
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
    problem: str | None  # why the verifier may not verify in the batch (`qualification_problem`)
    counted_until: datetime | None  # where the verifier's work clock stands (locked)


def lock_verifying_target(translation: Translation, verifier, client_id: uuid.UUID, *,
                          timed: bool) -> VerifyingChecks | None:
    """Lock the translation's row (inside the caller's transaction) and read its current version, what decides
    whether the verifier's verdict is stored and the verifier's qualification and work clock (`PersonsChecks`), in
    one round trip; None when there is no such translation."""
    person = PersonsChecks(verifier, translation.source.batch, timed=timed)
    locked, checks, versions, *found = rows_together(
        (_TRANSLATION_LOCK, {"translation": translation.pk}),
        (_VERIFYING_CHECKS, {"translation": translation.pk, "verifier": verifier.pk, "client_id": client_id}),
        (_CURRENT_VERSION, {"translation": translation.pk}), *person.runs)
    if not locked or not checks or not versions:
        return None
    (status, revision_rounds), (serving, conflicted, judged, sent_for) = locked[0], checks[0]
    *version, accepts = versions[0]
    return VerifyingChecks(status, revision_rounds, loaded(TranslationVersion, VERSION_FIELDS, version), accepts,
                           serving, conflicted, judged, sent_for, *person.read(found))
