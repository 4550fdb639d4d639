import datetime

from django.db import migrations, models


def expire_existing_tokens_in_90_days(apps, schema_editor):
    """Tokens created before scopes and expiry keep working as publish tokens for 90 days from now."""
    ApiToken = apps.get_model("accounts", "ApiToken")
    from django.utils import timezone

    ApiToken.objects.update(expires_at=timezone.now() + datetime.timedelta(days=90))


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="scope",
            field=models.CharField(
                choices=[
                    ("read", "Read public data only"),
                    ("publish", "Read public data and publish run cards and methods"),
                    ("secret", "Also read the secret segments your roles show (needs two-factor authentication)"),
                ],
                default="publish",
                max_length=10,
            ),
        ),
        migrations.AddField(model_name="apitoken", name="expires_at", field=models.DateTimeField(null=True)),
        migrations.RunPython(expire_existing_tokens_in_90_days, migrations.RunPython.noop),
        migrations.AlterField(model_name="apitoken", name="expires_at", field=models.DateTimeField()),
        migrations.AddField(
            model_name="apitoken", name="revoked_reason", field=models.CharField(blank=True, max_length=200)
        ),
        migrations.AddConstraint(
            model_name="apitoken",
            constraint=models.CheckConstraint(
                condition=models.Q(scope__in=["read", "publish", "secret"]), name="api_token_scope_known"
            ),
        ),
        migrations.AddConstraint(
            model_name="apitoken",
            constraint=models.CheckConstraint(
                condition=models.Q(expires_at__gt=models.F("created_at")), name="api_token_expires_after_creation"
            ),
        ),
    ]
