"""The registry of decision kinds. Governance knows how decisions are signed, never what they do: each app that
owns an action registers its kind here from its `AppConfig.ready` (through its own `decisions` module), with how
to check a proposal, who is in conflict with it, whether it restricts (one signature, at once) and how it
executes. Governance imports no app above it; the apps import this module."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext

from common.errors import ApplicationError, ErrorKind
from common.sentences import Sentence


class UnknownKind(ApplicationError):
    default_kind = ErrorKind.INVALID


def _no_conflicts(organization, payload: dict) -> dict[int, str]:
    return {}


def _never(payload: dict) -> bool:
    return False


def _nothing(organization, payload: dict) -> None:
    return None


def _no_url(payload: dict) -> str:
    return ""


@dataclass(frozen=True)
class DecisionKind:
    """One kind of decision.

    * `execute(decision, actor)` performs the action (the owning app's service, acting for `actor`: the signer whose
      approval completed k, or the proposer where one signature decides) and returns a short note (a Sentence,
      shown in each reader's language); it raises an
      `ApplicationError` to refuse, and the decision is then marked failed;
    * `check(organization, payload)` refuses a proposal (or an amendment) that could not execute;
    * `conflicts(organization, payload)` names the members who may not sign, each with why;
    * `restricting(payload)`: the payload withdraws or restricts (one signature, applied at once);
    * `editable`: payload keys of text (or lists of lines) the proposer may change while the decision is open;
    * `checks`: (key, label) of what a signer says they checked.
    """

    name: str
    label: str | Promise
    execute: Callable[[Any, Any], "str | Sentence"]
    checks: tuple[tuple[str, str | Promise], ...] = ()
    check: Callable[[Any, dict], None] = _nothing
    conflicts: Callable[[Any, dict], dict[int, str]] = _no_conflicts
    restricting: Callable[[dict], bool] = _never
    url: Callable[[dict], str] = _no_url
    editable: tuple[str, ...] = ()
    field_labels: dict[str, str | Promise] = field(default_factory=dict)
    min_open_hours: int = 24
    expires_after_days: int = 14


_KINDS: dict[str, DecisionKind] = {}


def register(kind: DecisionKind) -> DecisionKind:
    """Called from the owning app's `ready`; registering a name twice with another definition is a programming
    error."""
    existing = _KINDS.get(kind.name)
    if existing is not None and existing is not kind:
        raise RuntimeError(f"decision kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind
    return kind


def get(name: str) -> DecisionKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise UnknownKind(gettext("Unknown kind of decision “%(name)s”; expected one of: %(known)s.") % {
            "name": name, "known": ", ".join(sorted(_KINDS))}, "kind") from None


def registered() -> list[DecisionKind]:
    return sorted(_KINDS.values(), key=lambda kind: kind.name)


def label_of(name: str) -> str:
    kind = _KINDS.get(name)
    return str(kind.label) if kind is not None else name


def english_label_of(name: str) -> str:
    """A kind's label as the catalog knows it (its English text), to be stored in a sentence and translated when
    shown (common.sentences)."""
    with translation.override("en"):
        return label_of(name)
