"""A located problem in a submitted JSON document (run card, method card, manifest), written in the language of the
request being served."""

from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.formats import number_format
from django.utils.translation import ngettext


@dataclass(frozen=True)
class FieldProblem:
    """`path` is a JSON path such as `scores.chrf_plus_plus` or `results[3].entry_id`."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


# A refusal lists at most this many problems, then one saying how many more there are.
MAX_LISTED_PROBLEMS = 200


class ProblemList(list[FieldProblem]):
    """Problems as they are found: the first MAX_LISTED_PROBLEMS kept, the rest only counted, so that a document
    of a million bad rows costs a few hundred problems rather than a million (`listed`)."""

    def __init__(self, problems: Iterable[FieldProblem] = ()):
        super().__init__()
        self.unlisted = 0
        self.extend(problems)

    def append(self, problem: FieldProblem) -> None:
        if len(self) < MAX_LISTED_PROBLEMS:
            super().append(problem)
        else:
            self.unlisted += 1

    def extend(self, problems: Iterable[FieldProblem]) -> None:
        for problem in problems:
            self.append(problem)
        if isinstance(problems, ProblemList):
            self.unlisted += problems.unlisted

    def __iadd__(self, problems: Iterable[FieldProblem]) -> "ProblemList":  # type: ignore[override, misc]
        self.extend(problems)
        return self


def listed(problems: list[FieldProblem]) -> list[FieldProblem]:
    """At most MAX_LISTED_PROBLEMS problems, then one saying how many more there are (a list so cut already is
    returned as it is)."""
    if not isinstance(problems, ProblemList) and len(problems) <= MAX_LISTED_PROBLEMS + 1:
        return problems
    kept = problems if isinstance(problems, ProblemList) else ProblemList(problems)
    if not kept.unlisted:
        return list(kept)
    return [*kept, FieldProblem("", ngettext(
        "and %(count)s more problem, not listed (at most %(limit)s are); correct these and send it again",
        "and %(count)s more problems, not listed (at most %(limit)s are); correct these and send it again",
        kept.unlisted) % {"count": grouped(kept.unlisted), "limit": MAX_LISTED_PROBLEMS})]


def grouped(count: int) -> str:
    """A count or a size in a problem, its thousands grouped as the reader's language writes them (1,800 in English,
    1 800 in French): a number the site states, not a value echoed from the document (those stay as written)."""
    return number_format(count, force_grouping=True)
