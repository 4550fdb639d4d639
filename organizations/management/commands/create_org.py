from django.core.management.base import BaseCommand, CommandError

from common.errors import ApplicationError
from organizations.services import create_organization


class Command(BaseCommand):
    help = "Create a governance organization, or update its name, languages and principles (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", required=True)
        parser.add_argument("--language", action="append", default=[], dest="languages",
                            help="BCP 47 code of a language it stewards; repeat for several.")
        parser.add_argument("--principles", default="", help='e.g. "OCAP®, CARE"')

    def handle(self, slug, name, languages, principles, **options):
        try:
            organization, created = create_organization(
                slug=slug,
                name=name,
                languages=languages,
                principles=principles,
                actor=None,
            )
        except ApplicationError as error:
            raise CommandError(error.message) from error
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} organization {organization.slug} ({organization.name}); "
                          f"languages: {', '.join(organization.languages) or 'none'}")
