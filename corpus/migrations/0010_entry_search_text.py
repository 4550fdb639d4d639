"""Entries get `search_text`, their source, reference and notes folded for search (corpus.search), so that a
search finds "niwâpamâw" from "niwapamaw" on PostgreSQL and SQLite alike.

Existing rows are filled in batches of primary keys (no cursor held across the updates, one batch in memory).
The fold is corpus.search's current one on purpose: the column must hold what queries are folded with; a later
change of the fold comes with its own migration that fills the column again.

On PostgreSQL the triggers of 0003 refuse any UPDATE of a frozen version's entries; filling this column changes
nothing a version exports or hashes, so they are disabled for this transaction only.
"""

from django.db import migrations, models

from corpus.search import entry_search_text

BATCH_SIZE = 500
FROZEN_UPDATE_TRIGGERS = ("corpus_entry_frozen_update_old", "corpus_entry_frozen_update_new")


def set_frozen_update_triggers(schema_editor, state: str) -> None:
    if schema_editor.connection.vendor == "postgresql":
        for name in FROZEN_UPDATE_TRIGGERS:
            schema_editor.execute(f"ALTER TABLE corpus_entry {state} TRIGGER {name}")


def fill_search_text(apps, schema_editor):
    Entry = apps.get_model("corpus", "Entry")
    entries = Entry.objects.using(schema_editor.connection.alias).order_by("pk").only("source", "reference", "notes")
    set_frozen_update_triggers(schema_editor, "DISABLE")
    last = 0
    while batch := list(entries.filter(pk__gt=last)[:BATCH_SIZE]):
        for entry in batch:
            entry.search_text = entry_search_text(entry.source, entry.reference, entry.notes)
        Entry.objects.using(schema_editor.connection.alias).bulk_update(batch, ["search_text"])
        last = batch[-1].pk
    set_frozen_update_triggers(schema_editor, "ENABLE")


class Migration(migrations.Migration):
    dependencies = [("corpus", "0009_organization_moved")]

    operations = [
        migrations.AddField(
            model_name="entry",
            name="search_text",
            field=models.TextField(blank=True, default="", editable=False, help_text=(
                "Source, reference and notes folded for search (corpus.search): kept in step on every write.")),
        ),
        migrations.RunPython(fill_search_text, migrations.RunPython.noop),
    ]
