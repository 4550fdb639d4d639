"""The refusals of elicitation's writes, and the two a speaker's write is checked against first: a batch that takes no
work (`not_serving`, which says why) and a person not qualified to work in it (`ensure_qualified`)."""

from django.utils.translation import gettext as _

from accounts.models import User
from common import errors
from common.errors import ApplicationError, Conflict
from corpus.models import ConsentUse
from corpus.selectors import has_consent

from ..models import Batch
from ..selectors.access import is_serving, qualification_problem


class ElicitationError(ApplicationError):
    """A refused elicitation action, with the form field at fault when there is one."""


class NotAllowed(ElicitationError, errors.NotAllowed):
    """The actor may not do this (a verification of one's own work; not qualified)."""


class NotQualified(NotAllowed):
    """The actor is not among the batch's qualified translators and verifiers (pages answer as if it did not
    exist)."""


class NotServing(ElicitationError, Conflict):
    """The batch is paused, closed, or its community's consent to corpus creation is no longer in force."""


class AlreadyDone(ElicitationError, Conflict):
    """Done already, or changed since it was shown: a source translated or skipped, a closed batch, a frozen version,
    a translation verified or revised meanwhile."""


def ensure_serving(batch: Batch) -> None:
    if not is_serving(batch):
        raise not_serving(batch)


def not_serving(batch: Batch) -> NotServing:
    """Why the batch takes no work (its consent, else its status)."""
    if not has_consent(batch.dataset, ConsentUse.CORPUS_CREATION):
        return NotServing(_("This batch is paused: its community's consent to corpus creation is no longer in "
                            "force."))
    return NotServing(_("This batch is not taking work at the moment (%(status)s).")
                      % {"status": batch.get_status_display()})


def ensure_qualified(actor: User, batch: Batch) -> None:
    refuse_unqualified(qualification_problem(actor, batch))


def refuse_unqualified(problem: str | None) -> None:
    """Refuse the work of someone not qualified for its batch (`problem`: why, from `qualification_problem`)."""
    if problem:
        raise NotQualified(_("You may not work on this batch: %(reason)s.") % {"reason": problem})
