"""A located problem in a submitted JSON document (run card, method card, manifest)."""

from dataclasses import dataclass


@dataclass(frozen=True)
class FieldProblem:
    """`path` is a JSON path such as `scores.chrf_plus_plus` or `results[3].entry_id`."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message

    def as_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}
