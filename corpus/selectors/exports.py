"""The files a version is exported as: the steward's own file, and the public download the harness runs, with its
pin (docs/corpus.md, "Hashes"). Entries are the visible ones only."""

import hashlib
import json
import re
from typing import Any

from django.db.models import JSONField, QuerySet
from django.db.models.functions import Cast

from organizations.permissions import permitted

from ..file_writer import file_chunks
from ..label_selectors import refuse_blocked_export, sovereignty_block, with_sovereignty
from ..language_pairs import version_pair_key
from ..models import DatasetVersion, Entry, FileLayout
from .visibility import public_segment, visible_entries


def exported_entries(user, version: DatasetVersion, segments: list[str] | None = None) -> QuerySet[Entry]:
    entries = visible_entries(user, version)
    return entries.filter(segment__in=segments) if segments else entries


def export_chunks(user, version: DatasetVersion, segments: list[str] | None = None):
    """The corpus file of `version` holding only the entries `user` may see (optionally some segments): for the
    steward's secret readers in the shape it was imported in (the file its content hash is of), for everyone else
    as the public download is written, the file the harness runs (public_file_chunks). The labels that apply to the
    version are the envelope's `sovereignty` block (docs/labels.md)."""
    entries = exported_entries(user, version, segments)
    block = sovereignty_block(version)
    if permitted(user, "dataset.see_secret", version.dataset):
        return version_file_chunks(version, entries, block)
    return public_file_chunks(version, entries, block)


def version_file_chunks(version: DatasetVersion, entries: QuerySet[Entry], block: dict[str, Any] | None = None):
    """The file of `version` holding `entries` (already narrowed by visibility), in position order; with `block`,
    the envelope carries it as its `sovereignty` member (a bare list has no envelope to carry it)."""
    documents = entries.order_by("position").values_list("document", flat=True).iterator(chunk_size=2000)
    envelope = version.envelope if version.layout == FileLayout.LIST else with_sovereignty(version.envelope, block)
    return file_chunks(version.layout, envelope, documents)


def public_download_entries(user, version: DatasetVersion) -> QuerySet[Entry]:
    """The entries of the public download of `version` as `user` gets it: the visible entries of its public
    segments. Whoever may see the version gets the same ones (its steward's readers see every entry, anyone else
    sees a released dataset's public segments), and never a secret one."""
    return visible_entries(user, version).filter(public_segment())


def public_download_chunks(user, version: DatasetVersion):
    """The public download: the file of `version` holding its public segments' entries in file order, as the
    harness runs it (public_file_chunks). Byte-stable: nothing in it depends on who asks or when, so the same
    content always gives the same bytes, and their SHA-256 is public_download_hash(version): so it carries no label
    block, and restrictive labels refuse it as they refuse every public export (LabelReleaseRequired)."""
    refuse_blocked_export(user, version)
    return public_file_chunks(version, public_download_entries(user, version))


def compute_public_download_hash(version: DatasetVersion) -> str:
    """SHA-256 of the public download's bytes, computed (the import and every change of a version store it).
    It reads the public segments only, whatever the dataset's publication: the same entries any reader of the
    version gets, which reveal nothing of the secret ones."""
    digest = hashlib.sha256()
    for chunk in public_file_chunks(version, version.entries.filter(public_segment())):
        digest.update(chunk)
    return digest.hexdigest()


def public_file_chunks(version: DatasetVersion, entries: QuerySet[Entry], block: dict[str, Any] | None = None):
    """`entries` in the file the harness runs as this version: the version's own file (its envelope verbatim, in the
    shape it was imported in) when the harness reads it as this dataset's id and version with a language pair it
    reads, and every entry names its id; otherwise the corpus format with an envelope it reads (harness_envelope),
    each entry as stored, its stored id written first when it gives none (with_id)."""
    envelope = harness_envelope(version)
    if envelope is None:
        return version_file_chunks(version, entries, block)
    rows = entries.order_by("position").values_list("entry_id", "document").iterator(chunk_size=2000)
    return file_chunks(FileLayout.DATASET, with_sovereignty(envelope, block),
                       (with_id(entry_id, document) for entry_id, document in rows))


def with_id(entry_id: str, document: str) -> str:
    """An entry object as stored, with its id written first when it gives none: the harness numbers an entry without
    one by its position in the file it reads (corpus_loader._ensure_ids), which a download of some entries changes."""
    if "id" in json.loads(document):
        return document
    stored = int(entry_id) if entry_id.isdigit() else entry_id
    rest = document.lstrip()[1:].lstrip()
    return '{"id": ' + json.dumps(stored) + (", " + rest if rest != "}" else "}")


# The pairs the harness reads written out (mt_eval_harness corpus_loader._coerce_lang_pair): two bare codes joined by
# "-", ":" or ">".
HARNESS_PAIR = re.compile(r"^\s*([A-Za-z]{2,3})\s*[-:>]\s*([A-Za-z]{2,3})\s*$")


def harness_reads_pair(value: Any) -> bool:
    """Whether the harness reads `value` as a language pair (an object with both sides, or two bare codes)."""
    if isinstance(value, dict):
        return bool(value.get("source")) and bool(value.get("target"))
    return isinstance(value, str) and HARNESS_PAIR.match(value) is not None


def harness_reads_version(version: DatasetVersion, stored: dict[str, Any]) -> bool:
    """Whether the harness (corpus_loader.load_corpus, publish.assemble_run_card) reads the stored file as this
    version: the id and version it takes (the `dataset` object's, else `corpus_id` and `version` beside the entries)
    are the version's, the language pair it reads first is one it can read, and every entry names its id."""
    inner = stored.get("dataset") if version.layout == FileLayout.OBJECT else stored
    inner = inner if isinstance(inner, dict) else {}
    outer = stored if version.layout == FileLayout.OBJECT else {}
    identifier = inner.get("id") or outer.get("corpus_id")
    number = inner.get("version") or outer.get("version")
    pair = inner.get("language_pair") or outer.get("language_pair")
    if identifier != version.dataset.identifier or number != version.version or not harness_reads_pair(pair):
        return False
    return not version.entries.annotate(parsed=Cast("document", JSONField())).exclude(parsed__has_key="id").exists()


def harness_envelope(version: DatasetVersion) -> str | None:
    """None when the harness reads the version's own file as the version (harness_reads_version); else the envelope
    of the corpus format it reads: the version's id, version, language pair as an object of ISO 639-3 codes
    (`{"source": "eng", "target": "crk"}`), languages, creation date and licence, then every other member of the
    stored envelope as stored (a corpus builder's `dataset` object's members first)."""
    stored = json.loads(version.envelope) if version.layout != FileLayout.LIST else {}
    stored = stored if isinstance(stored, dict) else {}
    if version.layout != FileLayout.LIST and harness_reads_version(version, stored):
        return None
    key = version_pair_key(version.language_pair, version.source_language, version.target_language)
    source, target = key.split(">", 1) if key else (version.source_language, version.target_language)
    envelope: dict[str, Any] = {
        "id": version.dataset.identifier, "version": version.version,
        "language_pair": {"source": source, "target": target}, "source_language": version.source_language,
        "target_language": version.target_language, "created": version.created.isoformat(),
        "license": version.license,
    }
    nested = stored.get("dataset") if version.layout == FileLayout.OBJECT else None
    for members in (nested if isinstance(nested, dict) else {}, stored):
        for name, value in members.items():
            if name not in envelope and name not in ("dataset", "entries", "corpus_id"):
                envelope[name] = value
    return json.dumps(envelope, ensure_ascii=False)


def public_download_hash(version: DatasetVersion) -> str:
    """THE public-download pin of `version`: the SHA-256 of the bytes of its public download (public_download_chunks;
    the page `/datasets/versions/PK/export.json?public=1`, the API's `versions/PK/public/`), which a developer who
    runs the harness on that download gets as the run card's `dataset.sha256`. A run card pinning it scores public
    entries only. Stored on the version row (`public_download_sha256`); a version stored before it existed has it
    computed and stored on first use."""
    if not version.public_download_sha256:
        version.public_download_sha256 = compute_public_download_hash(version)
        DatasetVersion.objects.filter(pk=version.pk).update(public_download_sha256=version.public_download_sha256)
    return version.public_download_sha256
