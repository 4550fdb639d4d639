from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from accounts.services import create_api_token


class Command(BaseCommand):
    help = "Create a personal API token for a user and print its key (send it as 'Authorization: Token <key>')."

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--name", default="created with manage.py")

    def handle(self, email, name, **options):
        user = User.objects.filter(email__iexact=email.strip()).first()
        if user is None:
            raise CommandError(f"No user with e-mail {email!r}.")
        _, key = create_api_token(user, name)
        self.stderr.write(f"Created a token for {user.email}; it is printed once:")
        self.stdout.write(key)
