"""Every string that shows a count of things has plural forms (ngettext / blocktranslate count), so French reads
"1 élément utilisable sur 2", never "1 éléments utilisables sur 2". A count-bearing string without plural forms is
allowed only when listed below with why its words never change with the number, in English and in French."""

import re
from pathlib import Path

import polib

LOCALE = Path(__file__).resolve().parent.parent / "locale" / "fr_CA" / "LC_MESSAGES"
# Placeholders that count things a reader sees (limits, lengths and money are bounds or amounts, not counts).
COUNT = re.compile(r"%\((count|done|total|rated|usable|items|entries|speakers|shown|right|counter|visible_count|"
                   r"covered|rejected|waiting|outputs|ratings|hours)\)[sd]")

ALWAYS_MANY = "the number is always above one (a size above a limit, a fixed number of checks or ratings)"
OF_TOTAL = "'N of M' in English, 'N sur M' in French: no noun agrees with the number"
NOT_A_COUNT = "the placeholder is a list of names, not a number"
INVARIANT_FRENCH = "the French puts the noun before the numbers ('bonnes réponses : N sur M', 'N h')"

WORDS_NEVER_CHANGE = {
    "The public name has %(count)s characters; at most %(limit)s are allowed.": ALWAYS_MANY,
    "the XLSX workbook holds %(count)s parts, more than %(limit)s; expected a .xlsx file saved by a spreadsheet "
    "program": ALWAYS_MANY,
    "%(count)s without": "a table cell beside its heading ('sans provenance'): the number stands alone",
    "At most %(count)s languages before English.": ALWAYS_MANY,
    "The reason has %(count)s characters; at most %(limit)s are kept.": ALWAYS_MANY,
    "With %(count)s ratings per item, an item is usable only with more than a majority of them, and the usable "
    "share then depends on which speakers happened to meet in a way one campaign cannot measure: in simulations "
    "the gate passed too many methods whose true share was at the threshold. Ask for 3 or 5.": ALWAYS_MANY,
    "Recommendation: pass — all %(count)s checks are met; governance staff make and record the decision.":
        ALWAYS_MANY,
    "All %(items)s sampled items have %(required)s: coverage is complete.": ALWAYS_MANY + " (a sample of 30 or more)",
    "coverage is incomplete (%(covered)s of %(items)s items)": "'N éléments sur M' agrees with M, above one",
    "Usable share %(share)s (%(usable)s of %(rated)s rated items; 95%% interval %(low)s–%(high)s)":
        "'N des M éléments évalués' agrees with M, a campaign's rated items (more than one)",
    "Usable share %(share)s, each difficulty tier weighted by its share of the card's outputs (%(usable)s of "
    "%(rated)s rated items unweighted; 95%% interval %(low)s–%(high)s)":
        "'N des M éléments évalués' agrees with M, a campaign's rated items (more than one)",
    "The sample size must be between 1 and %(outputs)s, the number of outputs in this run card.": OF_TOTAL,
    "Not every speaker can review this run card: %(speakers)s.": NOT_A_COUNT,
    "Approving against the recommendation: say in the rationale why the community approves (at least %(count)d "
    "characters).": ALWAYS_MANY,
    "The name is limited to %(count)d characters.": ALWAYS_MANY,
    "%(count)d sources; at most %(limit)d are taken at once": ALWAYS_MANY,
    "This translation was sent back %(count)d times already: accept, edit or reject it.": ALWAYS_MANY,
    "%(count)s members, more than the %(limit)s allowed": ALWAYS_MANY,
    "expected at most %(limit)s characters, found %(count)s": ALWAYS_MANY,
    "holds %(count)s JSON values (objects, arrays, their members and elements); the limit is %(limit)s, about 40,000 "
    "results as the harness writes them": ALWAYS_MANY,
    "holds %(rows)s rows; %(dataset)s %(version)s holds %(entries)s entries, and a card scores each at most once":
        ALWAYS_MANY + " (more rows than a published version's entries)",
    "this member is named %(count)s times in one object; a run card names each member once (JSON readers differ on "
    "which of the values counts)": ALWAYS_MANY + " (a repeated member: twice or more)",
    "is %(declared)s but the items add up to %(total)s": "the placeholder is a sum of US dollars, not a count",
    "While the sample is drawn the pool must keep %(count)s speakers.": ALWAYS_MANY + " (a pool of two or more)",
    "%(flag)s %(count)s": "a flag and its count in a table cell: the number stands alone",
    "Unknown rating %(value)s; expected any of: %(ratings)s.": NOT_A_COUNT,
    "Choose one of the four ratings: %(ratings)s.": NOT_A_COUNT,
    "The first %(shown)s of %(total)s rows.": ALWAYS_MANY + " (only shown when rows are cut)",
    "Only the first %(shown)s of the %(total)s problems are listed.": ALWAYS_MANY + " (only shown when cut)",
    "Page %(number)s of %(total)s": OF_TOTAL,
    "(simulated with %(items)s items and %(speakers)s speakers, which understates the chance of a pass)":
        ALWAYS_MANY + " (the form's smallest design)",
    "%(ratings)s ratings, about %(hours)s hours of speakers' time": INVARIANT_FRENCH
        + "; ratings per campaign are always many",
    "An estimate for all %(outputs)s outputs of the card: each difficulty tier's share weighted by its share of "
    "the outputs (the sample gives small tiers a floor, so they are over-represented). Unweighted: %(share)s, "
    "%(usable)s of %(rated)s rated items.": "shown only for a weighted campaign: many outputs, many rated items",
    "%(name)s: <strong>%(count)s</strong>": "a label and its number: the number stands alone",
    "%(usable)s of %(rated)s": OF_TOTAL,
    "- items rated: %(rated)s of %(items)s": OF_TOTAL,
    "%(done)s of %(total)s rated": INVARIANT_FRENCH,
    "Your last attempt, on %(date)s: %(right)s of %(total)s right.": INVARIANT_FRENCH,
    "%(right)s of %(total)s right; the pass mark is %(mark)s%%.": INVARIANT_FRENCH,
    "Practice item %(position)s of %(total)s": OF_TOTAL,
    "%(count)s of %(total)s": OF_TOTAL,
    "The %(shown)s oldest of %(waiting)s waiting.": ALWAYS_MANY + " (only shown when the list is cut)",
    "%(count)s of the %(k)s needed (%(n)s may sign)": OF_TOTAL,
    "%(count)s of the members who may sign rejected it: %(k)s approvals can no longer be reached.":
        "'N of the members' in English, 'N des membres' in French: no noun agrees with the number",
    "The comment has %(count)s characters; at most %(limit)s are kept.": ALWAYS_MANY,
    "%(count)s characters; at most %(limit)s are kept.": ALWAYS_MANY,
}


def count_bearing_singulars() -> set[str]:
    found = set()
    for domain in ("django", "djangojs"):
        for entry in polib.pofile(str(LOCALE / f"{domain}.po")):
            if not entry.obsolete and not entry.msgid_plural and COUNT.search(entry.msgid):
                found.add(entry.msgid)
    return found


def test_every_count_bearing_string_has_plural_forms_or_a_reason():
    assert sorted(count_bearing_singulars() - set(WORDS_NEVER_CHANGE)) == []


def test_the_reasons_list_only_strings_that_still_exist():
    assert sorted(set(WORDS_NEVER_CHANGE) - count_bearing_singulars()) == []


def test_the_walk_sees_a_count_bearing_string():
    assert "%(count)s of %(total)s" in count_bearing_singulars()


def test_french_plural_forms_follow_the_number():
    """French uses the singular for 0 and 1: one usable item of two reads in the singular."""
    from django.utils import translation
    from django.utils.translation import ngettext

    with translation.override("fr-ca"):
        one = ngettext("%(tier)s (%(usable)s of %(rated)s items usable, 95%% interval %(low)s–%(high)s)",
                       "%(tier)s (%(usable)s of %(rated)s items usable, 95%% interval %(low)s–%(high)s)", 1)
        many = ngettext("%(tier)s (%(usable)s of %(rated)s items usable, 95%% interval %(low)s–%(high)s)",
                        "%(tier)s (%(usable)s of %(rated)s items usable, 95%% interval %(low)s–%(high)s)", 2)
    numbers = {"tier": "T1", "rated": 2, "low": "0,1", "high": "0,9"}
    assert "1 élément utilisable sur 2" in one % {**numbers, "usable": 1}
    assert "2 éléments utilisables sur 2" in many % {**numbers, "usable": 2}
