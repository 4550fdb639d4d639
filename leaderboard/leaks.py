"""Secret segment text in the public parts of a run card (docs/run-cards.md, "Secret text").

Pure Python on the card as `json.loads` returned it. Texts are compared after Unicode NFC normalization,
with case folded and every run of whitespace collapsed to one space, so that re-casing, re-spacing or
decomposing accents does not carry a secret past the check.
"""

import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

# Secret texts shorter than this many characters (normalized) are not looked for: two or three letters
# occur by chance in any text, and alone they reveal nothing of a sentence.
MIN_SECRET_TEXT = 4
WHITESPACE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """NFC, case folded, whitespace runs collapsed to one space, trimmed."""
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", text).casefold())
    return WHITESPACE.sub(" ", folded).strip()


class SecretTextIndex:
    """Normalized secret texts, found inside another text in one pass over it.

    Each secret is filed under its first KEY_LENGTH characters (all of it when shorter), and those keys
    under their first MIN_SECRET_TEXT characters. A text is scanned position by position: one dictionary
    lookup each, and where some key starts with the characters found there, one lookup per key length
    filed under them. Only secrets whose whole key is found are compared, so the cost grows with the length
    of the scanned text, not with the number of secrets, even when many secrets begin alike ("the …").
    """

    KEY_LENGTH = 16

    def __init__(self, texts: Iterable[str]):
        self._by_key: dict[str, list[str]] = {}
        for text in {normalize(text) for text in texts if isinstance(text, str)}:
            if len(text) >= MIN_SECRET_TEXT:
                self._by_key.setdefault(text[:self.KEY_LENGTH], []).append(text)
        self._index_keys()

    def _index_keys(self) -> None:
        lengths: dict[str, set[int]] = {}
        for key in self._by_key:
            lengths.setdefault(key[:MIN_SECRET_TEXT], set()).add(len(key))
        self._key_lengths = {prefix: sorted(found) for prefix, found in lengths.items()}

    def __bool__(self) -> bool:
        return bool(self._by_key)

    def _matches(self, normalized: str) -> Iterator[str]:
        key_lengths, by_key = self._key_lengths, self._by_key
        for start in range(len(normalized) - MIN_SECRET_TEXT + 1):
            for length in key_lengths.get(normalized[start:start + MIN_SECRET_TEXT], ()):
                for secret in by_key.get(normalized[start:start + length], ()):
                    if normalized.startswith(secret, start):
                        yield secret

    def found_in(self, text: str) -> bool:
        return next(self._matches(normalize(text)), None) is not None

    def discard_found_in(self, texts: Iterable[str]) -> None:
        """Forget the secrets that these (public) texts contain: they are no secret where those are shown."""
        found = {secret for text in texts for secret in self._matches(normalize(text))}
        for secret in found:
            key = secret[:self.KEY_LENGTH]
            self._by_key[key].remove(secret)
            if not self._by_key[key]:
                del self._by_key[key]
        if found:
            self._index_keys()


def secret_text_paths(card: dict, index: SecretTextIndex, public_rows: Iterable[int]) -> list[str]:
    """JSON paths of the public strings of `card` that hold a secret: everything outside results[], and the
    results[] rows at `public_rows` (rows of public entries, which are shown per entry to the public)."""
    paths: list[str] = []
    if index:
        _walk({key: value for key, value in card.items() if key != "results"}, "", index, paths)
        for position in public_rows:
            _walk(card["results"][position], f"results[{position}]", index, paths)
    return paths


def _walk(value: Any, path: str, index: SecretTextIndex, paths: list[str]) -> None:
    """A member name holding a secret is reported at its object's path, and its value is not walked: the
    reported path must not carry the secret either."""
    if isinstance(value, dict):
        for key, item in value.items():
            if index.found_in(key):
                if path not in paths:
                    paths.append(path)
                continue
            _walk(item, f"{path}.{key}" if path else key, index, paths)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            _walk(item, f"{path}[{position}]", index, paths)
    elif isinstance(value, str) and index.found_in(value):
        paths.append(path)
