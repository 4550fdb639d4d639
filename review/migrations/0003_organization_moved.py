"""Campaigns and gate policies point at the organization model's new home; the foreign keys and their constraints
are unchanged in the database."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('organizations', '0001_moved_from_governance'),
        ('review', '0002_decisions_are_append_only'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='campaign',
                name='organization',
                field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='campaigns', to='organizations.organization'),
            ),
            migrations.AlterField(
                model_name='gatepolicy',
                name='organization',
                field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='gate_policy', to='organizations.organization'),
            ),
        ]),
    ]
