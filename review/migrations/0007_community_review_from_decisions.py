"""Each run card's community decision in force, from the decisions already recorded: the leaderboard shows a
rejection or a revocation instead of "awaiting community review"."""

from django.db import migrations


def fill_community_review(apps, schema_editor):
    Decision = apps.get_model("review", "Decision")
    RunCard = apps.get_model("leaderboard", "RunCard")
    in_force = {}
    for run_card_id, outcome, decided_at in (Decision.objects.order_by("decided_at", "pk")
                                             .values_list("campaign__run_card_id", "outcome", "decided_at")):
        in_force[run_card_id] = (outcome, decided_at)
    for run_card_id, (outcome, decided_at) in in_force.items():
        RunCard.objects.filter(pk=run_card_id).update(community_review=outcome, community_reviewed_at=decided_at)


class Migration(migrations.Migration):

    dependencies = [
        ("leaderboard", "0003_community_review"),
        ("review", "0006_gate_evidence"),
    ]

    operations = [migrations.RunPython(fill_community_review, migrations.RunPython.noop)]
