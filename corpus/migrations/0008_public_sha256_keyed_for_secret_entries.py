"""The public sees a keyed hash of every version holding secret entries, whatever its hash is of (docs/corpus.md,
"Hashes"): 0006 left the hash of an imported file public, and a file in the canonical export layout (re-importing
one's own export) has the content hash as its file hash, which confirms guesses of the secret entries.

The run cards of those versions follow (docs/run-cards.md, "Fingerprint"): their stored fingerprint becomes the
one over the hash the public is shown, and a card pinning the real hash shows its fingerprint discrepancies
without the values derived from it. The recipes are those of corpus.services.public_sha256 and
leaderboard.verification (public_fingerprint, without_dataset_hash), frozen here.
"""

import hashlib
import json

from django.db import migrations
from django.utils.crypto import salted_hmac

SECRET_SEGMENTS = ("gold_standard", "held_out")
FINGERPRINT_V1_COMPONENTS = (
    "dataset_sha256", "model_slug", "condition", "system_prompt_sha256", "temperature", "batch_size",
    "tools_enabled", "harness_version",
)
DATASET_HASH_PATHS = ("fingerprint", "fingerprint.hash", "fingerprint.components.dataset_sha256")
WITHHELD = "values withheld: they are, or hash, a dataset hash that is kept from the public"


def public_fingerprint(card: dict, dataset_sha256: str) -> str:
    components = {name: card.get(name) for name in FINGERPRINT_V1_COMPONENTS}
    components["dataset_sha256"] = dataset_sha256
    text = json.dumps(components, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def without_dataset_hash(discrepancies: list) -> list:
    shown = []
    for found in discrepancies:
        if isinstance(found, dict) and found.get("path") in DATASET_HASH_PATHS:
            message = ("is missing or not the card's dataset.sha256" if found["path"].endswith("dataset_sha256")
                       else found.get("message", ""))
            found = {**found, "submitted": None, "recomputed": None, "message": f"{message} ({WITHHELD})"}
        shown.append(found)
    return shown


def key_public_hashes(apps, schema_editor):
    DatasetVersion = apps.get_model("corpus", "DatasetVersion")
    Entry = apps.get_model("corpus", "Entry")
    RunCard = apps.get_model("leaderboard", "RunCard")
    holding = Entry.objects.filter(segment__in=SECRET_SEGMENTS).values("version_id")
    versions = DatasetVersion.objects.filter(pk__in=holding).only("pk", "sha256")
    for version in versions.iterator(chunk_size=100):
        public = salted_hmac("corpus.DatasetVersion.public_sha256", version.sha256, algorithm="sha256").hexdigest()
        DatasetVersion.objects.filter(pk=version.pk).update(public_sha256=public)
        cards = RunCard.objects.filter(dataset_version_id=version.pk).only("pk", "raw", "discrepancies")
        for run_card in cards.iterator(chunk_size=20):
            card = json.loads(run_card.raw)
            pinned = card["dataset"]["sha256"] if isinstance(card.get("dataset"), dict) else None
            discrepancies = run_card.discrepancies
            if pinned != public:
                discrepancies = without_dataset_hash(discrepancies)
            RunCard.objects.filter(pk=run_card.pk).update(fingerprint=public_fingerprint(card, public),
                                                          discrepancies=discrepancies)


class Migration(migrations.Migration):
    dependencies = [
        ("corpus", "0007_dataset_version_public_sha256_hex"),
        ("leaderboard", "0001_initial"),
    ]

    operations = [migrations.RunPython(key_public_hashes, migrations.RunPython.noop)]
