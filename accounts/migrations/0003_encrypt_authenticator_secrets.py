from django.db import migrations

from accounts.mfa_adapter import PREFIX, decrypt_secret, encrypt_secret

SECRET_FIELDS = {"totp": "secret", "recovery_codes": "seed"}


def encrypt_stored_secrets(apps, schema_editor):
    """Authenticators activated before secrets were encrypted at rest get their secret encrypted in place."""
    Authenticator = apps.get_model("mfa", "Authenticator")
    for authenticator in Authenticator.objects.filter(type__in=list(SECRET_FIELDS)):
        field = SECRET_FIELDS[authenticator.type]
        value = authenticator.data.get(field)
        if isinstance(value, str) and not value.startswith(PREFIX):
            authenticator.data[field] = encrypt_secret(value)
            authenticator.save(update_fields=["data"])


def decrypt_stored_secrets(apps, schema_editor):
    Authenticator = apps.get_model("mfa", "Authenticator")
    for authenticator in Authenticator.objects.filter(type__in=list(SECRET_FIELDS)):
        field = SECRET_FIELDS[authenticator.type]
        value = authenticator.data.get(field)
        if isinstance(value, str) and value.startswith(PREFIX):
            authenticator.data[field] = decrypt_secret(value)
            authenticator.save(update_fields=["data"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_api_token_scope_expiry"), ("mfa", "0003_authenticator_type_uniq")]

    operations = [migrations.RunPython(encrypt_stored_secrets, decrypt_stored_secrets)]
