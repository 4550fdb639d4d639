"""A sentence stored to be shown later in the language of whoever reads it (a decision's summary and outcome): its
English text, marked for the catalog with `gettext_noop` where it is written, and its values, translated when shown.
Text stored already translated would stay in the language of the person who happened to write it."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext


@dataclass(frozen=True)
class Sentence:
    """`text` % `values`, with `text` (and the values named in `translated`, themselves English texts of the catalog,
    such as a kind of decision's label) translated into the active language each time it is shown."""

    text: str
    values: Mapping[str, Any] = field(default_factory=dict)
    translated: tuple[str, ...] = ()

    def __str__(self) -> str:
        values = {name: gettext(value) if name in self.translated else value for name, value in self.values.items()}
        return gettext(self.text) % values if values else gettext(self.text)

    def as_json(self) -> dict[str, Any]:
        return {"text": self.text, "values": dict(self.values), "translated": list(self.translated)}

    @classmethod
    def from_json(cls, stored: Any) -> "Sentence | None":
        """The sentence `as_json` stored, or None for anything else (a row stored before sentences were)."""
        if not isinstance(stored, dict) or not isinstance(stored.get("text"), str):
            return None
        return cls(stored["text"], stored.get("values") or {}, tuple(stored.get("translated") or ()))


def shown(stored: Any, fallback: str) -> str:
    """A stored sentence in the active language; `fallback`, the text stored beside it, when there is none."""
    sentence = Sentence.from_json(stored)
    return str(sentence) if sentence is not None else fallback
