"""On PostgreSQL the database itself refuses to change or remove audit events.

TRUNCATE is not refused (test databases are flushed with it); an emptied log verifies as an empty
chain, so backups of the log matter (docs/deploy.md).
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION governance_refuse_audit_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'the audit log is append-only' USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


def create_trigger(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION)
    schema_editor.execute(
        "CREATE TRIGGER governance_auditevent_append_only BEFORE UPDATE OR DELETE ON governance_auditevent "
        "FOR EACH ROW EXECUTE FUNCTION governance_refuse_audit_change()"
    )


def drop_trigger(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("DROP TRIGGER IF EXISTS governance_auditevent_append_only ON governance_auditevent")
    schema_editor.execute("DROP FUNCTION IF EXISTS governance_refuse_audit_change()")


class Migration(migrations.Migration):
    dependencies = [("governance", "0002_auditevent")]

    operations = [migrations.RunPython(create_trigger, drop_trigger)]
