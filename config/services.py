"""The writes that reach every app: a speaker's withdrawing everything, and deleting an account. They live in the
top layer, which may call each app's own step (review's withdrawals and credits, elicitation's translations, the
speakers' ledger, memberships, the account itself)."""

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.services import anonymise_user
from elicitation.services import withdraw_elicited_work
from ledger.services import keep_credited_names
from organizations.audit import record_event
from organizations.models import AuditAction, Membership
from organizations.services import remove_member
from review.models import RatingWithdrawal
from review.services.errors import NothingToWithdraw
from review.services.speaker_rights import withdraw_all_ratings
from speakers.services import forget_skills


@dataclass(frozen=True)
class Withdrawn:
    """What withdrawing everything did: review's rating withdrawals, and elicitation's figures (translations
    withdrawn, entries taken out of draft versions, translations kept because a frozen version holds them)."""

    ratings: list[RatingWithdrawal]
    elicited: dict[str, int]


@transaction.atomic
def withdraw_everything(*, actor: User) -> Withdrawn:
    """The speaker's one "withdraw everything": their ratings in every campaign, and their elicited translations that
    no frozen version holds (what a frozen version holds stays, as every frozen version does). With nothing to
    withdraw anywhere, review's NothingToWithdraw says so and nothing changes."""
    try:
        ratings = withdraw_all_ratings(actor=actor)
    except NothingToWithdraw:
        ratings = []
        nothing = True
    else:
        nothing = False
    elicited = withdraw_elicited_work(actor=actor)
    if nothing and not elicited["withdrawn"]:
        raise NothingToWithdraw(_("You have no ratings to withdraw."))
    return Withdrawn(ratings, elicited)


@transaction.atomic
def delete_account(*, actor: User, withdraw: bool) -> None:
    """The user deletes their account: their ratings and elicited translations stay as their last choices say —
    withdrawn if they ask it here or did before (translations a frozen version holds stay there), else kept and
    credited as they chose (a speaker credited by their name keeps that credit: the name moves into it before the
    account forgets it). They leave every organization (refused while they are its last governance member), then
    the account is anonymised."""
    translations_withdrawn = withdraw_everything(actor=actor).elicited["withdrawn"] if withdraw else 0
    forget_skills(actor=actor)
    keep_credited_names(actor=actor)
    for membership in Membership.objects.filter(user=actor).order_by("pk"):
        remove_member(actor=actor, membership=membership)
    record_event(AuditAction.ACCOUNT_DELETED, actor=actor, obj=actor, details={
        "ratings_withdrawn": withdraw, "translations_withdrawn": translations_withdrawn})
    anonymise_user(actor)
