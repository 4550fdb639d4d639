"""Thresholds keep their meaning: stored policies are brought into the ranges a policy may now set (usable share
0.50–0.95, tier floor 0.25–0.95, reject share at most 0.50, AC1 at least 0.40; review.gate.POLICY_RANGES), then the
database refuses anything outside them."""

from django.db import migrations, models
from django.db.models import Q

RANGES = {
    "min_usable_lower_bound": (0.50, 0.95),
    "min_tier_usable_share": (0.25, 0.95),
    "max_reject_share": (0.0, 0.50),
    "min_ac1": (0.40, 1.0),
}


def into_ranges(apps, schema_editor):
    GatePolicy = apps.get_model("review", "GatePolicy")
    for policy in GatePolicy.objects.all():
        for name, (low, high) in RANGES.items():
            setattr(policy, name, min(max(getattr(policy, name), low), high))
        policy.save(update_fields=list(RANGES))


class Migration(migrations.Migration):

    dependencies = [
        ("review", "0013_drop_fk_indexes_led_by_composites_partial_withdrawal"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="gatepolicy", name="gatepolicy_min_ac1_in_range"),
        migrations.RemoveConstraint(model_name="gatepolicy", name="gatepolicy_thresholds_in_range"),
        migrations.RunPython(into_ranges, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="gatepolicy",
            constraint=models.CheckConstraint(condition=Q(min_ac1__gte=0.4, min_ac1__lte=1),
                                              name="gatepolicy_min_ac1_meaningful"),
        ),
        migrations.AddConstraint(
            model_name="gatepolicy",
            constraint=models.CheckConstraint(
                condition=Q(min_usable_lower_bound__gte=0.5, min_usable_lower_bound__lte=0.95,
                            min_tier_usable_share__gte=0.25, min_tier_usable_share__lte=0.95,
                            max_reject_share__gte=0, max_reject_share__lte=0.5,
                            min_alpha__gte=-1, min_alpha__lte=1),
                name="gatepolicy_thresholds_meaningful",
            ),
        ),
    ]
