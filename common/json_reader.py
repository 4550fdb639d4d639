"""A JSON object read from its UTF-8 bytes without decoding them whole: a member at a time, an array an element at a
time. A corpus file (corpus.validation) and a run card's body (leaderboard.card_json, the harness's facade) are read
so; what it leaves aside (NotStreamed), the caller parses whole."""

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any

# Bytes decoded at a time by the streaming reader (JsonObjectReader), whose text then stays near a MiB.
READ_CHUNK = 1 << 18
JSON_WHITESPACE = re.compile(r"[ \t\n\r]*")  # as json.decoder skips it


class NotStreamed(Exception):
    """What the streaming reader leaves to a whole parse, which words and locates the problem: an encoding or JSON
    error, what the decoder refuses (a repeated key, NaN), a repeated member name, trailing data."""


class JsonObjectReader:
    """Reads the JSON object that UTF-8 `data` holds without decoding it whole: READ_CHUNK bytes at a time, of
    which only the text not yet read is kept. `names()` gives each member's name with the reader at its value,
    which the caller reads whole (`value()`), steps over (`skip()`) or, when it is an array (`at("[")`), reads
    one element at a time (`elements()`). Values are read by `decoder`, so each is what json.loads with its
    settings gives, and the grammar between them is JSON's; anything else raises NotStreamed."""

    def __init__(self, data: bytes, decoder: json.JSONDecoder):
        self._data = memoryview(data)
        self._json = decoder
        self._utf8 = codecs.getincrementaldecoder("utf-8-sig")()
        self._decoded = 0
        self._text = ""
        self._pos = 0
        self._span = (0, 0)

    def _extend(self) -> bool:
        """Drop the text before the reader and decode more, at least as much as is kept, so that a value longer
        than READ_CHUNK is read again only a few times; False at the end of the data."""
        if self._decoded == len(self._data):
            return False
        kept = self._text[self._pos:]
        chunk = self._data[self._decoded:self._decoded + max(READ_CHUNK, len(kept))]
        self._decoded += len(chunk)
        try:
            self._text = kept + self._utf8.decode(chunk, final=self._decoded == len(self._data))
        except UnicodeDecodeError:
            raise NotStreamed from None
        self._pos = 0
        return True

    def _next(self) -> str:
        """The next character after whitespace, the reader on it; "" at the end of the data."""
        while True:
            self._pos = JSON_WHITESPACE.match(self._text, self._pos).end()
            if self._pos < len(self._text):
                return self._text[self._pos]
            if not self._extend():
                return ""

    def _expect(self, character: str) -> None:
        if self._next() != character:
            raise NotStreamed
        self._pos += 1

    def _after(self, end: str) -> bool:
        """Step over the comma after a member or element (True) or the `end` that closes them (False)."""
        found = self._next()
        if found not in (",", end):
            raise NotStreamed
        self._pos += 1
        return found == ","

    def at(self, character: str) -> bool:
        return self._next() == character

    def value(self) -> Any:
        """The value at the reader, whole. One that ends where the decoded text ends may go on (a number, or
        an error only because the rest is not decoded yet): it is read again with more text."""
        self._next()
        while True:
            try:
                value, end = self._json.raw_decode(self._text, self._pos)
            except json.JSONDecodeError:
                pass
            except (ValueError, RecursionError):
                raise NotStreamed from None
            else:
                if end < len(self._text) or self._decoded == len(self._data):
                    self._span = (self._pos, end)
                    self._pos = end
                    return value
            if not self._extend():
                raise NotStreamed

    def holds(self, pattern: re.Pattern[str]) -> bool:
        """Whether the text of the value just read matches `pattern`."""
        return pattern.search(self._text, *self._span) is not None

    def value_text(self) -> str:
        """The text of the value at the reader, verbatim."""
        self.value()
        return self._text[self._span[0]:self._span[1]]

    def skip(self) -> None:
        """Step over the value at the reader, an array one element at a time."""
        if self.at("["):
            for _ in self.elements():
                pass
        else:
            self.value()

    def names(self) -> Iterator[str]:
        """The object's member names, in order, each given with the reader at its value; a repeated name, or
        anything but whitespace after the object, raises NotStreamed."""
        self._expect("{")
        seen: set[str] = set()
        if self.at("}"):
            self._pos += 1
        else:
            while True:
                if not self.at('"'):
                    raise NotStreamed
                name = self.value()
                if name in seen:
                    raise NotStreamed
                seen.add(name)
                self._expect(":")
                yield name
                if not self._after("}"):
                    break
        if self._next():
            raise NotStreamed

    def elements(self) -> Iterator[Any]:
        """The elements of the array at the reader, one at a time."""
        self._expect("[")
        if self.at("]"):
            self._pos += 1
            return
        while True:
            yield self.value()
            if not self._after("]"):
                return
