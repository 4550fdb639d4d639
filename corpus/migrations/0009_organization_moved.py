"""Datasets point at the organization model's new home; the foreign key and its constraint are unchanged in the
database."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('corpus', '0008_public_sha256_keyed_for_secret_entries'),
        ('organizations', '0001_moved_from_governance'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.AlterField(
                model_name='dataset',
                name='organization',
                field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='datasets', to='organizations.organization'),
            ),
        ]),
    ]
