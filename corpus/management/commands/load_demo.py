"""Human-authored demo data for local use: one organization, one user per role, the spec's example entries."""

from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils import timezone

from corpus.models import ConsentUse
from corpus.selectors import has_consent
from corpus.services import grant_consent, import_corpus, set_dataset_public
from governance.services import add_member, create_organization

DEMO_FILE = Path(__file__).resolve().parents[2] / "demo" / "demo-en-crk.json"
DEMO_PASSWORD = "demo-password-123"
DEMO_USERS = [
    ("governance@demo.example", "governance"),
    ("curator@demo.example", "curator"),
    ("speaker@demo.example", "speaker"),
]


class Command(BaseCommand):
    help = "Load the demo organization, users (password 'demo-password-123') and corpus. Idempotent."

    def handle(self, **options):
        organization, _ = create_organization(
            "demo-crk",
            "Demo Plains Cree language community (demo data)",
            ["crk"],
            "OCAP® and CARE (demo organization for local use)",
        )
        users = {}
        for email, role in DEMO_USERS:
            users[role], _, _ = add_member(email, organization, role, DEMO_PASSWORD)
            self.stdout.write(f"{role:>10}: {email} / {DEMO_PASSWORD}")
        outcome = import_corpus(DEMO_FILE.read_bytes(), organization)
        dataset = outcome.version.dataset
        if not dataset.consents.exists():  # a demo consent revoked on purpose stays revoked
            grant_consent(
                dataset, [ConsentUse.PUBLIC_RELEASE, ConsentUse.EVALUATION, ConsentUse.HUMAN_REVIEW],
                granted_by_name="Demo governance council (demo data)",
                granted_on=timezone.localdate(),
                recorded_by=users["governance"],
                document_reference="Demo data: no community granted this consent and no document exists. "
                                   "For local use only.",
                notes="Recorded by load_demo. A1 gateway disclosure is deliberately not granted.",
            )
            self.stdout.write("Recorded the demo consent (public release, evaluation, human review).")
        if has_consent(dataset, ConsentUse.PUBLIC_RELEASE):
            set_dataset_public(dataset, True)
        self.stdout.write(outcome.message)
