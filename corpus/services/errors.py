"""The corpus's refusals that callers catch by type: a frozen version, a refused action on versions, a
missing consent."""

from common.errors import ApplicationError, Conflict, ErrorKind


class FrozenVersionError(Conflict):
    """The version is frozen: a run card depends on it. Changes go into a new version."""


class VersionRefused(ApplicationError):
    """A refused action on versions (next version, rotation, held_out activation): every problem found, by the input
    it concerns (`problems`: `new_version`, `moves` or `held_out` → messages). The message and field are the first
    problem's, so callers that show one message show that one."""

    def __init__(self, problems: dict[str, list[str]], *, kind: ErrorKind | None = None) -> None:
        self.problems = problems
        name, messages = next(iter(problems.items()))
        super().__init__(messages[0], name, kind=kind)


class ConsentRequired(Conflict):
    """The community has not consented to what was asked (e.g. publishing without public-release consent)."""
