"""Demo elicitation data for `manage.py load_demo`: one batch whose sources are the benchmark specification's own
difficulty-tier examples that the demo corpus has no translation for (§2.4, tiers 3 and 4: human-written text, no
machine proposed it), for the demo speaker to translate. No translation is made up: the batch starts empty."""

from accounts.models import User
from corpus.models import ConsentUse, DatasetVersion
from corpus.selectors import has_consent

from .models import Batch
from .services.batches import BatchSettings, create_batch
from .sources import checked_rows

DEMO_TITLE = "Demo batch: the specification's tier examples (demo data)"
DEMO_SOURCES = [
    {"source": "I saw his dog yesterday", "difficulty": 3, "register": "conversational", "domain": "conv",
     "origin": "public_source", "origin_name": "Champollion benchmark specification §2.4 (demo data)",
     "origin_license": "CC-BY-4.0", "context": "Tier 3 example: past tense, possession, animacy."},
    {"source": "the woman whose son went to the store", "difficulty": 4, "register": "conversational",
     "domain": "conv", "origin": "public_source",
     "origin_name": "Champollion benchmark specification §2.4 (demo data)", "origin_license": "CC-BY-4.0",
     "context": "Tier 4 example: a relative clause."},
]


def demo_batch(version: DatasetVersion, curator: User) -> Batch | None:
    """The demo batch, created once, while the demo dataset's community consents to corpus creation."""
    existing = Batch.objects.filter(dataset=version.dataset, title=DEMO_TITLE).first()
    if existing is not None or not has_consent(version.dataset, ConsentUse.CORPUS_CREATION):
        return existing
    values = BatchSettings(title=DEMO_TITLE, source_language=version.source_language,
                           target_language=version.target_language,
                           guideline="Demo data. Translate as you would say it yourself; never copy a machine "
                                     "translation.")
    rows = checked_rows([(f"sources[{index}]", source) for index, source in enumerate(DEMO_SOURCES)], set())
    return create_batch(actor=curator, dataset=version.dataset, values=values, rows=rows)
