"""Accepted translations into a dataset version: each becomes a corpus entry of provenance `elicited`, crediting who
made it as each person chose; run again, only what is new is added."""

import json

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from corpus.models import ConsentUse, DatasetVersion, Entry, Segment
from corpus.selectors import has_consent
from corpus.services import add_entries
from ledger.selectors import credited_names
from organizations.permissions import require

from ..models import AnalysisCheck, Batch, ElicitedEntry, Translation, TranslationVersion, Verification
from ..selectors.translating import current_version
from .errors import AlreadyDone, ElicitationError, NotAllowed, NotServing


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
