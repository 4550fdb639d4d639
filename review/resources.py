"""Ratings export (CSV/XLSX) for governance staff, through django-import-export, with the corpus
export's formula neutralisation: a speaker's comment starting with "=" stays text in a spreadsheet."""

import codecs

from django.db.models import QuerySet
from import_export import fields, resources

from corpus.resources import EXPORT_OPTIONS, TextWidget, write_xlsx

from .models import Rating

EXPORT_FORMATS = ("csv", "xlsx")


def text(attribute: str, column: str | None = None) -> fields.Field:
    return fields.Field(attribute=attribute, column_name=column or attribute, widget=TextWidget())


class RatingResource(resources.Resource):
    """One row per rating ever given (history included: `is_current` tells the one in force; `shown_twice` marks
    the second rating of an item a speaker was shown again, which never counts in the figures)."""

    item = text("assignment__item_id", "item")
    entry_id = text("assignment__item__entry__entry_id", "entry_id")
    is_control = text("assignment__item__is_control", "is_control")
    shown_twice = text("assignment__is_repeat", "shown_twice")
    difficulty = text("assignment__item__difficulty", "difficulty")
    domain = text("assignment__item__domain", "domain")
    speaker = text("speaker__email", "speaker")
    value = text("value", "rating")
    semantically_wrong = text("semantically_wrong")
    culturally_inappropriate = text("culturally_inappropriate")
    hallucination = text("hallucination")
    acceptable_variant = text("acceptable_variant")
    comment = text("comment")
    correction = text("correction")
    created_at = text("created_at")
    is_current = text("is_current")
    withdrawn_at = text("withdrawn_at")
    client_id = text("client_id")

    class Meta:
        chunk_size = 2000


def export_ratings(ratings: QuerySet[Rating], file_format: str) -> bytes:
    if file_format not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {file_format!r}")
    dataset = RatingResource().export(ratings, **EXPORT_OPTIONS[file_format])
    dataset.title = "ratings"
    if file_format == "csv":
        return codecs.BOM_UTF8 + dataset.export("csv").encode("utf-8")
    return write_xlsx(dataset)
