"""The refusals of the leaderboard's writes, and the written reason a decision or a declaration carries."""

from typing import Any

from django.utils.translation import gettext

from common.errors import ApplicationError, ErrorKind
from common.problems import FieldProblem, listed
from corpus.models import DatasetVersion
from corpus.validation import (
    unstorable_string,
)


class RunCardRejected(ApplicationError):
    """The card is refused: `kind` says why (invalid, not allowed, conflicting with what is stored), `problems`
    where, `detail` a summary when the kind alone does not say it."""

    def __init__(self, kind: ErrorKind, problems: list[FieldProblem], detail: str = ""):
        problems = listed(problems)
        super().__init__("; ".join(str(p) for p in problems[:5]), kind=kind)
        self.problems = problems
        self.detail = detail


class SecretTextRefusalsUsedUp(RunCardRejected):
    """Too many refusals by the secret-text scan lately (refuse_after_too_many_secret_text_refusals): nothing is
    scanned until `retry_after_seconds` have passed."""

    def __init__(self, problems: list[FieldProblem], retry_after_seconds: int):
        super().__init__(ErrorKind.THROTTLED, problems,
                         gettext("too many of your run cards were refused for secret text"))
        self.retry_after_seconds = retry_after_seconds


class SecretTextRefused(RunCardRejected):
    """A refusal by the secret-text scan. It tells the submitter that a string of theirs is secret, so it is
    recorded in the steward's audit log (`paths`: all of them, whatever the submitter was told)."""

    def __init__(self, problems: list[FieldProblem], version: DatasetVersion, paths: list[str]):
        super().__init__(ErrorKind.INVALID, problems)
        self.version = version
        self.paths = paths


class LeaderboardError(ApplicationError):
    """A refused leaderboard action (disqualification, tier bands), with the field at fault."""


REASON_MAX_LENGTH = 2000


def written_reason(reason: Any, field: str = "reason") -> str:
    """A reason as it is recorded: required, at most REASON_MAX_LENGTH characters, text PostgreSQL can store."""
    if not isinstance(reason, str) or not reason.strip():
        raise LeaderboardError(gettext("Write the reason: it is recorded and shown with the decision."), field)
    reason = reason.strip()
    if len(reason) > REASON_MAX_LENGTH:
        raise LeaderboardError(gettext("The reason has %(count)s characters; at most %(limit)s are kept.") % {
            "count": len(reason), "limit": REASON_MAX_LENGTH}, field)
    if (problem := unstorable_string(reason)) is not None:
        raise LeaderboardError(gettext("The reason cannot be stored: %(problem)s.") % {"problem": problem}, field)
    return reason
