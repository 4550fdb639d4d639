"""The kinds of paid work the ledger pays for. The ledger sits below the apps whose work it pays and never imports
them: each registers its kind from its `AppConfig.ready` (review: campaigns; elicitation: batches) — which model it
is, which foreign key of `Payment` names it, and who did work on it — as the decision kinds register with
governance."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import models
from django.db.models import QuerySet


@dataclass(frozen=True)
class PaidWork:
    model: type[models.Model]
    payment_field: str
    """`Payment`'s foreign key naming a piece of this work."""
    has_worked: Callable[[Any, Any], bool]
    """Whether the speaker did paid work on the piece (a payment to anyone else is refused)."""
    organizations_worked_for: Callable[[Any], QuerySet]
    """The ids of the organizations the user ever did this kind of work for (a queryset of values)."""
    nobody_message: Callable[[], str]
    """The refusal when the speaker did no work on the piece, in the work's own words."""


_KINDS: dict[str, PaidWork] = {}


def register(kind: PaidWork) -> PaidWork:
    """Called once per kind from its app's `ready()`; registering the same model twice is a programming error."""
    label = kind.model._meta.label
    existing = _KINDS.get(label)
    if existing is not None and existing != kind:
        raise RuntimeError(f"Paid work {label} is registered twice.")
    _KINDS[label] = kind
    return kind


def kind_of(work: models.Model) -> PaidWork:
    return _KINDS[type(work)._meta.label]


def registered() -> list[PaidWork]:
    return list(_KINDS.values())
