from django.db import migrations

from accounts.mfa_adapter import PREFIX, decrypt_secret, encrypt_secret

SECRET_FIELDS = {"totp": "secret", "recovery_codes": "seed"}


def _convert(apps, convert, wanted) -> None:
    Authenticator = apps.get_model("mfa", "Authenticator")
    for authenticator in Authenticator.objects.filter(type__in=list(SECRET_FIELDS)):
        data = authenticator.data
        field = SECRET_FIELDS[authenticator.type]
        if isinstance(data.get(field), str) and wanted(data[field]):
            data[field] = convert(data[field])
        if isinstance(data.get("migrated_codes"), list):  # recovery codes carried over from another package
            data["migrated_codes"] = [convert(code) if wanted(code) else code for code in data["migrated_codes"]]
        authenticator.save(update_fields=["data"])


def encrypt_stored_secrets(apps, schema_editor):
    """Authenticators activated before secrets were encrypted at rest get their secrets encrypted in place."""
    _convert(apps, encrypt_secret, lambda value: not value.startswith(PREFIX))


def decrypt_stored_secrets(apps, schema_editor):
    _convert(apps, decrypt_secret, lambda value: value.startswith(PREFIX))


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_api_token_scope_expiry"), ("mfa", "0003_authenticator_type_uniq")]

    operations = [migrations.RunPython(encrypt_stored_secrets, decrypt_stored_secrets)]
