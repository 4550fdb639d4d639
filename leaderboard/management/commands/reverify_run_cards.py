from django.core.management.base import BaseCommand

from leaderboard.models import RunCard
from leaderboard.services import verify_run_card


class Command(BaseCommand):
    help = ("Verify stored run cards again, one at a time: cards verified before the leaderboard grouped by the "
            "card's own fingerprint and showed chrF++ intervals lack them until then (all ready cards with --all).")

    def add_arguments(self, parser):
        parser.add_argument("--all", action="store_true", help="every ready card, not only those lacking them")

    def handle(self, **options):
        cards = RunCard.objects.filter(status=RunCard.Status.READY)
        if not options["all"]:
            cards = cards.filter(setup_fingerprint="")
        done = 0
        for pk in cards.order_by("pk").values_list("pk", flat=True):
            verify_run_card(pk)
            done += 1
            if done % 50 == 0:
                self.stdout.write(f"{done} cards verified again")
        self.stdout.write(f"{done} cards verified again")
