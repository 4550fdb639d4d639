"""Review's kind of paid work for the ledger (`ledger.work`): a campaign, paid to the speakers who rated in it.
Registered from `ReviewConfig.ready`."""

from django.db.models import QuerySet
from django.utils.translation import gettext as _

from ledger import work

from .models import Campaign, Rating


def has_rated(campaign: Campaign, speaker) -> bool:
    return Rating.objects.filter(assignment__campaign=campaign, speaker=speaker).exists()


def organizations_rated_for(user) -> QuerySet:
    return Rating.objects.filter(speaker=user).values("assignment__campaign__organization_id")


def nobody_message() -> str:
    return _("This speaker has no ratings in the campaign.")


def register() -> None:
    work.register(work.PaidWork(model=Campaign, payment_field="campaign", has_worked=has_rated,
                                organizations_worked_for=organizations_rated_for, nobody_message=nobody_message))
