"""Every write of the ledger that needs no other app's rule. (Setting pay rates, recording payments and speakers'
credit choices still live in review/services/pay.py: they check the campaign's ratings and answer with review's
refusals.)"""

from django.db import transaction

from accounts.models import User

from .models import SpeakerCredit

DISPLAY_NAME_LIMIT = 100


@transaction.atomic
def keep_credited_names(*, actor: User) -> None:
    """Before the account forgets its name: a speaker credited by their name keeps that credit, the name moving
    into it (anonymous when the account has none)."""
    name = actor.get_full_name().strip()[:DISPLAY_NAME_LIMIT]
    for credit in SpeakerCredit.objects.filter(user=actor, choice=SpeakerCredit.Choice.NAME):
        credit.choice = SpeakerCredit.Choice.DISPLAY_NAME if name else SpeakerCredit.Choice.ANONYMOUS
        credit.display_name = name
        credit.save(update_fields=["choice", "display_name"])
