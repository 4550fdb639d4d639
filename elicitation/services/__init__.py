"""Every write of elicitation, each inside one transaction, one module per job: batches and their sources
(`batches`), a speaker's translations and skips (`translating`), verdicts, analysis checks and declared conflicts
(`verifying`), accepted translations into a dataset version (`into_corpus`), what a speaker takes back of their own
work (`own_work`), and their refusals (`errors`). Inside elicitation, import from the domain module; the names below
are the ones other apps, scripts and tests use."""

from .batches import BatchSettings, add_sources, create_batch, release_source, set_batch_status, update_guideline
from .errors import AlreadyDone, ElicitationError, NotAllowed, NotQualified, NotServing
from .into_corpus import add_accepted_to_version
from .own_work import withdraw_elicited_work
from .translating import TranslationSubmission, skip_source, submit_translation
from .verifying import VerificationSubmission, check_analysis, declare_verification_conflict, verify_translation

__all__ = [
    "AlreadyDone", "BatchSettings", "ElicitationError", "NotAllowed", "NotQualified", "NotServing",
    "TranslationSubmission", "VerificationSubmission", "add_accepted_to_version", "add_sources", "check_analysis",
    "create_batch", "declare_verification_conflict", "release_source", "set_batch_status", "skip_source",
    "submit_translation", "update_guideline", "verify_translation", "withdraw_elicited_work",
]
