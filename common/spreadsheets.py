"""Text a spreadsheet would run as a formula (CSV injection): every export that a spreadsheet may open
neutralises it, every import of such an export restores it."""

# OWASP "CSV injection": cells starting with these are run as formulas by spreadsheet programs
# (the full-width forms too, by some). An apostrophe in front makes them text.
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def neutralise_formula(text: str) -> str:
    """Prefix an apostrophe to text a spreadsheet would run as a formula.

    Text that already starts with apostrophes before a trigger gets one more, so that
    `restore_formula` can undo exactly one and a re-import gives back the stored text.
    """
    return "'" + text if text.lstrip("'").startswith(FORMULA_TRIGGERS) else text


def restore_formula(text: str) -> str:
    """Undo `neutralise_formula` on an imported cell (a typed "'-ak" also loses its apostrophe)."""
    if text.startswith("'") and text.lstrip("'").startswith(FORMULA_TRIGGERS):
        return text[1:]
    return text
