"""The leaderboard's state stamp and the triggers that change it (leaderboard/state.py)."""

from django.db import migrations, models

from leaderboard.state import state_triggers


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboard', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='LeaderboardState',
            fields=[
                ('id', models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False)),
                ('stamp', models.CharField(max_length=64)),
            ],
        ),
        state_triggers(),
    ]
