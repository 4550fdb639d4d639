"""Human-authored demo data for local use: one organization, one user per role, the spec's example entries."""

from pathlib import Path
from urllib.parse import quote, urlencode

from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP
from allauth.mfa.utils import decrypt
from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from corpus.models import ConsentUse
from corpus.selectors import has_consent
from corpus.services import grant_consent, import_corpus, set_dataset_public
from accounts.second_factor import prove_as_operator
from governance.services import add_member, create_organization

DEMO_FILE = Path(__file__).resolve().parents[2] / "demo" / "demo-en-crk.json"
DEMO_PASSWORD = "demo-password-123"
DEMO_USERS = [
    ("governance@demo.example", "governance"),
    ("curator@demo.example", "curator"),
    ("speaker@demo.example", "speaker"),
]
# Governance staff and curators see secret segments only with two-factor authentication, so the demo gives
# them an authenticator with a published key (README: demo accounts). Local use only, like the password.
DEMO_TOTP_SECRETS = {
    "governance": "DEMOGOVERNANCESTAFFLOCALUSE2FA23",
    "curator": "DEMOCORPUSCURATORLOCALUSEONLY234",
}


def otpauth_uri(email: str, secret: str) -> str:
    """What a QR code for the key holds; most authenticator apps also accept it pasted as a link."""
    issuer = settings.SITE_NAME
    query = urlencode({"secret": secret, "issuer": issuer}, quote_via=quote)
    return f"otpauth://totp/{quote(f'{issuer}:{email}')}?{query}"


def ensure_two_factor(user, secret: str) -> tuple[str, list[str]]:
    """The user's TOTP key (the demo key unless they already have an authenticator) and unused recovery
    codes, created when missing."""
    existing = Authenticator.objects.filter(user=user, type=Authenticator.Type.TOTP).first()
    if existing is None:
        TOTP.activate(user, secret)
    else:
        secret = decrypt(existing.data["secret"])
    return secret, RecoveryCodes.activate(user).get_unused_codes()


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
            if role in DEMO_TOTP_SECRETS:
                secret, codes = ensure_two_factor(users[role], DEMO_TOTP_SECRETS[role])
                self.stdout.write(f"{'':>10}  two-factor key (add it to an authenticator app): {secret}")
                self.stdout.write(f"{'':>10}  as a link: {otpauth_uri(email, secret)}")
                self.stdout.write(f"{'':>10}  recovery codes (each signs in once instead of a code): {' '.join(codes)}")
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
        if has_consent(dataset, ConsentUse.EVALUATION) and has_consent(dataset, ConsentUse.HUMAN_REVIEW):
            from review.demo import demo_campaign, demo_card

            prove_as_operator(users["governance"])  # the demo's own governance staff, acting through this command
            card = demo_card(outcome.version, users["governance"])
            demo_campaign(card, users["governance"], [users["speaker"]])
            self.stdout.write("Demo review campaign: sign in as speaker@demo.example and open /review/ to rate; "
                              "governance@demo.example reads it under Review campaigns.")
