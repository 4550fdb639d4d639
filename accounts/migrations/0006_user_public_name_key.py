import unicodedata

from django.db import migrations, models


def fill_public_name_keys(apps, schema_editor):
    """Each chosen public name's key (accounts.models.public_name_key as written when this ran). Names that only the
    database's ASCII-only LOWER() told apart (SQLite: "Kîsik" and "KÎSIK") are one name now: the account that chose it
    first keeps it, the others go back to their pseudonym and may choose again."""
    User = apps.get_model("accounts", "User")
    taken = set()
    for pk, name in User.objects.exclude(public_name="").order_by("pk").values_list("pk", "public_name"):
        key = unicodedata.normalize("NFC", unicodedata.normalize("NFD", name).casefold())
        if key in taken:
            User.objects.filter(pk=pk).update(public_name="")
        else:
            taken.add(key)
            User.objects.filter(pk=pk).update(public_name_key=key)


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0005_user_public_name'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='public_name_key',
            field=models.CharField(blank=True, editable=False, help_text="The public name case-folded (public_name_key): what no other account's may equal.", max_length=180),
        ),
        migrations.RunPython(fill_public_name_keys, migrations.RunPython.noop),
        migrations.RemoveConstraint(
            model_name='user',
            name='user_public_name_unique',
        ),
        migrations.AddConstraint(
            model_name='user',
            constraint=models.UniqueConstraint(condition=models.Q(('public_name_key', ''), _negated=True), fields=('public_name_key',), name='user_public_name_key_unique'),
        ),
    ]
