"""What a speaker reads while rating that is not written in a template: the scale, the flags, the form's messages
and the refusals. They live together so that a community translating its interface in the app finds them all
(languages/catalog.py offers every string of this module)."""

from django.utils.translation import gettext_lazy

RATING_BUTTONS = [
    ("reject", "1", gettext_lazy("Reject"), gettext_lazy("Wrong or unusable: the meaning is lost or changed.")),
    ("gist", "2", gettext_lazy("Gist"), gettext_lazy("The meaning is clear, but the wording is wrong.")),
    ("acceptable", "3", gettext_lazy("Acceptable"), gettext_lazy("Correct, with minor issues.")),
    ("excellent", "4", gettext_lazy("Excellent"), gettext_lazy("As good as a translation by a fluent person.")),
]
CANNOT_JUDGE = ("cannot_judge", "0", gettext_lazy("Can't judge"),
                gettext_lazy("You cannot tell: it goes to another speaker."))
RATING_CHOICES = [(value, label) for value, _key, label, _explanation in [*RATING_BUTTONS, CANNOT_JUDGE]]

FLAG_LABELS = {
    "semantically_wrong": gettext_lazy("Looks like real words, but the meaning is wrong"),
    "culturally_inappropriate": gettext_lazy(
        "Culturally inappropriate (register or expression the community rejects)"),
    "hallucination": gettext_lazy("Says something that is not in the source"),
    "acceptable_variant": gettext_lazy("A good translation that differs from the reference"),
}

MISSING_SUBMISSION_ID = gettext_lazy("The page's submission id is missing: reload the page and rate again.")
INVALID_SUBMISSION_ID = gettext_lazy("The page's submission id is not a valid UUID: reload the page and rate again.")
CHOOSE_A_RATING = gettext_lazy("Choose a rating.")
ACTIVE_TIME_INVALID = gettext_lazy("The page's working time must be a whole number of milliseconds, from 0 to one "
                                   "day: reload the page and rate again.")
UNKNOWN_RATING = gettext_lazy("Choose Reject, Gist, Acceptable, Excellent or Can't judge.")
FLAGS_LABEL = gettext_lazy("Flags")
COMMENT_LABEL = gettext_lazy("Comment (optional)")
CORRECTION_LABEL = gettext_lazy("Your translation (optional)")

NOT_TAKING_RATINGS = gettext_lazy(
    "This campaign is not taking ratings now (it is paused, closed, or its community withdrew consent).")
NOT_SERVING_CONSENT_WITHDRAWN = gettext_lazy(
    "Not saved: the community withdrew its consent to human review of these texts, so ratings are no longer taken. "
    "Ratings still waiting on this device were discarded; those already sent are kept.")
NOT_SERVING_CLOSED = gettext_lazy(
    "Not saved: this campaign is closed and takes no more ratings. Ratings still waiting on this device were "
    "discarded; those already sent are kept.")
NOT_SERVING_PAUSED = gettext_lazy(
    "Not saved: governance staff paused this campaign. Ratings still waiting on this device were discarded; those "
    "already sent are kept. You can continue when it reopens.")
