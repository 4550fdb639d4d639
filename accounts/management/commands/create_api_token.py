from django.core.management.base import BaseCommand, CommandError

from accounts.models import DEFAULT_TOKEN_LIFETIME_DAYS, TOKEN_LIFETIME_DAYS, TokenScope, User
from accounts.services import TokenRefused, create_api_token


class Command(BaseCommand):
    help = ("Create a personal API token for a user and print its key (send it as 'Authorization: Token <key>'). "
            "Tokens that read secret segments are created only by their owner, in a session confirmed with "
            "two-factor authentication.")

    def add_arguments(self, parser):
        parser.add_argument("email")
        parser.add_argument("--name", default="created with manage.py")
        parser.add_argument("--scope", default=TokenScope.PUBLISH,
                            choices=[TokenScope.READ, TokenScope.PUBLISH])
        parser.add_argument("--days", type=int, default=DEFAULT_TOKEN_LIFETIME_DAYS, choices=TOKEN_LIFETIME_DAYS)

    def handle(self, email, name, scope, days, **options):
        user = User.objects.filter(email__iexact=email.strip()).first()
        if user is None:
            raise CommandError(f"No user with e-mail {email!r}.")
        try:
            token, key = create_api_token(actor=user, name=name, scope=scope, lifetime_days=days, operator=True)
        except TokenRefused as refusal:
            raise CommandError(str(refusal)) from None
        self.stderr.write(f"Created a {token.scope} token for {user.email}, valid until {token.expires_at:%Y-%m-%d}; "
                          "it is printed once:")
        self.stdout.write(key)
