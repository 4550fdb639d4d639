"""Registering a method without a run card."""


from django.db import transaction

from accounts.models import User
from common.errors import ErrorKind
from common.problems import FieldProblem

from ..models import (
    Method,
)
from .errors import RunCardRejected
from .intake import check_method, publishable_method, save_method


@transaction.atomic
def register_method(*, actor: User, body: dict) -> Method:
    """Store a method card (and manifest) submitted on its own."""
    problems: list[FieldProblem] = []
    if not isinstance(body, dict) or not isinstance(body.get("method_card"), dict):
        raise RunCardRejected(ErrorKind.INVALID, [FieldProblem("method_card", "required object is missing")])
    dependency_class = check_method(body, problems)
    if problems:
        raise RunCardRejected(ErrorKind.INVALID, problems)
    stored, owned = publishable_method(body["method_card"], actor)
    if stored is not None and not owned and stored.card != body["method_card"]:
        raise RunCardRejected(ErrorKind.CONFLICT, [FieldProblem("method_card.method_id", (
            f"method {stored.method_id!r} belongs to another submitter (or is built into the harness): its card is not "
            "replaced; run cards of it are published as they are"))])
    method = save_method(body, dependency_class, actor)
    assert method is not None  # save_method returns None only without a method_card object, refused above
    return method
