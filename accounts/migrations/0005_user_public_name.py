from django.db import migrations, models
from django.db.models.functions import Lower


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0004_user_interface_language'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='public_name',
            field=models.CharField(blank=True, help_text='The name published with what the account publishes through the harness; empty: its pseudonym.', max_length=60),
        ),
        migrations.AddConstraint(
            model_name='user',
            constraint=models.UniqueConstraint(Lower('public_name'), condition=models.Q(('public_name', ''), _negated=True), name='user_public_name_unique'),
        ),
    ]
