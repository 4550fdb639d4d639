"""Say what each version's sha256 is the hash of, and give the public a keyed hash where it would confirm
guesses of secret entries (docs/corpus.md, "Hashes").

Existing rows keep their sha256 (run cards pin it). A version whose sha256 equals the SHA-256 of its canonical
export was computed here after an edit (or imported from a file already in that layout, which confirms guesses
just as well): it becomes a content hash, and when it holds secret entries, the public sees a keyed hash.
Every other version keeps the hash of the file it was imported from, shown to everyone as before. The
recipes below are those of corpus.services (corpus_file_chunks, keyed_content_hash), frozen here.
"""

import hashlib

from django.db import migrations, models
from django.utils.crypto import salted_hmac

SECRET_SEGMENTS = ("gold_standard", "held_out")


def export_sha256(version, Entry) -> str:
    digest = hashlib.sha256()
    digest.update(b'{\n  "dataset": ' + version.envelope.encode("utf-8") + b',\n  "entries": [')
    separator = b"\n    "
    documents = Entry.objects.filter(version=version).order_by("position").values_list("document", flat=True)
    for document in documents.iterator(chunk_size=2000):
        digest.update(separator + document.encode("utf-8"))
        separator = b",\n    "
    digest.update(b"\n  ]\n}\n")
    return digest.hexdigest()


def classify_hashes(apps, schema_editor):
    DatasetVersion = apps.get_model("corpus", "DatasetVersion")
    Entry = apps.get_model("corpus", "Entry")
    for version in DatasetVersion.objects.only("pk", "sha256", "envelope").iterator(chunk_size=100):
        source, public = "file", version.sha256
        if export_sha256(version, Entry) == version.sha256:
            source = "content"
            if Entry.objects.filter(version=version, segment__in=SECRET_SEGMENTS).exists():
                public = salted_hmac("corpus.DatasetVersion.public_sha256", version.sha256,
                                     algorithm="sha256").hexdigest()
        DatasetVersion.objects.filter(pk=version.pk).update(sha256_source=source, public_sha256=public)


class Migration(migrations.Migration):
    dependencies = [("corpus", "0005_consent_records_only_get_revoked")]

    operations = [
        migrations.AddField(
            model_name="datasetversion",
            name="public_sha256",
            field=models.CharField(default="", help_text="What everyone else sees and pins: sha256 itself, or for a "
                                   "content hash of a version holding secret entries, a keyed hash (HMAC-SHA256 from "
                                   "SECRET_KEY) that confirms no guess of them.", max_length=64),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="datasetversion",
            name="sha256_source",
            field=models.CharField(choices=[("file", "SHA-256 of the corpus file as imported"),
                                            ("content", "SHA-256 of the canonical export, computed here")],
                                   default="file", max_length=10),
        ),
        migrations.AlterField(
            model_name="datasetversion",
            name="sha256",
            field=models.CharField(help_text="SHA-256 of the corpus file this version's content is: what run cards "
                                   "pin. Shown only to the steward's secret readers when public_sha256 differs.",
                                   max_length=64),
        ),
        migrations.RunPython(classify_hashes, migrations.RunPython.noop),
    ]
