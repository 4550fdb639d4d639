"""One reading of a language pair, however it is written: the harness writes `eng>crk` (ISO 639-3), corpora
here often `EN→CRK`, BCP 47 tags such as `en-CA` or `crk-Cans` turn up in envelopes. `pair_key` reduces each
to `source>target` in lowercase ISO 639-3 codes, so that a filter or a query written one way finds data
written another way; the text as given is what is stored and shown."""

import re

# ISO 639-1 → ISO 639-3 (the individual or macrolanguage code the two-letter code stands for).
ISO_639_1_TO_3 = {
    "aa": "aar", "ab": "abk", "ae": "ave", "af": "afr", "ak": "aka", "am": "amh", "an": "arg", "ar": "ara",
    "as": "asm", "av": "ava", "ay": "aym", "az": "aze", "ba": "bak", "be": "bel", "bg": "bul", "bi": "bis",
    "bm": "bam", "bn": "ben", "bo": "bod", "br": "bre", "bs": "bos", "ca": "cat", "ce": "che", "ch": "cha",
    "co": "cos", "cr": "cre", "cs": "ces", "cu": "chu", "cv": "chv", "cy": "cym", "da": "dan", "de": "deu",
    "dv": "div", "dz": "dzo", "ee": "ewe", "el": "ell", "en": "eng", "eo": "epo", "es": "spa", "et": "est",
    "eu": "eus", "fa": "fas", "ff": "ful", "fi": "fin", "fj": "fij", "fo": "fao", "fr": "fra", "fy": "fry",
    "ga": "gle", "gd": "gla", "gl": "glg", "gn": "grn", "gu": "guj", "gv": "glv", "ha": "hau", "he": "heb",
    "hi": "hin", "ho": "hmo", "hr": "hrv", "ht": "hat", "hu": "hun", "hy": "hye", "hz": "her", "ia": "ina",
    "id": "ind", "ie": "ile", "ig": "ibo", "ii": "iii", "ik": "ipk", "io": "ido", "is": "isl", "it": "ita",
    "iu": "iku", "ja": "jpn", "jv": "jav", "ka": "kat", "kg": "kon", "ki": "kik", "kj": "kua", "kk": "kaz",
    "kl": "kal", "km": "khm", "kn": "kan", "ko": "kor", "kr": "kau", "ks": "kas", "ku": "kur", "kv": "kom",
    "kw": "cor", "ky": "kir", "la": "lat", "lb": "ltz", "lg": "lug", "li": "lim", "ln": "lin", "lo": "lao",
    "lt": "lit", "lu": "lub", "lv": "lav", "mg": "mlg", "mh": "mah", "mi": "mri", "mk": "mkd", "ml": "mal",
    "mn": "mon", "mr": "mar", "ms": "msa", "mt": "mlt", "my": "mya", "na": "nau", "nb": "nob", "nd": "nde",
    "ne": "nep", "ng": "ndo", "nl": "nld", "nn": "nno", "no": "nor", "nr": "nbl", "nv": "nav", "ny": "nya",
    "oc": "oci", "oj": "oji", "om": "orm", "or": "ori", "os": "oss", "pa": "pan", "pi": "pli", "pl": "pol",
    "ps": "pus", "pt": "por", "qu": "que", "rm": "roh", "rn": "run", "ro": "ron", "ru": "rus", "rw": "kin",
    "sa": "san", "sc": "srd", "sd": "snd", "se": "sme", "sg": "sag", "si": "sin", "sk": "slk", "sl": "slv",
    "sm": "smo", "sn": "sna", "so": "som", "sq": "sqi", "sr": "srp", "ss": "ssw", "st": "sot", "su": "sun",
    "sv": "swe", "sw": "swa", "ta": "tam", "te": "tel", "tg": "tgk", "th": "tha", "ti": "tir", "tk": "tuk",
    "tl": "tgl", "tn": "tsn", "to": "ton", "tr": "tur", "ts": "tso", "tt": "tat", "tw": "twi", "ty": "tah",
    "ug": "uig", "uk": "ukr", "ur": "urd", "uz": "uzb", "ve": "ven", "vi": "vie", "vo": "vol", "wa": "wln",
    "wo": "wol", "xh": "xho", "yi": "yid", "yo": "yor", "za": "zha", "zh": "zho", "zu": "zul",
}

# `→` (the corpus form), `->`, `>` (the harness form); a plain hyphen only between two bare codes ("en-crk"),
# since inside a BCP 47 tag it separates subtags ("en-CA").
ARROW = re.compile(r"\s*(?:→|->|>)\s*")
BARE_PAIR = re.compile(r"^([A-Za-z]{2,3})\s*[-_/]\s*([A-Za-z]{2,3})$")
CODE = re.compile(r"^[a-z]{2,3}$")


def language_code(text: str) -> str:
    """A language as its lowercase ISO 639-3 code where it can be told (`EN`, `en-CA`, `eng` → `eng`;
    `crk-Cans` → `crk`); otherwise the text lowercased and trimmed."""
    tag = text.strip().lower().replace("_", "-")
    primary = tag.split("-", 1)[0]
    if not CODE.match(primary):
        return tag
    return ISO_639_1_TO_3.get(primary, primary)


def split_pair(text: str) -> tuple[str, str] | None:
    """The two sides of a written pair, or None when it does not read as one."""
    parts = ARROW.split(text.strip())
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    bare = BARE_PAIR.match(text.strip())
    if bare:
        return bare.group(1), bare.group(2)
    return None


def pair_key(text: str) -> str | None:
    """`source>target` in ISO 639-3 codes for any way of writing the pair (`eng>crk`, `EN→CRK`, `en-CA -> crk`),
    None for text that is not a pair."""
    sides = split_pair(text or "")
    if sides is None:
        return None
    return f"{language_code(sides[0])}>{language_code(sides[1])}"


def version_pair_key(language_pair: str, source_language: str = "", target_language: str = "") -> str | None:
    """The key of a stored version's pair: its source and target languages when both are given, else the pair
    as written."""
    if source_language.strip() and target_language.strip():
        return f"{language_code(source_language)}>{language_code(target_language)}"
    return pair_key(language_pair)
