"""On PostgreSQL, the database itself refuses any change to the entries of a frozen version.

Statement-level triggers with transition tables check each INSERT, UPDATE or DELETE once, so bulk
imports (and COPY) stay fast. Other databases rely on corpus.services.ensure_editable.
"""

from django.db import migrations

FUNCTION = """
CREATE OR REPLACE FUNCTION corpus_refuse_frozen_entry_change() RETURNS trigger AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM changed JOIN corpus_datasetversion v ON v.id = changed.version_id
        WHERE v.frozen_at IS NOT NULL
    ) THEN
        RAISE EXCEPTION 'entries of a frozen dataset version cannot change; create a new version'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""

TRIGGERS = [
    ("corpus_entry_frozen_insert", "INSERT", "NEW"),
    ("corpus_entry_frozen_update_old", "UPDATE", "OLD"),
    ("corpus_entry_frozen_update_new", "UPDATE", "NEW"),
    ("corpus_entry_frozen_delete", "DELETE", "OLD"),
]


def create_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(FUNCTION)
    for name, event, table in TRIGGERS:
        schema_editor.execute(
            f"CREATE TRIGGER {name} AFTER {event} ON corpus_entry REFERENCING {table} TABLE AS changed "
            "FOR EACH STATEMENT EXECUTE FUNCTION corpus_refuse_frozen_entry_change()"
        )


def drop_triggers(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for name, _, _ in TRIGGERS:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name} ON corpus_entry")
    schema_editor.execute("DROP FUNCTION IF EXISTS corpus_refuse_frozen_entry_change()")


class Migration(migrations.Migration):
    dependencies = [("corpus", "0002_stagedimport")]

    operations = [migrations.RunPython(create_triggers, drop_triggers)]
