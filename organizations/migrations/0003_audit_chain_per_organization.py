"""Each organization gets its own audit chain; every event logged so far stays in the `site` chain it was linked in."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('organizations', '0002_audit_actions_are_an_enum'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='auditevent',
            name='chain',
            field=models.CharField(default='site', max_length=40),
        ),
        migrations.AddIndex(
            model_name='auditevent',
            index=models.Index(fields=['chain', 'id'], name='auditevent_chain_id'),
        ),
    ]
