from django.conf import settings
from django.db import migrations, models


def raise_min_rated_items(apps, schema_editor):
    """No policy may conclude from fewer than 30 rated items (docs/validation-gate.md)."""
    apps.get_model("review", "GatePolicy").objects.filter(min_rated_items__lt=30).update(min_rated_items=30)


class Migration(migrations.Migration):

    dependencies = [
        ('organizations', '0004_audit_actions_for_speaker_guidance'),
        ('review', '0005_rating_examples'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='gatepolicy',
            name='min_ac1',
            field=models.FloatField(default=0.6),
        ),
        migrations.AddConstraint(
            model_name='gatepolicy',
            constraint=models.CheckConstraint(condition=models.Q(('min_ac1__gte', 0), ('min_ac1__lte', 1)), name='gatepolicy_min_ac1_in_range'),
        ),
        migrations.AddField(
            model_name='gatepolicy',
            name='min_distinct_speakers',
            field=models.PositiveIntegerField(default=3),
        ),
        migrations.AddConstraint(
            model_name='gatepolicy',
            constraint=models.CheckConstraint(condition=models.Q(('min_distinct_speakers__gte', 2)), name='gatepolicy_min_distinct_speakers_at_least_2'),
        ),
        migrations.RunPython(raise_min_rated_items, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name='gatepolicy',
            constraint=models.CheckConstraint(condition=models.Q(('min_rated_items__gte', 30)), name='gatepolicy_min_rated_items_at_least_30'),
        ),
    ]
