"""The demo corpus (`manage.py load_demo`): the spec's example entries, with a demo consent labelled as such."""

from dataclasses import dataclass
from pathlib import Path

from django.utils import timezone

from corpus.models import ConsentUse, DatasetVersion
from corpus.selectors import has_consent
from corpus.services import grant_consent, import_corpus, set_dataset_public

DEMO_FILE = Path(__file__).resolve().parent / "demo-en-crk.json"


@dataclass
class DemoCorpus:
    version: DatasetVersion
    message: str
    consent_recorded: bool
    reviewable: bool


def load_demo_corpus(organization, recorded_by) -> DemoCorpus:
    """Import the demo file (idempotent), record the demo consent once — a demo consent revoked on purpose stays
    revoked — and publish the dataset while public release is consented."""
    outcome = import_corpus(data=DEMO_FILE.read_bytes(), organization=organization, actor=None)
    dataset = outcome.version.dataset
    consent_recorded = False
    if not dataset.consents.exists():
        grant_consent(
            dataset=dataset,
            uses=[ConsentUse.PUBLIC_RELEASE, ConsentUse.EVALUATION, ConsentUse.HUMAN_REVIEW,
                  ConsentUse.CORPUS_CREATION],
            granted_by_name="Demo governance council (demo data)",
            granted_on=timezone.localdate(),
            actor=recorded_by,
            document_reference="Demo data: no community granted this consent and no document exists. "
                                   "For local use only.",
            notes="Recorded by load_demo. A1 gateway disclosure is deliberately not granted.",
        )
        consent_recorded = True
    if has_consent(dataset, ConsentUse.PUBLIC_RELEASE):
        set_dataset_public(dataset=dataset, is_public=True, actor=None)
    reviewable = has_consent(dataset, ConsentUse.EVALUATION) and has_consent(dataset, ConsentUse.HUMAN_REVIEW)
    return DemoCorpus(version=outcome.version, message=outcome.message, consent_recorded=consent_recorded,
                      reviewable=reviewable)
