"""The check on the column 0006 filled, in its own migration (and transaction) after the data."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("corpus", "0006_dataset_version_hash_source")]

    operations = [
        migrations.AddConstraint(
            model_name="datasetversion",
            constraint=models.CheckConstraint(condition=models.Q(public_sha256__regex="^[0-9a-f]{64}$"),
                                              name="dataset_version_public_sha256_hex"),
        ),
    ]
