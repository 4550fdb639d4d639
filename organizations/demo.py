"""The demo organization and one user per role (`manage.py load_demo`), for local use only. Idempotent."""

from dataclasses import dataclass

from accounts.demo import ensure_two_factor

from .models import Organization
from .services import add_member, create_organization

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
    """The demo organization, its three members (password `DEMO_PASSWORD`) and the secret holders' authenticators."""
    organization, _ = create_organization(
        slug="demo-crk",
        name="Demo Plains Cree language community (demo data)",
        languages=["crk"],
        principles="OCAP® and CARE (demo organization for local use)",
        actor=None,
    )
    members = {}
    for email, role in DEMO_USERS:
        user, _, _ = add_member(email=email, organization=organization, role=role, password=DEMO_PASSWORD, actor=None)
        member = DemoMember(user=user, role=role)
        if role in DEMO_TOTP_SECRETS:
            secret, codes = ensure_two_factor(user, DEMO_TOTP_SECRETS[role])
            member.totp_secret, member.recovery_codes = secret, tuple(codes)
        members[role] = member
    return DemoOrganization(organization=organization, members=members)
