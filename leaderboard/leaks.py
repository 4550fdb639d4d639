"""Secret segment text in the public parts of a run card (docs/run-cards.md, "Secret text").

Texts are compared as *skeletons* (`skeleton`): compatibility forms unfolded (NFKD: full-width and mathematical
letters, ligatures and superscripts are plain letters), accents and other combining marks, punctuation, symbols and
invisible characters (format, control, private-use and default-ignorable code points) dropped, Cyrillic and Greek
look-alikes of Latin letters folded to those letters (CONFUSABLES), case folded, and every run of whitespace one
space. A card's public strings are read in the card's order as one stream, and a secret is found there by three rules:

* **whole**: a secret of at least MIN_SECRET_TEXT skeleton characters, the strings joined with a space (a secret cut
  at a space between two neighbouring strings is still whole);
* **whole, spaces ignored**: a secret of at least MIN_JOINED_TEXT letters and digits, the strings joined without
  anything between them and every space dropped (cut anywhere between neighbouring strings, or spelt out letter by
  letter);
* **shared piece**: a stretch of the stream, spaces dropped, made of windows of MIN_SHARED_TEXT letters and digits
  that are in a secret entry's own text (not in an output on one), of which at least MIN_SHARED_TEXT characters are
  not explained by the version's public entries (SecretTextIndex._shared).

Strings holding base64, hexadecimal, percent-, HTML- or \\u-escaped text are read decoded too (`decoded`).

Matching hashes k-grams with numpy, a block of the stream at a time, and looks the hashes up in sorted arrays: whole
secrets by a sample of their characters (the first MIN_JOINED_TEXT, or SHORT_KEY of a short one), pieces by every
MIN_SHARED_TEXT-window of the secret entries' texts (64-bit hashes, 8 bytes a character of secret text). The cost grows
with the card's text plus the secrets' text, never with their product. A whole secret's hash only proposes a place:
the characters there are compared.
"""

import base64
import binascii
import functools
import html
import re
import sys
import unicodedata
import urllib.parse
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

# Skeleton characters (spaces included): a shorter secret is not looked for. Two or three letters occur by chance in
# any text, and alone they reveal nothing of a sentence.
MIN_SECRET_TEXT = 4
# Letters and digits (spaces dropped): a whole secret at least this long is also found across neighbouring strings
# and with its spaces moved or removed. Shorter ones would be found by chance where words meet.
MIN_JOINED_TEXT = 12
# Letters and digits: a piece of a secret entry's text this long is a leak. Eight or nine words of a sentence; shorter
# pieces of ordinary text (a greeting, a common phrase) are shared by chance between any two texts of a language.
MIN_SHARED_TEXT = 40
# Whole secrets shorter than this (in skeleton characters) are looked up by their full hash; longer ones by the hash of
# their first SHORT_KEY characters.
SHORT_KEY = 8
# A run of the base64 alphabet this long is decoded (9 bytes: a short sentence's worth); hexadecimal needs twice the
# characters for as many bytes.
MIN_ENCODED = 12

# Cyrillic and Greek letters (and Latin small capitals and IPA letters, which NFKD keeps) that look like a Latin
# letter, folded to it before case folding: the upper- and lower-case forms are folded apart, as each looks like a
# different Latin letter (Greek Ν is N, ν is v).
CONFUSABLES = dict(zip(
    "АВЕКМНОРСТХУЅІЈԚԜҮҺӀԀԌаеорсухѕіјԁԛԝһүӏ"
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹͿαοριυκνχγϲϳ"
    "ıȷɑɡɢɩɪʟɴʀʙʜʏᴀᴄᴅᴇᴊᴋᴍᴏᴘᴛᴜᴠᴡᴢꜱ",
    "ABEKMHOPCTXYSIJQWYHIDGaeopcyxsijdqwhyl"
    "ABEZHIKMNOPTYXCJaopiukvxycj"
    "ijaggiilnrbhyacdejkmoptuvwzs", strict=True))

SEPARATOR = 0xE000  # a private-use character: the border between two texts in a stream, never part of a skeleton
SPACE = 0x20
KEEP, DROP, WHITESPACE = 0, 1, 2
# The Hangul fillers: letters by category, invisible by use (default-ignorable).
IGNORABLE_LETTERS = (0x115F, 0x1160, 0x3164, 0xFFA0)
BASE = 0x9E3779B1  # an odd multiplier: hashes are polynomials in it modulo 2**32
BLOCK = 1 << 14  # positions hashed at a time, so that the arrays stay in the processor's cache
BLOOM_BITS = 20  # the bit table in front of a sorted set of hashes: at least 2**20 entries, at most 2**24


@functools.cache
def _classes() -> np.ndarray:
    """KEEP, DROP or WHITESPACE for every code point (built once per process, about a tenth of a second)."""
    classes = np.full(sys.maxunicode + 1, DROP, dtype=np.uint8)
    classes[0x20000:0x40000] = KEEP  # ideographs and their unassigned neighbours
    for code in (*range(0x20000), *range(0xE0000, 0xE1000)):
        char = chr(code)
        category = unicodedata.category(char)
        if char.isspace():
            classes[code] = WHITESPACE
        elif category[0] in "LN" or category == "Mc":
            classes[code] = KEEP
    classes[list(IGNORABLE_LETTERS)] = DROP
    classes[SEPARATOR] = KEEP
    return classes


@functools.cache
def _folds() -> np.ndarray:
    """The Basic Multilingual Plane mapped to itself, CONFUSABLES to their Latin letters."""
    folds = np.arange(0x10000, dtype=np.uint32)
    for letter, latin in CONFUSABLES.items():
        folds[ord(letter)] = ord(latin)
    return folds


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _text(codes: np.ndarray) -> str:
    return codes.astype(np.uint32).tobytes().decode("utf-32-le")


def _skeletons(texts: list[str]) -> np.ndarray:
    """The skeletons of `texts` as code points, each followed by SEPARATOR except the last."""
    joined = chr(SEPARATOR).join(texts)
    if joined.count(chr(SEPARATOR)) != max(0, len(texts) - 1):
        joined = chr(SEPARATOR).join(text.replace(chr(SEPARATOR), "") for text in texts)
    if not joined:
        return np.zeros(0, dtype=np.uint32)
    if joined.isascii():
        codes = _codes(joined).copy()
        codes[(codes >= 0x41) & (codes <= 0x5A)] += 0x20
    else:
        codes = _codes(unicodedata.normalize("NFKD", joined)).copy()
        basic = codes < 0x10000
        codes[basic] = _folds()[codes[basic]]
        codes = _codes(_text(codes).casefold())
    classes = _classes()[codes]
    codes = codes[classes != DROP]
    blank = classes[classes != DROP] == WHITESPACE
    # One space for a run of whitespace, none at either end of a text.
    starts = blank & ~np.concatenate(([False], blank[:-1]))
    codes = np.where(blank, SPACE, codes)[~blank | starts]
    border = np.concatenate(([True], codes[:-1] == SEPARATOR))
    before_border = np.concatenate((codes[1:] == SEPARATOR, [True]))
    return codes[~((codes == SPACE) & (border | before_border))]


# Characters of text skeletonized at a time (a text longer than this alone), so that the arrays stay small.
CHUNK = 1 << 16


def _chunks(texts: list[str]) -> list[list[str]]:
    """`texts` in consecutive groups of about CHUNK characters (a longer text alone)."""
    if not texts:
        return []
    ends = np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1)
    cuts = np.unique(np.searchsorted(ends, np.arange(CHUNK, int(ends[-1]), CHUNK), side="right")).tolist()
    return [texts[start:end] for start, end in zip([0, *cuts], [*cuts, len(texts)], strict=True) if end > start]


def skeleton(text: str) -> str:
    """The text as the scan compares it (this module's docstring)."""
    return _text(_skeletons([text]))


def skeletons(texts: list[str]) -> list[str]:
    """The skeleton of each text."""
    return chr(SEPARATOR).join(_text(_skeletons(group)) for group in _chunks(texts)).split(chr(SEPARATOR)) \
        if texts else []


# --- hashes of k-grams ---------------------------------------------------------------------------------------------

def _power(exponent: int, dtype: type) -> Any:
    bits = np.dtype(dtype).itemsize * 8
    return dtype(pow(BASE, exponent, 1 << bits))


def _rolling(codes: np.ndarray, length: int, cache: dict[int, np.ndarray]) -> np.ndarray:
    """The hash of every `length`-gram of `codes` (index i: the k-gram starting at i), modulo 2**32 or 2**64 as the
    codes' type, from those of power-of-two lengths: h(a + b)[i] = h(a)[i] · BASE^b + h(b)[i + a]."""
    if length in cache:
        return cache[length]
    head = 1 << (length.bit_length() - 1)
    if head == length:
        head = length // 2
    first, rest = _rolling(codes, head, cache), _rolling(codes, length - head, cache)
    hashes = first[:len(rest) - head] * _power(length - head, codes.dtype.type) + rest[head:]
    cache[length] = hashes
    return hashes


def _blocks(text: str, length: int, dtype: type = np.uint32) -> Iterator[tuple[int, np.ndarray]]:
    """(start, hashes of the `length`-grams of `text` starting in [start, start + BLOCK)), a block at a time."""
    for start in range(0, max(0, len(text) - length + 1), BLOCK):
        block: np.ndarray = _codes(text[start:start + BLOCK + length - 1]).astype(dtype)
        yield start, _rolling(block, length, {1: block})[:BLOCK]


def _hashes(text: str, length: int, dtype: type = np.uint32) -> np.ndarray:
    """The hash of every `length`-gram of `text`."""
    return np.concatenate([np.zeros(0, dtype=dtype), *(hashes for _, hashes in _blocks(text, length, dtype))])


class _Set:
    """Sorted hashes with a bit table of their high bits in front (most positions of a text fail there)."""

    def __init__(self, hashes: np.ndarray):
        self.sorted = np.unique(hashes)
        bits = min(BLOOM_BITS + 4, max(BLOOM_BITS, (len(self.sorted) * 8).bit_length()))
        self._shift = hashes.dtype.itemsize * 8 - bits
        self._bits = np.zeros(1 << bits, dtype=bool)
        self._bits[self.sorted >> self._shift] = True

    def __len__(self) -> int:
        return len(self.sorted)

    def members(self, hashes: np.ndarray) -> np.ndarray:
        """The positions of `hashes` that are in the set."""
        near = np.flatnonzero(self._bits[hashes >> self._shift])
        if not len(near) or not len(self.sorted):
            return near
        found = np.minimum(np.searchsorted(self.sorted, hashes[near]), len(self.sorted) - 1)
        return near[self.sorted[found] == hashes[near]]


@dataclass
class _Keys:
    """Whole secrets looked up by the hash of their first `length` characters: hash → {secret length → secrets}."""

    length: int
    found: dict[int, dict[int, set[str]]]

    def __post_init__(self) -> None:
        self.set = _Set(np.array(list(self.found), dtype=np.uint32))


def _keys(texts: list[str], length: int) -> _Keys:
    """_Keys of those of `texts` whose key is their first `length` characters."""
    found: dict[int, dict[int, set[str]]] = {}
    if not texts:
        return _Keys(length, found)
    joined = chr(SEPARATOR).join(texts)
    starts = np.cumsum([0] + [len(text) + 1 for text in texts[:-1]])
    hashes = _hashes(joined, length)
    for text, start in zip(texts, starts.tolist(), strict=True):
        if len(text) >= length:
            found.setdefault(int(hashes[start]), {}).setdefault(len(text), set()).add(text)
    return _Keys(length, found)


def _whole_in(text: str, keys: list[_Keys]) -> Iterator[tuple[int, str]]:
    """(position, secret) of every secret of `keys` found whole in `text`. A hash proposes a place; the text there is
    compared with the secrets of each length under that hash."""
    keys = [key for key in keys if key.found]
    if not keys:
        return
    longest = max(key.length for key in keys)
    for start in range(0, len(text), BLOCK):
        block = _codes(text[start:start + BLOCK + longest - 1])
        cache = {1: block}
        for key in keys:
            if len(block) < key.length:
                continue
            hashes = _rolling(block, key.length, cache)[:BLOCK]
            near = key.set.members(hashes)
            for position, value in zip((near + start).tolist(), hashes[near].tolist(), strict=True):
                for length, secrets in key.found[value].items():
                    if text[position:position + length] in secrets:
                        yield position, text[position:position + length]


def _window_hashes(text: str) -> np.ndarray:
    """64-bit hashes of every MIN_SHARED_TEXT-window of `text` that holds no SEPARATOR."""
    hashes = _hashes(text, MIN_SHARED_TEXT, np.uint64)
    borders = np.concatenate(([0], np.cumsum(_codes(text) == SEPARATOR)))
    return hashes[(borders[MIN_SHARED_TEXT:] - borders[:-MIN_SHARED_TEXT])[:len(hashes)] == 0]


# --- encodings -----------------------------------------------------------------------------------------------------

ENCODED = re.compile(rf"[A-Za-z0-9+/_-]{{{MIN_ENCODED},}}={{0,2}}|%[0-9A-Fa-f]{{2}}|&#?[0-9A-Za-z]+;"
                     r"|\\u[0-9A-Fa-f]{4}")
HEXADECIMAL = re.compile(rf"(?:[0-9A-Fa-f]{{2}}){{{MIN_ENCODED},}}")
ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})")


def _plain(data: bytes) -> str | None:
    """`data` as UTF-8 text, allowing a character cut at either end (a line of a longer encoding); None for bytes
    that are not text."""
    text = data.decode("utf-8", "ignore")
    printable = text.replace("\n", "").replace("\r", "").replace("\t", "").isprintable()
    return text if len(text.encode("utf-8")) >= len(data) - 6 and printable else None


def _decode_run(run: str) -> str:
    """A run of the base64 (or hexadecimal) alphabet decoded, or as it was."""
    if HEXADECIMAL.fullmatch(run):
        text = _plain(bytes.fromhex(run))
        if text is not None:
            return text
    try:
        data = base64.b64decode(run.rstrip("=") + "=" * (-len(run.rstrip("=")) % 4), altchars=b"-_"
                                if "-" in run or "_" in run else None)
    except (binascii.Error, ValueError):
        return run
    return _plain(data) or run


def decoded(text: str) -> str | None:
    """`text` with its encoded parts decoded (base64, hexadecimal, percent-encoding, HTML character references, \\u
    escapes), twice over for an encoding of an encoding; None when nothing decodes."""
    found = text
    for _ in range(2):
        step = ENCODED.sub(lambda match: _decode_run(match[0]) if match[0][0] not in "%&\\" else match[0], found)
        if "%" in step:
            step = urllib.parse.unquote(step)
        if "&" in step:
            step = html.unescape(step)
        if "\\u" in step:
            step = ESCAPE.sub(lambda match: chr(int(match[1], 16)), step)
        if step == found:
            break
        found = step
    return found if found != text else None


ENCODING_SIGNS = np.zeros(128, dtype=bool)
ENCODING_SIGNS[[ord(char) for char in "%&\\"]] = True
BASE64_ALPHABET = np.zeros(128, dtype=bool)
BASE64_ALPHABET[[ord(char) for char in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-"]] = True


def _encoded(texts: list[str]) -> list[int]:
    """Indexes of the texts that may hold an encoding, found with numpy: a run of MIN_ENCODED characters of the
    base64 alphabet, or a `%`, `&` or backslash."""
    joined = chr(SEPARATOR).join(texts)
    codes = _codes(joined)
    ascii_codes = np.minimum(codes, 127)
    alphabet = BASE64_ALPHABET[ascii_codes] & (codes < 128)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], alphabet.view(np.int8), [0]))))
    starts, ends = edges[::2], edges[1::2]
    positions = np.concatenate((starts[ends - starts >= MIN_ENCODED], np.flatnonzero(ENCODING_SIGNS[ascii_codes]
                                                                                    & (codes < 128))))
    if not len(positions):
        return []
    borders = np.flatnonzero(codes == SEPARATOR)
    return sorted(set(np.searchsorted(borders, positions).tolist()))


# --- streams -------------------------------------------------------------------------------------------------------

class _Stream:
    """Texts read as one: their skeletons joined in order with a space (`spaced`) and with every space dropped
    (`compact`), each with where its texts begin. `apart`: texts are kept apart by SEPARATOR instead, so that nothing
    is found across two of them. `decode`: texts holding an encoding are read a second time decoded, after all the
    others, as the text they came from. Built a chunk of texts at a time; only the two strings are kept."""

    def __init__(self, texts: list[str], *, apart: bool = False, decode: bool = True):
        self._given = len(texts)
        self._origin: list[int] = []
        groups = _chunks(texts)
        if decode:
            plain = []
            first = 0
            for group in groups:
                for position in _encoded(group):
                    found = decoded(group[position])
                    if found is not None:
                        plain.append(found)
                        self._origin.append(first + position)
                first += len(group)
            groups += _chunks(plain)
        spaced: list[str] = []
        compact: list[str] = []
        spaced_starts, compact_starts = [np.zeros(1, dtype=np.int64)], [np.zeros(1, dtype=np.int64)]
        spaced_size = compact_size = 0
        for group in groups:
            codes = _skeletons(group)
            if spaced:
                codes = np.concatenate(([SEPARATOR], codes)).astype(np.uint32)
            borders = np.flatnonzero(codes == SEPARATOR)
            spaced_starts.append(borders + 1 + spaced_size)
            spaced.append(_text(codes if apart else np.where(codes == SEPARATOR, SPACE, codes).astype(np.uint32)))
            spaced_size += len(codes)
            codes = codes[codes != SPACE]
            borders = np.flatnonzero(codes == SEPARATOR)
            if apart:
                compact_starts.append(borders + 1 + compact_size)
            else:
                compact_starts.append(borders - np.arange(len(borders)) + compact_size)
                codes = codes[codes != SEPARATOR]
            compact.append(_text(codes))
            compact_size += len(codes)
        self.spaced_starts = np.concatenate(spaced_starts)
        self.compact_starts = np.concatenate(compact_starts)
        self.spaced = "".join(spaced)
        self.compact = "".join(compact)

    @classmethod
    def apart(cls, texts: Iterable[str]) -> Iterator["_Stream"]:
        """Streams of `texts` (strings only) kept apart, a chunk at a time: nothing is found across two texts, so
        nothing needs the texts all at once (a version's public entries, read from the database as they come)."""
        group: list[str] = []
        size = 0
        for text in texts:
            if isinstance(text, str):
                group.append(text)
                size += len(text) + 1
                if size >= CHUNK:
                    yield cls(group, apart=True, decode=False)
                    group, size = [], 0
        if group:
            yield cls(group, apart=True, decode=False)

    def texts_at(self, compact: bool, start: int, end: int) -> set[int]:
        """The texts a stretch [start, end) of the stream covers, by their index among the texts given."""
        starts = self.compact_starts if compact else self.spaced_starts
        first, last = np.searchsorted(starts, [start, end - 1], side="right") - 1
        return {index if index < self._given else self._origin[index - self._given]
                for index in range(int(first), int(last) + 1)}


def _runs(starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The stretches [begin, end) that MIN_SHARED_TEXT-windows starting at sorted `starts` cover, merged."""
    if not len(starts):
        return starts, starts
    ends = starts + MIN_SHARED_TEXT
    opens = np.concatenate(([True], starts[1:] > np.maximum.accumulate(ends)[:-1]))
    begins = starts[opens]
    closes = np.maximum.reduceat(ends, np.flatnonzero(opens))
    return begins, closes


class SecretTextIndex:
    """The secrets a card must not hold, ready to be looked for: `texts`, the secret entries' own texts (whole, and
    by shared pieces), and `outputs`, a card's outputs on secret entries (whole only: an output's pieces are the
    model's wording, which public outputs share without revealing anything)."""

    def __init__(self, texts: Iterable[str], outputs: Iterable[str] = ()):
        own = [text for text in texts if isinstance(text, str)]
        given = own + [text for text in outputs if isinstance(text, str)]
        self._secrets: dict[str, bool] = {}
        for position, spaced in enumerate(skeletons(given)):
            if len(spaced) >= MIN_SECRET_TEXT:
                self._secrets[spaced] = self._secrets.get(spaced, False) or position < len(own)
        self._index()

    def _index(self) -> None:
        """Short secrets by the hash of all their characters (up to SHORT_KEY) or of their first SHORT_KEY, in the
        spaced stream; the others by their first MIN_JOINED_TEXT letters and digits in the compact stream; the
        secret entries' own texts of MIN_SHARED_TEXT or more by all their windows of that length."""
        short: list[str] = []
        self._spaced: dict[str, list[str]] = {}
        shared: list[str] = []
        for spaced, own in self._secrets.items():
            letters = spaced.replace(" ", "")
            if len(letters) < MIN_JOINED_TEXT:
                short.append(spaced)
            else:
                self._spaced.setdefault(letters, []).append(spaced)
                if own and len(letters) >= MIN_SHARED_TEXT:
                    shared.append(letters)
        self._short_keys = [_keys([text for text in short if min(len(text), SHORT_KEY) == length], length)
                            for length in range(MIN_SECRET_TEXT, SHORT_KEY + 1)]
        self._compact_keys = _keys(list(self._spaced), MIN_JOINED_TEXT)
        self._windows = _Set(_window_hashes(chr(SEPARATOR).join(shared)))

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def _whole(self, stream: _Stream) -> Iterator[tuple[bool, int, int, list[str]]]:
        """(in the compact stream?, start, end, the secrets found there) of every whole secret in `stream`."""
        for position, secret in _whole_in(stream.spaced, self._short_keys):
            yield False, position, position + len(secret), [secret]
        for position, letters in _whole_in(stream.compact, [self._compact_keys]):
            yield True, position, position + len(letters), self._spaced[letters]

    def _shared(self, stream: _Stream, public_texts: Callable[[], Iterable[str]]) -> list[tuple[int, int]]:
        """The stretches [start, end) of the compact stream made of windows of MIN_SHARED_TEXT characters found in a
        secret entry's text, in which at least MIN_SHARED_TEXT characters are not explained by the public texts: a
        character is explained when a window around it is also in a public text. So a public sentence a secret
        quotes is no leak, nor is a character or two the card happens to add to it."""
        if not len(self._windows):
            return []
        found, hashes = [], []
        for start, block in _blocks(stream.compact, MIN_SHARED_TEXT, np.uint64):
            near = self._windows.members(block)
            found.append(near + start)
            hashes.append(block[near])
        starts = np.concatenate([np.zeros(0, dtype=np.int64), *found])
        if not len(starts):
            return []
        begins, ends = _runs(starts)
        explained_begins, explained_ends = _runs(starts[self._explained(np.concatenate(hashes), public_texts)])
        # Explained windows are shared windows, so each explained stretch lies in one shared stretch.
        explained = np.bincount(np.searchsorted(begins, explained_begins, side="right") - 1,
                                weights=explained_ends - explained_begins, minlength=len(begins))
        leaking = ends - begins - explained >= MIN_SHARED_TEXT
        return list(zip(begins[leaking].tolist(), ends[leaking].tolist(), strict=True))

    @staticmethod
    def _explained(hashes: np.ndarray, public_texts: Callable[[], Iterable[str]]) -> np.ndarray:
        """Which of these window hashes the public texts hold too (read only now: most cards share no window)."""
        windows = _Set(hashes)
        held = np.zeros(len(windows), dtype=bool)
        for stream in _Stream.apart(public_texts()):
            for _, block in _blocks(stream.compact, MIN_SHARED_TEXT, np.uint64):
                held[np.searchsorted(windows.sorted, block[windows.members(block)])] = True
        return held[np.searchsorted(windows.sorted, hashes)]

    def found_in(self, text: str) -> bool:
        """Whether `text` alone holds a secret (no public text explains anything here)."""
        stream = _Stream([text])
        return next(self._whole(stream), None) is not None or bool(self._shared(stream, tuple))

    def discard_found_in(self, texts: Iterable[str]) -> None:
        """Forget the secrets that these (public) texts contain whole: they are no secret where those are shown."""
        if not self:
            return
        found = {secret for stream in _Stream.apart(texts) for *_, secrets in self._whole(stream) for secret in secrets}
        if found:
            for secret in found:
                del self._secrets[secret]
            self._index()

    def leaks(self, stream: _Stream, public_texts: Callable[[], Iterable[str]]) -> set[int]:
        """The texts of `stream` (by index) that take part in a whole secret, or in a shared stretch the public
        texts do not explain (_shared)."""
        found: set[int] = set()
        for compact, start, end, _ in self._whole(stream):
            found |= stream.texts_at(compact, start, end)
        for start, end in self._shared(stream, public_texts):
            found |= stream.texts_at(True, start, end)
        return found


# --- the card ------------------------------------------------------------------------------------------------------

def secret_text_paths(card: dict, index: SecretTextIndex, public_rows: Iterable[int],
                      public_texts: Callable[[], Iterable[str]] = tuple) -> list[str]:
    """JSON paths of the public strings of `card` that hold a secret: everything outside results[], and the
    results[] rows at `public_rows` (rows of public entries, which are shown per entry to the public). A secret cut
    across neighbouring strings is reported at each of them. `public_texts` gives the texts of the version's public
    entries, asked only when a shared piece needs explaining (SecretTextIndex.leaks).

    A member name holding a secret is reported at its object's path, and so is every string inside its value: a
    reported path must not carry the secret either."""
    if not index:
        return []
    public = [({key: value for key, value in card.items() if key != "results"}, "")]
    public += [(card["results"][position], f"results[{position}]") for position in public_rows]
    names: set[str] = set()
    places = _Places()
    for value, path in public:
        places.walk(value, places.node(-1, path), names)
    named = sorted(names)
    leaking = {named[number] for number in index.leaks(_Stream(named, apart=True), public_texts)}
    if leaking:
        places = _Places(leaking)
        for value, path in public:
            places.walk(value, places.node(-1, path), set())
    paths: list[str] = []
    for number in sorted(index.leaks(_Stream(places.texts), public_texts)):
        path = places.path(number)
        if path not in paths:
            paths.append(path)
    return paths


class _Places:
    """The strings of a card in order (`texts`), each with where it is: a tree of nodes (its container and member
    name or position), made into a JSON path only when asked (a path for each string of a large card would take as
    much memory as its text). A member name in `leaking` stands at its object's path, as does everything inside its
    value."""

    def __init__(self, leaking: set[str] | None = None):
        self.texts: list[str] = []
        self._leaking = leaking or set()
        self._string_nodes = array("q")
        self._parents = array("q")
        self._members: list[Any] = []

    def node(self, parent: int, member: Any) -> int:
        """A node under `parent` (-1: a root, whose member is its path); None as member: the parent's own path."""
        self._parents.append(parent)
        self._members.append(member)
        return len(self._members) - 1

    def _string(self, text: str, parent: int, member: Any) -> None:
        self.texts.append(text)
        self._string_nodes.append(self.node(parent, member))

    def walk(self, value: Any, at: int, names: set[str]) -> None:
        """Every string in `value` (node `at`) in order, and every member name into `names`. The hot loop of a
        large card: its appends are written out."""
        texts, strings, parents, members = self.texts, self._string_nodes, self._parents, self._members
        kind = type(value)
        if kind is dict:
            names.update(value)
            for key, item in value.items():
                if key in self._leaking:
                    self._string(key, at, None)
                    self._hidden(item, at)
                    continue
                kind = type(item)
                if kind is str:
                    texts.append(item)
                    strings.append(len(members))
                    parents.append(at)
                    members.append(key)
                elif kind is dict or kind is list:
                    self.walk(item, self.node(at, key), names)
        elif kind is list:
            for position, item in enumerate(value):
                kind = type(item)
                if kind is str:
                    self._string(item, at, position)
                elif kind is dict or kind is list:
                    self.walk(item, self.node(at, position), names)
        elif kind is str:
            self._string(value, at, None)

    def _hidden(self, value: Any, at: int) -> None:
        """Every string in `value` (names included), all at node `at`."""
        if isinstance(value, dict):
            for key, item in value.items():
                self._string(key, at, None)
                self._hidden(item, at)
        elif isinstance(value, list):
            for item in value:
                self._hidden(item, at)
        elif isinstance(value, str):
            self._string(value, at, None)

    def path(self, number: int) -> str:
        """The JSON path of string `number`."""
        steps: list[Any] = []
        node = self._string_nodes[number]
        while self._parents[node] != -1:
            if self._members[node] is not None:
                steps.append(self._members[node])
            node = self._parents[node]
        path = self._members[node]
        for step in reversed(steps):
            path = f"{path}[{step}]" if isinstance(step, int) else f"{path}.{step}" if path else step
        return path
