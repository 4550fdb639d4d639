"""Human-authored demo data for local use: one organization, one user per role, the spec's example entries."""

from pathlib import Path

from django.core.management.base import BaseCommand

from corpus.services import import_corpus, set_dataset_public
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
        for email, role in DEMO_USERS:
            add_member(email, organization, role, DEMO_PASSWORD)
            self.stdout.write(f"{role:>10}: {email} / {DEMO_PASSWORD}")
        outcome = import_corpus(DEMO_FILE.read_bytes(), organization)
        set_dataset_public(outcome.version.dataset, True)
        self.stdout.write(outcome.message)
