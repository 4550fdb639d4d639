"""Every read of the corpus that has a rule, one module per job: who sees which entries, datasets and versions, and
what answers 410 when they may not (`visibility`, THE rule for secret segments), consent records as the rules and
pages read them (`consent`), what a version shows of itself (`versions`: its hash, note, counts and readiness), the
files a version is exported as and the public download's pin (`exports`), the reads that record which secret entries
they show (`shown`), and entries narrowed, placed in their text and counted (`entries`). Inside corpus's selectors
and services, import from the domain module; the names below are the ones the rest of the site and tests use."""

from .consent import (
    active_consents,
    consent_filter,
    consent_overview,
    consent_records,
    covered_uses,
    has_consent,
    revocation_consequences,
    uses_text,
    withdrawn,
)
from .entries import distribution, document_neighbours, filter_entries
from .exports import compute_public_download_hash, export_chunks, public_download_chunks, public_download_hash
from .shown import shown_entries, shown_export_chunks, streamed_entries
from .versions import (
    READINESS_MINIMUMS,
    ROTATION_NOTE,
    VersionHash,
    readiness,
    segment_counts,
    version_hash,
    version_note,
)
from .visibility import (
    Withdrawal,
    curating_organizations,
    entry_visibility,
    entry_withdrawal,
    mt_output_visibility,
    public_segment,
    publicly_released,
    visible_datasets,
    visible_entries,
    visible_versions,
    withdrawal,
    withdrawal_matching,
)

__all__ = [
    "READINESS_MINIMUMS", "ROTATION_NOTE", "VersionHash", "Withdrawal", "active_consents",
    "compute_public_download_hash", "consent_filter", "consent_overview", "consent_records", "covered_uses",
    "curating_organizations", "distribution", "document_neighbours", "entry_visibility", "entry_withdrawal",
    "export_chunks", "filter_entries", "has_consent", "mt_output_visibility", "public_download_chunks",
    "public_download_hash", "public_segment", "publicly_released", "readiness", "revocation_consequences",
    "segment_counts", "shown_entries", "shown_export_chunks", "streamed_entries", "uses_text", "version_hash",
    "version_note", "visible_datasets", "visible_entries", "visible_versions", "withdrawal", "withdrawal_matching",
    "withdrawn",
]
