"""Who may work in a batch and what a page of it loads: whether the batch serves work (open, its community's consent
to corpus creation in force: `serving_batches`, the one rule), who may translate and verify in it (a member of its
organization with the pair's qualification), the item a page or a submission loads with its batch, and the audit of
a secret source shown.

The item with its batch is read by a compiled query (common.compiled), as the rating loop's are: building it cost the
ORM more than PostgreSQL spent running it, on every item."""

import uuid
from collections.abc import Iterable
from datetime import datetime

from django.db.models import BooleanField, ExpressionWrapper, Q

from common.compiled import CompiledQuery
from corpus.models import PUBLIC_SEGMENTS, SECRET_SEGMENTS, ConsentUse
from corpus.selectors import consent_filter, has_consent
from ledger.worktime import LOCKED_WORK_CLOCK
from organizations.audit import record_secret_access
from organizations.models import Role
from organizations.selectors import memberships_unread, org_ids_with_roles, remember_memberships
from speakers.selectors import AttestedLevel, Requirement, persons_levels, qualification_problems, qualified_for_each

from ..models import Batch, Source, Translation

WORKING_ROLES = (Role.SPEAKER, Role.CURATOR, Role.GOVERNANCE)


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


def qualification_problem(user, batch: Batch, levels: Iterable[AttestedLevel] | None = None) -> str | None:
    """Why `user` may not translate or verify in the batch, or None (from their attested `levels` in the batch's
    organization when they were read already)."""
    if batch.organization_id not in org_ids_with_roles(user, WORKING_ROLES):
        return str(batch.organization)
    return qualification_problems(requirement(batch), [user.pk], levels).get(user.pk)


class PersonsChecks:
    """What a submission reads of the person who sends it, sent with its item's checks in one round trip: their
    attested levels and memberships (whether they are qualified: `qualification_problem`) and, when the work is
    timed, their work clock's row, locked (ledger.worktime)."""

    def __init__(self, user, batch: Batch, *, timed: bool) -> None:
        self.user, self.batch, self.timed = user, batch, timed
        self.memberships = memberships_unread(user)
        self.runs = [persons_levels(batch.organization_id, user.pk)]
        if timed:
            self.runs.append((LOCKED_WORK_CLOCK, {"speaker": user.pk}))
        if self.memberships:
            self.runs.append(self.memberships)

    def read(self, found: list[list[tuple]]) -> tuple[str | None, datetime | None]:
        """(why the person may not do the work or None, where their work clock stands) from the runs' rows."""
        if self.memberships:
            remember_memberships(self.user, found[-1])
        clock = found[1] if self.timed else []
        return qualification_problem(self.user, self.batch, found[0]), clock[0][0] if clock else None


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


def may_hold_on_device(source: Source) -> bool:
    """Whether a page may hand the source (and a translation of it) to the phone to keep offline: public segments
    only, as the items fetched ahead (the future secret entries never leave the server's pages)."""
    return source.segment in PUBLIC_SEGMENTS


def record_shown_source(user, source: Source, where: str) -> None:
    """A page showing a gold_standard or held_out source — the text of a future secret entry — records it in the
    audit log as every page showing secret entries does (`secret_entries.shown`, with no-store caching)."""
    if source.segment in SECRET_SEGMENTS:
        record_secret_access(user, {source.batch.organization_id: 1}, where)
