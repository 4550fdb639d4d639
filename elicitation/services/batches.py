"""The curator's writes on batches and their sources: a batch created with its settings (and its first sources),
sources added from a page, a file or the API (all or none), its status, its guideline (each change a new version)
and a source speakers sent back, served again or retired."""

import re
from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils.translation import gettext as _

from accounts.models import User
from common import errors
from corpus.models import ConsentUse, Dataset
from corpus.selectors import has_consent
from ledger.models import CURRENCY_PATTERN
from organizations.audit import record_event
from organizations.models import AuditAction
from organizations.permissions import require

from ..models import Batch, SkipReason, Source
from ..sources import SourceRow, checked_rows
from .errors import AlreadyDone, ElicitationError, NotAllowed


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
