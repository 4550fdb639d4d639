"""A method submission's declaration of the public development entries its method used."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('submissions', '0003_drop_fk_indexes_led_by_composites'),
    ]

    operations = [
        migrations.AddField(
            model_name='methodsubmission',
            name='development_data',
            field=models.JSONField(blank=True, help_text="The submitter's declaration of the public development entries the method used (leaderboard.declarations); null on submissions made before it was asked.", null=True),
        ),
    ]
