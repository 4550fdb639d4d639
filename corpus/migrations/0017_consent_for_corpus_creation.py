"""A fifth consent use, corpus creation (elicitation: speakers' own translations added to the dataset). The
trigger that lets a consent record change only by being revoked compares the new column too."""

from django.conf import settings
from django.db import migrations, models

COLUMNS = ("dataset_id, public_release, evaluation, human_review, gateway_disclosure, {extra}granted_by_name, "
           "granted_on, document, document_name, document_reference, notes, recorded_by_id, recorded_at")

FUNCTION = """
CREATE OR REPLACE FUNCTION corpus_consent_only_revoked() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'consent records are never deleted; revoke them instead'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.revoked_at IS NOT NULL OR (%(new)s) IS DISTINCT FROM (%(old)s) THEN
        RAISE EXCEPTION 'a consent record changes only by being revoked, once; record a new consent instead'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""


def trigger_function(extra: str) -> str:
    columns = [name.strip() for name in COLUMNS.format(extra=extra).split(",")]
    return FUNCTION % {"new": ", ".join(f"NEW.{name}" for name in columns),
                       "old": ", ".join(f"OLD.{name}" for name in columns)}


def compare_new_column(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(trigger_function("corpus_creation, "))


def compare_without_it(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(trigger_function(""))


class Migration(migrations.Migration):

    dependencies = [
        ("corpus", "0016_local_contexts_labels"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="consentrecord", name="consent_covers_a_use"),
        migrations.AddField(model_name="consentrecord", name="corpus_creation",
                            field=models.BooleanField(default=False)),
        migrations.AddConstraint(
            model_name="consentrecord",
            constraint=models.CheckConstraint(
                condition=models.Q(("public_release", True), ("evaluation", True), ("human_review", True),
                                   ("gateway_disclosure", True), ("corpus_creation", True), _connector="OR"),
                name="consent_covers_a_use"),
        ),
        migrations.RunPython(compare_new_column, compare_without_it),
    ]
