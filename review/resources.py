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


class SpeakerLabelField(fields.Field):
    """The speaker as the organization credits them (`selectors.speaker_labels`), never their e-mail address."""

    def __init__(self, labels: dict[int, str]):
        super().__init__(attribute="speaker_id", column_name="speaker", widget=TextWidget())
        self.labels = labels

    def get_value(self, obj):
        return self.labels.get(obj.speaker_id, "")


class RatingResource(resources.Resource):
    """One row per rating given (history included: `is_current` tells the one in force; `shown_twice` marks the
    second rating of an item a speaker was shown again, which never counts in the figures). The speaker column
    credits each speaker as they chose."""

    item = text("assignment__item_id", "item")
    entry_id = text("assignment__item__entry__entry_id", "entry_id")
    is_control = text("assignment__item__is_control", "is_control")
    shown_twice = text("assignment__is_repeat", "shown_twice")
    difficulty = text("assignment__item__difficulty", "difficulty")
    domain = text("assignment__item__domain", "domain")
    speaker = text("speaker_id", "speaker")
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

    def __init__(self, speaker_labels: dict[int, str]):
        super().__init__()
        self.fields["speaker"] = SpeakerLabelField(speaker_labels)


def export_ratings(ratings: QuerySet[Rating], file_format: str, speaker_labels: dict[int, str]) -> bytes:
    if file_format not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {file_format!r}")
    dataset = RatingResource(speaker_labels).export(ratings, **EXPORT_OPTIONS[file_format])
    dataset.title = "ratings"
    if file_format == "csv":
        return codecs.BOM_UTF8 + dataset.export("csv").encode("utf-8")
    return write_xlsx(dataset)


class TimesheetResource(resources.Resource):
    """One row per speaker of a campaign: their time, the rate, amount owed, paid and the balance. For paying people,
    so it names them (e-mail and name) whatever their credit choice."""

    speaker = text("email", "speaker")
    name = text("name")
    ratings = text("ratings")
    untimed_ratings = text("untimed", "untimed_ratings")
    hours = fields.Field(column_name="hours", widget=TextWidget())
    hourly_rate = fields.Field(column_name="hourly_rate", widget=TextWidget())
    currency = fields.Field(column_name="currency", widget=TextWidget())
    owed = text("owed")
    paid = text("paid")
    balance = text("balance")
    withdrawn = text("withdrawn", "ratings_withdrawn")

    def __init__(self, rate):
        super().__init__()
        self.rate = rate

    def dehydrate_hours(self, row) -> str:
        return f"{row.hours:.3f}"

    def dehydrate_hourly_rate(self, row) -> str:
        return "" if self.rate.hourly_rate is None else str(self.rate.hourly_rate)

    def dehydrate_currency(self, row) -> str:
        return self.rate.currency


def export_timesheet(rows: list, rate, file_format: str) -> bytes:
    if file_format not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {file_format!r}")
    dataset = TimesheetResource(rate).export(rows, **EXPORT_OPTIONS[file_format])
    dataset.title = "timesheet"
    if file_format == "csv":
        return codecs.BOM_UTF8 + dataset.export("csv").encode("utf-8")
    return write_xlsx(dataset)
