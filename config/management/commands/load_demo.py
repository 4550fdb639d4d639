"""Human-authored demo data for local use: one organization, its users, the spec's example entries and a
review campaign on them. Each layer loads its own part (`<app>.demo`); this command, on top of them all, calls them
in order and says what it made."""

from django.core.management.base import BaseCommand

from accounts.demo import otpauth_uri
from accounts.second_factor import prove_as_operator
from corpus.demo import load_demo_corpus
from elicitation.demo import demo_batch
from organizations.demo import DEMO_PASSWORD, load_demo_organization
from review.demo import demo_campaign, demo_card


class Command(BaseCommand):
    help = (f"Load the demo organization, users (password '{DEMO_PASSWORD}'), corpus, review campaign and elicitation "
            "batch. Idempotent.")

    def handle(self, **options):
        demo = load_demo_organization()
        for role, member in demo.members.items():
            email = member.user.email
            self.stdout.write(f"{role:>10}: {email} / {DEMO_PASSWORD}")
            if member.totp_secret:
                self.stdout.write(f"{'':>10}  two-factor key (add it to an authenticator app): {member.totp_secret}")
                self.stdout.write(f"{'':>10}  as a link: {otpauth_uri(email, member.totp_secret)}")
                self.stdout.write(f"{'':>10}  recovery codes (each signs in once instead of a code): "
                                  f"{' '.join(member.recovery_codes)}")
        governance = demo.members["governance"].user
        corpus = load_demo_corpus(demo.organization, recorded_by=governance)
        if corpus.consent_recorded:
            self.stdout.write("Recorded the demo consent (public release, evaluation, human review, corpus creation).")
        self.stdout.write(corpus.message)
        if corpus.reviewable:
            operator = demo.members["operator"].user
            # The demo's own governance staff, acting through this command: the operator uploads the card, the
            # other member (no conflict of interest with it) opens its campaign and will record its decision.
            prove_as_operator(operator)
            prove_as_operator(governance)
            card = demo_card(corpus.version, operator)
            demo_campaign(card, governance, [demo.members["speaker"].user])
            self.stdout.write("Demo review campaign: sign in as speaker@demo.example and open /review/ to rate; "
                              "governance@demo.example reads it under Review campaigns and records its decision.")
        curator = demo.members["curator"].user
        prove_as_operator(curator)
        if demo_batch(corpus.version, curator) is not None:
            self.stdout.write("Demo elicitation batch: speaker@demo.example translates under Translate (/elicit/); "
                              "curator@demo.example follows it there.")
