"""Moving a model from one app to another without touching its table: the migrations that do it change the
migration state only (the model keeps its `db_table`); this operation carries its content type along, so admin
history, permissions and any generic relation keep pointing at the same rows."""

from django.db import migrations


def move_content_types(from_app: str, to_app: str, *models: str) -> migrations.RunPython:
    """Relabel the content types of `models` from `from_app` to `to_app` (and back when reversed). A database
    created after the move has no old content types; then nothing happens."""

    def relabel(source: str, target: str):
        def run(apps, schema_editor):
            content_types = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
            for model in models:
                if not content_types.filter(app_label=target, model=model).exists():
                    content_types.filter(app_label=source, model=model).update(app_label=target)
        return run

    return migrations.RunPython(relabel(from_app, to_app), relabel(to_app, from_app))
