"""The one write that reaches every app: deleting an account. It lives in the top layer, which may call each
app's own step (review's withdrawals and credits, the speakers' ledger, memberships, the account itself)."""

from django.db import transaction

from accounts.models import User
from accounts.services import anonymise_user
from ledger.services import keep_credited_names
from organizations.audit import record_event
from organizations.models import AuditAction, Membership
from organizations.services import remove_member
from review.services.speaker_rights import withdraw_all_ratings
from speakers.services import forget_skills


@transaction.atomic
def delete_account(*, actor: User, withdraw: bool) -> None:
    """The user deletes their account: their ratings stay as their last choices say — withdrawn if they ask it here
    or did before, else kept and credited as they chose (a speaker credited by their name keeps that credit: the
    name moves into it before the account forgets it). They leave every organization (refused while they are its
    last governance member), then the account is anonymised."""
    if withdraw:
        withdraw_all_ratings(actor=actor)
    forget_skills(actor=actor)
    keep_credited_names(actor=actor)
    for membership in Membership.objects.filter(user=actor).order_by("pk"):
        remove_member(actor=actor, membership=membership)
    record_event(AuditAction.ACCOUNT_DELETED, actor=actor, obj=actor, details={"ratings_withdrawn": withdraw})
    anonymise_user(actor)
