"""The public download is now the file the harness runs as its version (corpus.selectors.public_file_chunks): a
version whose own file the harness does not read as it (a pair written "EN→CRK", no dataset id or version) is
downloaded in the corpus format with an envelope the harness reads. Its stored pin is cleared, to be computed again
on first use (corpus.selectors.public_download_hash) from the new bytes; a download the harness already read keeps
its bytes and its pin."""

from django.db import migrations


def clear_public_download_pins(apps, schema_editor):
    apps.get_model("corpus", "DatasetVersion").objects.update(public_download_sha256="")


class Migration(migrations.Migration):

    dependencies = [
        ('corpus', '0013_version_note_held_out_activation'),
    ]

    operations = [
        migrations.RunPython(clear_public_download_pins, migrations.RunPython.noop),
    ]
