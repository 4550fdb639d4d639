"""A migration operation for a foreign key whose own index another index already provides."""

from django.db import migrations


class ForeignKeyIndexDropped(migrations.AlterField):
    """`AlterField` to `db_index=False`, whose database change is only the index's DROP (CREATE backwards).

    Django's own `AlterField` drops and re-adds the foreign key constraint around it (PostgreSQL then checks every
    row again, holding a lock that stops writes) and rebuilds the whole table on SQLite, where a rebuilt table
    loses its triggers (the leaderboard's cache invalidation). Here the constraint and the table stay as they are.
    """

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        model = from_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        column = model._meta.get_field(self.name).column
        for name in schema_editor._constraint_names(model, [column], index=True, unique=False, primary_key=False):
            schema_editor.execute(schema_editor._delete_index_sql(model, name))

    def database_backwards(self, app_label, schema_editor, from_state, to_state) -> None:
        model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        schema_editor.execute(schema_editor._create_index_sql(model, fields=[model._meta.get_field(self.name)]))

    def describe(self) -> str:
        return f"Drop the own index of {self.model_name_lower}.{self.name}"
