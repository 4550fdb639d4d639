from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from corpus.services import import_corpus
from corpus.validation import SEGMENT_MAP, SUPPLIED_FIELDS, CorpusFileError, option_name
from organizations.models import Organization


class Command(BaseCommand):
    help = "Import a corpus JSON file for an organization. All or nothing: any problem stores nothing."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--org", required=True, help="Slug of the steward organization.")
        for field, parameter in SUPPLIED_FIELDS.items():
            parser.add_argument(option_name(parameter), dest=parameter, metavar=parameter.upper(),
                                help=f"The envelope's {field}, when the file gives none (docs/corpus.md).")
        parser.add_argument(option_name(SEGMENT_MAP), dest=SEGMENT_MAP, metavar="NAME=SEGMENT", action="append",
                            help="The segment of a segment name the file uses that is none of the four, e.g. "
                                 "basic=development (repeat it, or separate pairs with commas).")

    def handle(self, path, org, **options):
        organization = Organization.objects.filter(slug=org).first()
        if organization is None:
            raise CommandError(f"No organization with slug {org!r}.")
        file = Path(path)
        if not file.is_file():
            raise CommandError(f"No such file: {path}")
        if file.stat().st_size > settings.CORPUS_MAX_UPLOAD_BYTES:
            raise CommandError(f"{path}: the file is {file.stat().st_size:,} bytes; "
                               f"the limit is {settings.CORPUS_MAX_UPLOAD_BYTES:,} bytes (CORPUS_MAX_UPLOAD_BYTES)")
        try:
            supplied = {parameter: options[parameter] for parameter in SUPPLIED_FIELDS.values()
                        if options.get(parameter) is not None}
            if options.get(SEGMENT_MAP):
                supplied[SEGMENT_MAP] = ",".join(options[SEGMENT_MAP])
            outcome = import_corpus(data=file.read_bytes(), organization=organization, actor=None, supplied=supplied)
        except CorpusFileError as error:
            for problem in error.problems:
                self.stderr.write(f"{path}: {problem}")
            if error.total > len(error.problems):
                self.stderr.write(f"… {error.total - len(error.problems)} more")
            raise CommandError(f"{error.total} problem(s) in {path}; nothing was imported.") from None
        for warning in outcome.warnings:
            self.stderr.write(f"warning: {warning}")
        self.stdout.write(outcome.message)
