"""On PostgreSQL the database itself keeps consent records: never deleted, and changed only by being
revoked once (revoked_at, revoked_by and revocation_reason set on an active record). Re-granting is a new
record. TRUNCATE is not refused (test databases are flushed with it).
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION corpus_consent_only_revoked() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'consent records are never deleted; revoke them instead'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.revoked_at IS NOT NULL
       OR (NEW.dataset_id, NEW.public_release, NEW.evaluation, NEW.human_review, NEW.gateway_disclosure,
           NEW.granted_by_name, NEW.granted_on, NEW.document, NEW.document_name, NEW.document_reference,
           NEW.notes, NEW.recorded_by_id, NEW.recorded_at)
          IS DISTINCT FROM
          (OLD.dataset_id, OLD.public_release, OLD.evaluation, OLD.human_review, OLD.gateway_disclosure,
           OLD.granted_by_name, OLD.granted_on, OLD.document, OLD.document_name, OLD.document_reference,
           OLD.notes, OLD.recorded_by_id, OLD.recorded_at) THEN
        RAISE EXCEPTION 'a consent record changes only by being revoked, once; record a new consent instead'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION)
    schema_editor.execute(
        "CREATE TRIGGER corpus_consentrecord_only_revoked BEFORE UPDATE OR DELETE ON corpus_consentrecord "
        "FOR EACH ROW EXECUTE FUNCTION corpus_consent_only_revoked()"
    )


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP TRIGGER IF EXISTS corpus_consentrecord_only_revoked ON corpus_consentrecord")
    schema_editor.execute("DROP FUNCTION IF EXISTS corpus_consent_only_revoked()")


class Migration(migrations.Migration):
    dependencies = [("corpus", "0004_consentrecord")]

    operations = [migrations.RunPython(create_trigger, drop_trigger)]
