"""Every read of elicitation that has a rule, one module per job: who may work in a batch, whether it serves work and
the item a page loads with its batch (`access`), what a translator is given and a translation's checks
(`translating`), what a verifier is given and a verdict's checks (`verifying`), the one read of stored machine output,
on the server after a submission (`machine_output`), what the curator sees of a batch's sources (`curation`), a
batch's figures per person and what they are owed (`figures`), and a person's own work, pay and what withdrawing it
takes back (`own_work`). Inside elicitation, import from the domain module; the names below are the ones other apps,
scripts and tests use."""

from .access import is_serving
from .curation import coverage_matrix
from .figures import speaker_figures
from .machine_output import closest_machine_output
from .own_work import speaker_batch_pay, withdrawable_work, work_counts
from .translating import UPCOMING, current_version, to_revise, to_translate
from .verifying import next_to_verify, to_verify

__all__ = [
    "UPCOMING", "closest_machine_output", "coverage_matrix", "current_version", "is_serving", "next_to_verify",
    "speaker_batch_pay", "speaker_figures", "to_revise", "to_translate", "to_verify", "withdrawable_work",
    "work_counts",
]
