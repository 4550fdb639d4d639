"""Names and labels a page shows inside its own sentences: what they may not hold."""

import unicodedata

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

# Invisible characters and those that change the direction of the text after them: controls (Cc), format characters
# (Cf: zero-width ones, the byte-order mark, soft hyphens, bidirectional marks, embeddings, overrides and isolates,
# tag characters), line and paragraph separators, surrogates and private-use characters, and the blank letters of
# Hangul and the combining grapheme joiner. In a name shown inline they could hide part of it, make it look like
# another, or reverse the page's own words beside it.
HIDDEN_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co"}
BLANK_LETTERS = {"\u034f", "\u115f", "\u1160", "\u3164", "\uffa0"}


def is_hidden(character: str) -> bool:
    """Whether a character cannot be seen or changes the direction of the text after it."""
    return character in BLANK_LETTERS or unicodedata.category(character) in HIDDEN_CATEGORIES


def hidden_or_directional(value: str) -> str | None:
    """The first invisible or direction-changing character of `value`, written as its code point ("U+202E"), or
    None when it has none."""
    found = next((character for character in value if is_hidden(character)), None)
    return None if found is None else f"U+{ord(found):04X}"


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


def hidden_characters(value: str) -> list[str]:
    """Each distinct character of `value` that cannot be seen or that changes the direction of the text, as its code
    point and Unicode name ("U+202E RIGHT-TO-LEFT OVERRIDE"), in order of appearance: what a curator cannot see on
    the page though the text holds it (a text keeps them: a right-to-left mark has its place in Arabic script)."""
    found = dict.fromkeys(character for character in value if is_hidden(character))
    return [f"U+{ord(character):04X} {unicodedata.name(character, '')}".strip() for character in found]
