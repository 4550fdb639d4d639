"""Interface language tags: any lower-case BCP 47 tag, private-use parts such as crk-x-ux included."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('languages', '0002_drop_fk_indexes_led_by_composites'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='interfacelanguage',
            name='interfacelanguage_code_bcp47_lower',
        ),
        migrations.AddConstraint(
            model_name='interfacelanguage',
            constraint=models.CheckConstraint(condition=models.Q(('code__regex', '^[a-z]{2,3}(-[a-z]{3}){0,3}(-[a-z]{4})?(-([a-z]{2}|[0-9]{3}))?(-([a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*(-[0-9a-wy-z](-[a-z0-9]{2,8})+)*(-x(-[a-z0-9]{1,8})+)?$')), name='interfacelanguage_code_bcp47_lower'),
        ),
    ]
