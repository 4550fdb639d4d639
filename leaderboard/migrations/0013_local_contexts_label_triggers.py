from django.db import migrations

from leaderboard.state import table_triggers


class Migration(migrations.Migration):
    """Leaderboard rows show the Local Contexts labels of their data: a label, its translations or a release of them
    changing changes the state stamp, so no cached ranking outlives them."""

    dependencies = [
        ('leaderboard', '0012_a1_run_approvals'),
        ('corpus', '0016_local_contexts_labels'),
    ]

    operations = [
        table_triggers("corpus_culturallabel", ("INSERT", "UPDATE", "DELETE")),
        table_triggers("corpus_culturallabeltranslation", ("INSERT", "UPDATE", "DELETE")),
    ]
