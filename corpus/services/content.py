"""A version's content as its hashes and counts state it: the hash of its canonical export, the keyed hash
the public is shown when secret entries are part of it, and what the audit log records of it (counts, never a
text)."""

import hashlib
import json
from typing import Any

from django.db.models import Count, Q
from django.utils.crypto import salted_hmac

from ..file_writer import file_chunks
from ..label_selectors import sovereignty_block, with_sovereignty
from ..models import SECRET_SEGMENTS, DatasetVersion, FileLayout, Sha256Source
from ..selectors.exports import compute_public_download_hash
from ..selectors.versions import segment_counts
from ..validation import ValidCorpus

# The salt of the key (derived from SECRET_KEY) of public hashes; migrations 0006 and 0008 use the same recipe.
PUBLIC_HASH_SALT = "corpus.DatasetVersion.public_sha256"


def keyed_content_hash(sha256: str) -> str:
    """HMAC-SHA256 of a version's hash (of a file or of its content), keyed from SECRET_KEY: it names the
    content as well as the hash does, but nobody without the key can recompute it from a guess of the secret
    entries to confirm the guess."""
    return salted_hmac(PUBLIC_HASH_SALT, sha256, algorithm="sha256").hexdigest()


def public_sha256(sha256: str, holds_secret_entries: bool) -> str:
    """What everyone but the steward's secret readers is shown of a version's hash. Keyed whenever secret
    entries are part of it, whatever it is the hash of: an imported file may be in the canonical export
    layout (re-importing one's own export is the documented round trip), and then its hash is the content
    hash that anyone could recompute from a guess of the secret entries."""
    return keyed_content_hash(sha256) if holds_secret_entries else sha256


def content_sha256(version: DatasetVersion, envelope: str | None = None) -> str:
    """SHA-256 of the version's canonical export (with `envelope` instead of the stored one when given)."""
    digest = hashlib.sha256()
    documents = version.entries.order_by("position").values_list("document", flat=True).iterator(chunk_size=2000)
    for chunk in file_chunks(version.layout, version.envelope if envelope is None else envelope, documents):
        digest.update(chunk)
    return digest.hexdigest()


def exported_hashes(version: DatasetVersion) -> set[str]:
    """The content hashes of what exporting `version` gives its steward: as stored, and with the envelope's label
    block (docs/labels.md), so re-importing one's own export is recognised as the same version."""
    hashes = {content_sha256(version)}
    block = sovereignty_block(version)
    if block is not None and version.layout != FileLayout.LIST:
        hashes.add(content_sha256(version, with_sovereignty(version.envelope, block)))
    return hashes


def canonical_sha256(corpus: ValidCorpus) -> str:
    """SHA-256 of the file that exporting `corpus` would give, so that re-importing an exported (or
    re-formatted) copy of a stored version is recognised as the same content."""
    digest = hashlib.sha256()
    documents = (json.dumps(valid.data, ensure_ascii=False) for valid in corpus.entries)
    for chunk in file_chunks(corpus.layout, corpus.envelope_text, documents):
        digest.update(chunk)
    return digest.hexdigest()


def refresh_version_content(version: DatasetVersion) -> None:
    """Keep entry_count and sha256 equal to what exporting the version produces. Anyone who knows the public
    entries could confirm a guess of the secret ones against that hash, so when secret entries are part of
    it, the public is shown (and pins) a keyed hash of it instead (public_sha256)."""
    counts = version.entries.aggregate(total=Count("pk"), secret=Count("pk", filter=Q(segment__in=SECRET_SEGMENTS)))
    version.entry_count = counts["total"]
    version.sha256 = content_sha256(version)
    version.sha256_source = Sha256Source.CONTENT
    version.public_sha256 = public_sha256(version.sha256, bool(counts["secret"]))
    version.public_download_sha256 = compute_public_download_hash(version)
    version.save(update_fields=["entry_count", "sha256", "sha256_source", "public_sha256", "public_download_sha256"])


def content_details(version: DatasetVersion) -> dict[str, Any]:
    """What the audit log records of a version's content after a change: how many entries, per segment. Counts only,
    never a text: the log is append-only and exported, so a secret written into it could never be withdrawn with its
    entry."""
    return {"dataset": version.dataset.identifier, "version": version.version, "entries": version.entry_count,
            "segments": segment_counts(version)}
