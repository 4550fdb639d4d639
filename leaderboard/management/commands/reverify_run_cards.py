from django.core.management.base import BaseCommand

from leaderboard.models import RunCard
from leaderboard.services import verify_run_card


class Command(BaseCommand):
    help = ("Verify every ready run card again, one at a time, against the stored corpus: cards verified before "
            "their scores were computed against the stored entries show what their own results claimed until then. "
            "Corpus BLEU and TER, for cards that report them, follow in a task each.")

    def handle(self, **options):
        done = 0
        for pk in RunCard.objects.filter(status=RunCard.Status.READY).order_by("pk").values_list("pk", flat=True):
            verify_run_card(pk)
            done += 1
            if done % 50 == 0:
                self.stdout.write(f"{done} cards verified again")
        self.stdout.write(f"{done} cards verified again")
