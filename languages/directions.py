"""Which way a text runs, from its BCP 47 language code: the rating and translating pages mark source and target
texts with it, so that a right-to-left text is laid out as its readers expect whatever the page's language."""

# Scripts written right to left (ISO 15924), and languages whose usual script is one of them when the code names no
# script.
RTL_SCRIPTS = frozenset({"adlm", "arab", "hebr", "mand", "nkoo", "rohg", "samr", "syrc", "thaa", "yezi"})
RTL_LANGUAGES = frozenset({"ar", "arc", "azb", "bal", "ckb", "dv", "fa", "glk", "he", "iw", "ks", "lrc", "mzn", "nqo",
                           "pnb", "prs", "ps", "sd", "skr", "syr", "ug", "ur", "yi"})


def text_direction(code: str) -> str:
    """"rtl" or "ltr" when the code tells, "auto" (the browser decides from the text) when it does not."""
    parts = [part.lower() for part in code.replace("_", "-").split("-") if part]
    if not parts:
        return "auto"
    script = next((part for part in parts[1:] if len(part) == 4 and part.isalpha()), None)
    if script is not None:
        return "rtl" if script in RTL_SCRIPTS else "ltr"
    return "rtl" if parts[0] in RTL_LANGUAGES else "auto"
