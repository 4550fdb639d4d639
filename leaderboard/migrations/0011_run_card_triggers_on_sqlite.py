from django.db import migrations

from leaderboard.state import recreate_card_triggers_on_sqlite


class Migration(migrations.Migration):
    """The run cards' stamp triggers again on SQLite, which dropped them when 0009 rebuilt the table: there a decision,
    a withdrawal or a card turning ready left the cached leaderboard as it was (nothing to do on PostgreSQL)."""

    dependencies = [
        ('leaderboard', '0010_conflict_declarations'),
    ]

    operations = [
        migrations.RunPython(recreate_card_triggers_on_sqlite, migrations.RunPython.noop),
    ]
