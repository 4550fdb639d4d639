from django.core.management.base import BaseCommand, CommandError

from organizations.models import Organization, Role
from organizations.services import add_member


class Command(BaseCommand):
    help = "Give a user (created when missing, with a verified e-mail) a role in an organization."

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--org", required=True, help="Organization slug.")
        parser.add_argument("--role", required=True, choices=Role.values)
        parser.add_argument("--password", default=None, help="Set this password (local use and scripts).")

    def handle(self, email, org, role, password, **options):
        organization = Organization.objects.filter(slug=org).first()
        if organization is None:
            raise CommandError(f"No organization with slug {org!r}; create it with create_org first.")
        user, user_created, membership_created = add_member(
            email=email,
            organization=organization,
            role=role,
            password=password,
            actor=None,
        )
        if user_created:
            self.stdout.write(f"Created user {user.email}")
        elif password:
            self.stdout.write(f"Set a new password for {user.email}")
        if membership_created:
            self.stdout.write(f"Added {user.email} as {role} of {organization.slug}")
        else:
            self.stdout.write(f"{user.email} already is {role} of {organization.slug}; nothing changed")
