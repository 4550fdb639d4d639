"""Every write of the submissions app, one module per job (SPEC §5, §6; docs/submissions.md): participation terms
(`terms`), a method submitted or its package revised (`submitting`), how a move is worded when refused and recorded
(`states`), the moves governance staff make (`workflow`), the ownership transfer (`transfer`), the dependencies'
sign-offs and rights holders' permissions (`dependencies`), and their refusals (`errors`). Inside submissions,
import from the domain module; the names below are the ones its views and decisions, other apps and tests use."""

from .dependencies import (
    a2_dependency_ids,
    declared_dependency_ids,
    missing_rights_permissions,
    missing_sign_offs,
    record_package_download,
    record_rights_permission,
    sign_off_dependency,
    submission_conflicts,
)
from .errors import NotAllowed, SubmissionError, TransitionRefused
from .states import State, state_label
from .submitting import revise_package, submit_method
from .terms import accept_terms, publish_terms
from .transfer import check_transfer, record_ownership_transfer, refuse_untransferable
from .workflow import advance_submission, check_approval

__all__ = [
    "NotAllowed", "State", "SubmissionError", "TransitionRefused", "a2_dependency_ids", "accept_terms",
    "advance_submission", "check_approval", "check_transfer", "declared_dependency_ids", "missing_rights_permissions",
    "missing_sign_offs", "publish_terms", "record_ownership_transfer", "record_package_download",
    "record_rights_permission", "refuse_untransferable", "revise_package", "sign_off_dependency", "state_label",
    "submission_conflicts", "submit_method",
]
