"""Every write on the corpus, one module per job: importing a file (`imports`), versions and what never changes in
a frozen one (`versions`), entry rows and their edits (`entries`), a version's hashes and counts (`content`),
consent and public release (`consent`), and their refusals (`errors`). Inside corpus, import from the domain
module; the names below are the ones other apps, scripts and tests use."""

from ..file_writer import corpus_file_chunks
from .consent import document_problem, grant_consent, revoke_consent, set_dataset_public
from .content import content_sha256, keyed_content_hash
from .entries import ENTRY_VALUE_FIELDS, add_entries, add_entry, entry_values, remove_entries, update_entry
from .errors import ConsentRequired, FrozenVersionError, VersionRefused
from .imports import ImportOutcome, import_corpus
from .versions import activate_held_out, create_next_version, freeze_version, rotate_segments

__all__ = [
    "ENTRY_VALUE_FIELDS", "ConsentRequired", "FrozenVersionError", "ImportOutcome", "VersionRefused",
    "activate_held_out", "add_entries", "add_entry", "content_sha256", "corpus_file_chunks", "create_next_version",
    "document_problem", "entry_values", "freeze_version", "grant_consent", "import_corpus", "keyed_content_hash",
    "remove_entries", "revoke_consent", "rotate_segments", "set_dataset_public", "update_entry",
]
