"""Moving a model from one app to another without touching its table: the migrations that do it change the
migration state only (the model keeps its `db_table`); this operation carries its content type along, so admin
history, permissions and any generic relation keep pointing at the same rows."""

from django.db import migrations


def move_content_types(from_app: str, to_app: str, *models: str) -> migrations.RunPython:
    """Relabel the content types of `models` from `from_app` to `to_app` (and back when reversed). A database
    created after the move has no old content types; then nothing happens. Where both exist (a `migrate` of some
    apps only, whose post-migrate step created the new, empty content type first), the new one is dropped — with
    the permissions created for it, which the relabelled one carries too — so history is never left behind on a
    stale row that `remove_stale_contenttypes` would later delete with everything pointing at it."""

    def relabel(source: str, target: str):
        def run(apps, schema_editor):
            content_types = apps.get_model("contenttypes", "ContentType").objects.using(schema_editor.connection.alias)
            for model in models:
                old = content_types.filter(app_label=source, model=model).first()
                if old is None:
                    continue
                content_types.filter(app_label=target, model=model).delete()
                old.app_label = target
                old.save(update_fields=["app_label"])
        return run

    return migrations.RunPython(relabel(from_app, to_app), relabel(to_app, from_app))
