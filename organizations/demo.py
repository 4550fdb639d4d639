"""The demo organization and its users (`manage.py load_demo`), for local use only. Idempotent."""

from dataclasses import dataclass

from accounts.demo import ensure_two_factor

from .models import Organization
from .services import add_member, create_organization

DEMO_PASSWORD = "demo-password-123"
# (name in the demo, e-mail, role). Two members of governance staff: the operator uploads the demo's run card (as
# the steward's sandbox operator would), so the other, who has no conflict of interest with it, records its decision.
DEMO_USERS = [
    ("governance", "governance@demo.example", "governance"),
    ("operator", "operator@demo.example", "governance"),
    ("curator", "curator@demo.example", "curator"),
    ("speaker", "speaker@demo.example", "speaker"),
]
# Governance staff and curators see secret segments only with two-factor authentication, so the demo gives
# them an authenticator with a published key (README: demo accounts). Local use only, like the password.
DEMO_TOTP_SECRETS = {
    "governance": "DEMOGOVERNANCESTAFFLOCALUSE2FA23",
    "operator": "DEMOSANDBOXOPERATORLOCALUSEONLY5",
    "curator": "DEMOCORPUSCURATORLOCALUSEONLY234",
}


@dataclass
class DemoMember:
    user: object
    role: str
    totp_secret: str = ""
    recovery_codes: tuple[str, ...] = ()


@dataclass
class DemoOrganization:
    organization: Organization
    members: dict[str, DemoMember]


def load_demo_organization() -> DemoOrganization:
    """The demo organization, its members (password `DEMO_PASSWORD`) and the secret holders' authenticators."""
    organization, _ = create_organization(
        slug="demo-crk",
        name="Demo Plains Cree language community (demo data)",
        languages=["crk"],
        principles="OCAP® and CARE (demo organization for local use)",
        actor=None,
    )
    members = {}
    for name, email, role in DEMO_USERS:
        user, _, _ = add_member(email=email, organization=organization, role=role, password=DEMO_PASSWORD, actor=None)
        member = DemoMember(user=user, role=role)
        if name in DEMO_TOTP_SECRETS:
            secret, codes = ensure_two_factor(user, DEMO_TOTP_SECRETS[name])
            member.totp_secret, member.recovery_codes = secret, tuple(codes)
        members[name] = member
    return DemoOrganization(organization=organization, members=members)
