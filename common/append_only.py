"""The append-only rule, once: records that are evidence (the audit log, decisions, accepted terms, state
history, transfers) are written once and never changed or deleted. The application refuses it on the row and
on bulk querysets; on PostgreSQL a trigger refuses it in the database as well (`append_only_triggers`, used by
the migrations that create such tables). TRUNCATE is not refused: test databases are flushed with it."""

from django.db import migrations, models

FUNCTION = "refuse_append_only_change"
CREATE_FUNCTION = f"""
CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION USING MESSAGE = TG_TABLE_NAME || ' is append-only: rows are never changed or deleted',
        ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
"""


class AppendOnlyQuerySet(models.QuerySet):
    """Bulk changes would bypass the rows' own refusal; they are refused too."""

    def update(self, **kwargs):
        raise PermissionError(self.model.append_only_message)

    def delete(self):
        raise PermissionError(self.model.append_only_message)


class AppendOnlyModel(models.Model):
    """A record written once: saving it again or deleting it raises PermissionError."""

    append_only_message = "These records are never changed or deleted; record a new one."

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise PermissionError(self.append_only_message)
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise PermissionError(self.append_only_message)


def append_only_triggers(*tables: str) -> migrations.RunPython:
    """A migration operation creating (and, reversed, dropping) the PostgreSQL trigger `<table>_append_only`
    that refuses UPDATE and DELETE on each table; nothing on other databases."""

    def create(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        schema_editor.execute(CREATE_FUNCTION)
        for table in tables:
            schema_editor.execute(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
                                  f"FOR EACH ROW EXECUTE FUNCTION {FUNCTION}()")

    def drop(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for table in tables:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}")

    return migrations.RunPython(create, drop)
