"""An index of entries by their exact source text (its MD5 as a UUID): elicitation's machine-paste check finds the
stored machine outputs of a source through it instead of reading every entry's text."""

import django.db.models.functions.comparison
import django.db.models.functions.text
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('corpus', '0017_consent_for_corpus_creation'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='entry',
            index=models.Index(django.db.models.functions.comparison.Cast(django.db.models.functions.text.MD5('source'), output_field=models.UUIDField()), name='entry_source_digest'),
        ),
    ]
