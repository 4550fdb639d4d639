"""Names and labels a page shows inside its own sentences: what they may not hold."""

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# Invisible characters (controls, zero-width ones, the byte-order mark) and those that change the direction of the
# text after them (bidirectional marks, embeddings, overrides and isolates, U+200E–U+200F, U+202A–U+202E,
# U+2066–U+2069): in a name shown inline, they could hide part of it or reverse the page's own words beside it.
HIDDEN_OR_DIRECTIONAL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def hidden_or_directional(value: str) -> str | None:
    """The first invisible or direction-changing character of `value`, written as its code point ("U+202E"), or
    None when it has none."""
    found = HIDDEN_OR_DIRECTIONAL.search(value)
    return None if found is None else f"U+{ord(found.group()):04X}"


def refusal_of_hidden_or_directional(value: str) -> str | None:
    """Why a name or label is refused for such a character, naming it; None when it has none."""
    character = hidden_or_directional(value)
    if character is None:
        return None
    return _("holds %(character)s, an invisible character or one that changes the direction of the text; write it "
             "with visible characters only") % {"character": character}


def validate_visible_label(value: str) -> None:
    """The form and model validator of such a name (the admin's forms run it before any service)."""
    refusal = refusal_of_hidden_or_directional(value)
    if refusal:
        raise ValidationError(refusal, code="hidden_or_directional")
