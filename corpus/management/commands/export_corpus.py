import sys

from django.core.management.base import BaseCommand, CommandError

from corpus.file_writer import file_chunks
from corpus.models import DatasetVersion, Segment


class Command(BaseCommand):
    help = ("Export a dataset version as a corpus JSON file, in the shape it was imported in (all segments: an "
            "operator's command).")

    def add_arguments(self, parser):
        parser.add_argument("dataset_id")
        parser.add_argument("version")
        parser.add_argument("--segments", nargs="+", choices=Segment.values, help="Only these segments.")
        parser.add_argument("-o", "--output", help="Write to this file instead of standard output.")

    def handle(self, dataset_id, version, segments, output, **options):
        found = DatasetVersion.objects.filter(dataset__identifier=dataset_id, version=version).first()
        if found is None:
            raise CommandError(f"No version {version!r} of dataset {dataset_id!r}.")
        entries = found.entries.order_by("position")
        if segments:
            entries = entries.filter(segment__in=segments)
        documents = entries.values_list("document", flat=True).iterator(chunk_size=2000)
        chunks = file_chunks(found.layout, found.envelope, documents)
        if output:
            with open(output, "wb") as file:
                for chunk in chunks:
                    file.write(chunk)
            self.stderr.write(f"Wrote {output}")
        else:
            for chunk in chunks:
                sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
