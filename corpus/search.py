"""The one text normalisation of entry search, for stored text and queries alike (docs/corpus.md, "Search").

Speakers type without the diacritics of a written standard (Plains Cree SRO "tanisi" for "tânisi"),
on keyboards that lack precomposed syllabics. `Entry.search_text` holds `fold()` of the searchable fields,
written with every entry (corpus.services.entry_values and Entry.save), and a query is folded the same way,
so a plain substring test finds it on PostgreSQL and SQLite alike, without the unaccent extension.

Folded: case (casefold, so "ß" is "ss"); compatibility forms (NFKD: ligatures, full-width letters, no-break
spaces); the combining marks of the Combining Diacritical Marks blocks, which Latin, Greek and Cyrillic
letters carry (â ê î ô and ā ē ī ō become a e i o; also é, ą, ǫ, ñ); Canadian syllabics w-syllables, whose
precomposed forms (West Cree ᐚ and Eastern ᐙ alike) become the base syllable followed by ᐧ (U+1427 FINAL
MIDDLE DOT), as typed where the precomposed ones are missing, "·" (U+00B7) typed for that dot included; and
the apostrophes ’ ‘ ʼ, which phones and orthographies swap for '.

Not folded: the vowel signs and points of other scripts (Devanagari, Arabic, Hebrew), which tell words
apart; letters without a decomposition (ł, ø, ŋ); syllabics length dots (ᐊ and ᐋ are different syllables);
a w-dot typed before its syllable. Changing any of this changes what is stored: it needs a migration that
fills `search_text` again, as 0010 does.
"""

import re
import unicodedata

SYLLABICS_W_DOT = "\u1427"
COMBINING_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
W_SYLLABLE = re.compile(r"CANADIAN SYLLABICS (?:WEST-CREE )?([A-Z]*)W(E|I|II|O|OO|A|AA)")
SYLLABICS_BLOCKS = (range(0x1400, 0x1680), range(0x18B0, 0x1900))
SEPARATOR = "\n"


def _w_syllables() -> dict[int, str]:
    """Each precomposed w-syllable → its base syllable and ᐧ, found by Unicode name (ᐚ WEST-CREE WAA → ᐋ AA)."""
    table = {}
    for block in SYLLABICS_BLOCKS:
        for code in block:
            match = W_SYLLABLE.fullmatch(unicodedata.name(chr(code), ""))
            if match is None:
                continue
            try:
                base = unicodedata.lookup(f"CANADIAN SYLLABICS {match[1]}{match[2]}")
            except KeyError:
                continue
            table[code] = base + SYLLABICS_W_DOT
    return table


TRANSLATION = {
    **_w_syllables(),
    ord("\u00b7"): SYLLABICS_W_DOT,
    ord("\u2019"): "'",
    ord("\u2018"): "'",
    ord("\u02bc"): "'",
}


def fold(text: str) -> str:
    """`text` as search compares it. NFKD twice around casefold: case mappings and compatibility forms
    each produce what the other maps (Unicode's compatibility caseless matching)."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())
    text = COMBINING_DIACRITICS.sub("", text).translate(TRANSLATION)
    return unicodedata.normalize("NFC", text)


def entry_search_text(source: str, reference: str, notes: str) -> str:
    """What `Entry.search_text` stores: the folded fields a text search looks in, one per line."""
    return SEPARATOR.join(fold(text or "") for text in (source, reference, notes))
