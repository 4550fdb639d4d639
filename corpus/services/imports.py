"""Importing a corpus file: all or nothing, the same file again recognised by its hash."""

import hashlib
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext

from accounts.models import User
from organizations.audit import record_event
from organizations.models import AuditAction, Organization

from ..models import SECRET_SEGMENTS, Dataset, DatasetVersion, Sha256Source
from ..selectors.exports import compute_public_download_hash
from ..validation import CorpusFileError, Problem, read_corpus, unavailable_dataset_id
from .content import canonical_sha256, content_details, exported_hashes, public_sha256
from .entries import insert_entries


@dataclass
class ImportOutcome:
    version: DatasetVersion
    created: bool
    entry_count: int
    warnings: list[str] = field(default_factory=list)

    @property
    def message(self) -> str:
        if not self.created:
            return gettext("%(version)s was already imported (same sha256); nothing changed.") % {
                "version": self.version}
        # English keeps one wording for every count (scripts match it); other languages agree in number.
        return ngettext("Imported %(count)s entries into %(version)s.", "Imported %(count)s entries into %(version)s.",
                        self.entry_count) % {"count": number_format(self.entry_count, force_grouping=True),
                                             "version": self.version}


def import_corpus(*, actor: User | None, data: bytes, organization: Organization,
                  supplied: dict[str, Any] | None = None) -> ImportOutcome:
    """Import a corpus file as a new dataset version of `organization`: the corpus format, or any shape the
    harness reads (corpus.validation). `supplied` gives envelope fields the file lacks, by parameter name
    (corpus.validation.SUPPLIED_FIELDS: dataset_id, dataset_version, language_pair, source_language,
    target_language, created, license), and `segment_map`, the segment of each segment name the file uses that is
    none of the four (the entries are stored with the segment chosen; nothing is guessed).

    Every problem is reported at once (CorpusFileError) and nothing is stored on error. The same
    file again is recognised by its sha256; the same id and version with other content is refused.
    """
    corpus = read_corpus(data, settings.CORPUS_MAX_UPLOAD_BYTES, supplied)
    sha256 = hashlib.sha256(data).hexdigest()
    fields = corpus.envelope_fields
    with transaction.atomic():
        # get_or_create: an import of the same new id by another organization at the same moment ends in
        # the same refusal below, not in an integrity error.
        dataset, _ = Dataset.objects.select_for_update().get_or_create(
            identifier=fields["identifier"], defaults={"organization": organization})
        if dataset.organization_id != organization.pk:
            raise CorpusFileError([unavailable_dataset_id(fields["identifier"], organization.name)])
        existing = dataset.versions.filter(version=fields["version"]).first()
        if existing is not None:
            if existing.sha256 == sha256 or canonical_sha256(corpus) in exported_hashes(existing):
                return ImportOutcome(existing, created=False, entry_count=existing.entry_count)
            raise CorpusFileError([Problem(
                gettext("version %(version)s of %(id)s is already stored with different content (sha256 "
                        "%(stored)s…, this file %(sent)s…); give the changed corpus a new version number")
                % {"version": repr(fields["version"]), "id": repr(fields["identifier"]),
                   "stored": existing.sha256[:12], "sent": sha256[:12]}, field="dataset.version")])
        version = DatasetVersion.objects.create(
            dataset=dataset,
            version=fields["version"],
            language_pair=fields["language_pair"],
            source_language=fields["source_language"],
            target_language=fields["target_language"],
            created=fields["created"],
            license=fields["license"],
            provenance=fields["provenance"],
            envelope=corpus.envelope_text,
            layout=corpus.layout,
            sha256=sha256,
            sha256_source=Sha256Source.FILE,
            public_sha256=public_sha256(sha256, any(segment in SECRET_SEGMENTS for segment in corpus.segments)),
            entry_count=len(corpus.entries),
            imported_by=actor,
        )
        insert_entries(version, ((valid.position, valid) for valid in corpus.entries))
        version.public_download_sha256 = compute_public_download_hash(version)
        version.save(update_fields=["public_download_sha256"])
        record_event(AuditAction.CORPUS_IMPORTED, actor=actor, organization=organization, obj=version,
                     details=content_details(version))
    return ImportOutcome(version, created=True, entry_count=len(corpus.entries), warnings=corpus.warnings)
