"""A run card's JSON, read within bounds and without ambiguity (docs/run-cards.md, "Limits").

* **Values are counted before they are built.** json.loads makes a Python object of every value (an empty object
  costs 64 bytes, an object of one member about 200, against its 3 or 9 bytes of text), so a body of tiny values costs
  a worker twenty times its size or more. `shape` counts the commas and opening brackets outside strings with numpy
  first, and a body of more than RUN_CARD_MAX_VALUES values is refused before any is built; so is a string of more
  than STRING_MAX_BYTES (decoded, one emoji makes every character of a text four bytes).
* **A member name appears once in an object.** json.loads keeps the last of repeated names silently, while other
  readers keep the first, and a card is stored and served as the text it was sent: the secret-text scan would read one
  value and the public another. Repeated names are refused wherever they are, each at its JSON path.
* **What is served whole is small.** The install read serves every card without its results[] in each row it lists,
  and the method-config download serves `method_config` as sent: METHOD_CONFIG_MAX_BYTES for the one,
  HEAD_MAX_BYTES for all the card's members but results[] together (`size_problems`).
* **The text is not held whole.** A card is read member by member, results[] an element at a time, from a window of
  the body (common.json_reader.JsonObjectReader): the decoded text of a body takes up to four bytes a character.

Every problem is written in the language of the request being served, its sizes and counts grouped as that language
writes numbers (common.problems.grouped).
"""

import codecs
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.conf import settings
from django.utils.translation import gettext as _

from common.json_reader import JsonObjectReader, NotStreamed
from common.problems import FieldProblem, ProblemList, grouped, listed
from corpus.validation import refuse_constant

from .cards import top_level_value_text

COUNT_CHUNK = 1 << 16
# A string of a card (a model's output included) in bytes of JSON text: a megabyte is some 250,000 words.
STRING_MAX_BYTES = 1 << 20
METHOD_CONFIG_MAX_BYTES = 64 * 1024
HEAD_MAX_BYTES = 128 * 1024
# A member name longer than this is shortened in a path: the path names the place, not the text.
SHOWN_NAME = 60


class CardJsonError(Exception):
    """The body is no JSON a card may be, with every problem located; `too_large` when it holds too many values."""

    def __init__(self, problems: list[FieldProblem], too_large: bool = False):
        super().__init__("; ".join(str(problem) for problem in problems[:5]))
        self.problems = problems
        self.too_large = too_large


@dataclass
class Shape:
    """What a body holds, read before it is parsed: `values`, its JSON values (each array element and object member,
    containers included); `longest`, the bytes of its longest string (quotes and escapes included) and `longest_at`
    where that string begins."""

    values: int = 1
    longest: int = 0
    longest_at: int = 0


def shape(body: bytes, limit: int) -> Shape:
    """The Shape of `body`, read with numpy a COUNT_CHUNK at a time: its unescaped quotes (a quote after an odd run of
    backslashes is escaped) pair into strings. Values are counted over the whole body at C speed, strings included
    (an overcount, enough when it is within `limit`); otherwise only the commas and opening brackets outside strings
    (after an even number of unescaped quotes) are. Outside strings a backslash or a lone quote is no JSON: json.loads
    stops there, having built only values counted."""
    found = Shape(values=body.count(b",") + body.count(b"[") + body.count(b"{") + 1)
    exact = found.values > limit
    if exact:
        found.values = 1
    quotes_before, backslashes, opened = 0, 0, -1
    for start in range(0, len(body), COUNT_CHUNK):
        chunk = np.frombuffer(body, dtype=np.uint8, count=min(COUNT_CHUNK, len(body) - start), offset=start)
        quotes = np.flatnonzero(chunk == ord('"'))
        if backslashes or body.find(b"\\", start, start + len(chunk)) >= 0:
            # The last byte at or before each position that is not a backslash (before the chunk: -1 - backslashes).
            positions = np.arange(len(chunk), dtype=np.int32)
            plain = np.maximum.accumulate(np.where(chunk == ord("\\"), -1 - backslashes, positions))
            runs = np.where(quotes > 0, quotes - 1 - plain[np.maximum(quotes - 1, 0)], backslashes)
            quotes = quotes[runs % 2 == 0]
            backslashes = len(chunk) - 1 - int(plain[-1])
        if exact:
            marks = np.zeros(len(chunk), dtype=np.uint8)
            marks[quotes] = 1
            # uint8 sums wrap at 256, which keeps their parity.
            inside = (np.cumsum(marks, dtype=np.uint8) + quotes_before) & 1
            structure = (chunk == ord(",")) | (chunk == ord("[")) | (chunk == ord("{"))
            found.values += int(np.count_nonzero(structure & (inside == 0)))
            quotes_before = (quotes_before + len(quotes)) & 1
        ends = quotes + start
        if opened >= 0:
            ends = np.concatenate(([opened], ends))
        opened = int(ends[-1]) if len(ends) % 2 else -1
        pairs = ends[:len(ends) - len(ends) % 2].reshape(-1, 2)
        if len(pairs):
            lengths = pairs[:, 1] - pairs[:, 0] + 1
            longest = int(np.argmax(lengths))
            if lengths[longest] > found.longest:
                found.longest, found.longest_at = int(lengths[longest]), int(pairs[longest, 0])
    if opened >= 0 and len(body) - opened > found.longest:
        found.longest, found.longest_at = len(body) - opened, opened
    return found


class _Objects:
    """json.loads's object_pairs_hook: objects as dict() makes them, those naming a member twice remembered (the
    object itself, kept alive so that its identity stays its own, and its repeated names with their counts)."""

    def __init__(self) -> None:
        self.repeated: list[tuple[dict, dict[str, int]]] = []

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict:
        made = dict(pairs)
        if len(made) != len(pairs):
            self.repeated.append((made, {name: count for name, count in Counter(name for name, _ in pairs).items()
                                         if count > 1}))
        return made


def refuse_oversized(body: bytes, limit: int | None = None) -> None:
    """CardJsonError when `body` holds more than `limit` values (RUN_CARD_MAX_VALUES by default), or a string longer
    than STRING_MAX_BYTES."""
    limit = settings.RUN_CARD_MAX_VALUES if limit is None else limit
    found = shape(body, limit)
    problems = []
    if found.values > limit:
        problems.append(FieldProblem("", _(
            "holds %(count)s JSON values (objects, arrays, their members and elements); the limit is %(limit)s, "
            "about 40,000 results as the harness writes them") % {"count": grouped(found.values),
                                                                  "limit": grouped(limit)}))
    if found.longest > STRING_MAX_BYTES:
        problems.append(FieldProblem("", _(
            "holds a string of %(size)s bytes of JSON at byte offset %(offset)s; a string may hold %(limit)s")
            % {"size": grouped(found.longest), "offset": grouped(found.longest_at),
               "limit": grouped(STRING_MAX_BYTES)}))
    if problems:
        raise CardJsonError(problems, too_large=True)


def read_json(body: bytes, limit: int | None = None) -> tuple[Any, str]:
    """The value `body` holds and its text; CardJsonError for more than `limit` values (RUN_CARD_MAX_VALUES by
    default), text that is not UTF-8, JSON that is not (or holds NaN or Infinity), nesting too deep, or a member name
    repeated in an object."""
    refuse_oversized(body, limit)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CardJsonError([FieldProblem("", _("not valid UTF-8 (byte offset %(offset)s)")
                                          % {"offset": exc.start})]) from None
    objects = _Objects()
    try:
        value = json.loads(text, parse_constant=refuse_constant, object_pairs_hook=objects)
    except json.JSONDecodeError as exc:
        # The reason is the json module's own (in English): it names the token the parser expected.
        raise CardJsonError([FieldProblem("", _("invalid JSON at line %(line)s, column %(column)s: %(reason)s")
                                          % {"line": exc.lineno, "column": exc.colno, "reason": exc.msg})]) from None
    except RecursionError:
        raise CardJsonError([FieldProblem("", _("invalid JSON: nested too deeply"))]) from None
    except ValueError as exc:  # NaN or Infinity, refused by refuse_constant in the reader's language
        raise CardJsonError([FieldProblem("", _("invalid JSON: %(reason)s") % {"reason": exc})]) from None
    if objects.repeated:
        raise CardJsonError(repeated_names(value, objects.repeated))
    return value, text


def read_card(body: bytes) -> tuple[Any, dict[str, str]]:
    """The card `body` holds and the verbatim text of each of its top-level members but results[] (what is stored and
    served of it), read member by member and results[] an element at a time (read_json's refusals). A member whose
    text is over HEAD_MAX_BYTES characters is refused before it is parsed. A body the streaming reader leaves aside
    (anything but an object of distinct names, or JSON that is not) is read whole, so that its problem is located."""
    if body.startswith(codecs.BOM_UTF8):
        return read_json(body)[0], {}  # refused there, as json.loads refuses it
    refuse_oversized(body)
    objects = _Objects()
    decoder = json.JSONDecoder(parse_constant=refuse_constant, object_pairs_hook=objects)
    reader = JsonObjectReader(body, decoder)
    card: dict[str, Any] = {}
    members: dict[str, str] = {}
    try:
        for name in reader.names():
            if name == "results" and reader.at("["):
                card[name] = list(reader.elements())
                continue
            text = reader.value_text()
            if len(text) > HEAD_MAX_BYTES:
                raise CardJsonError([FieldProblem(member_path("", name), _(
                    "is %(size)s characters of JSON; a card's members but results[] may hold %(limit)s bytes "
                    "together") % {"size": grouped(len(text)), "limit": grouped(HEAD_MAX_BYTES)})], too_large=True)
            members[name], card[name] = text, decoder.decode(text)
    except NotStreamed:
        value, text = read_json(body)
        return value, ({name: found for name in value if name != "results"
                        if (found := top_level_value_text(text, name)) is not None} if isinstance(value, dict) else {})
    if objects.repeated:
        raise CardJsonError(repeated_names(card, objects.repeated))
    return card, members


# json.loads's reading of a card (read_json: NaN and Infinity refused), for reading a stored card a value at a time
# (common.json_reader.JsonObjectReader): its members' text at intake, its members as the harness's install read
# serves them.
CARD_DECODER = json.JSONDecoder(parse_constant=refuse_constant)


def size_problems(members: dict[str, str]) -> list[FieldProblem]:
    """`method_config` over METHOD_CONFIG_MAX_BYTES, and the members but results[] over HEAD_MAX_BYTES together."""
    sizes = {name: len(text.encode("utf-8")) for name, text in members.items()}
    problems = []
    if sizes.get("method_config", 0) > METHOD_CONFIG_MAX_BYTES:
        problems.append(FieldProblem("method_config", _(
            "is %(size)s bytes of JSON; the limit is %(limit)s (it is served whole to everyone who installs the "
            "method)") % {"size": grouped(sizes["method_config"]), "limit": grouped(METHOD_CONFIG_MAX_BYTES)}))
    if sum(sizes.values()) > HEAD_MAX_BYTES:
        largest = sorted(sizes, key=sizes.__getitem__, reverse=True)[:3]
        problems.append(FieldProblem("", _(
            "the card without its results[] is %(size)s bytes of JSON; the limit is %(limit)s (it is served with "
            "every row the leaderboard's install read lists); the largest members: %(members)s")
            % {"size": grouped(sum(sizes.values())), "limit": grouped(HEAD_MAX_BYTES),
               "members": ", ".join(f"{member_path('', name)} ({grouped(sizes[name])})" for name in largest)}))
    return problems


def repeated_names(value: Any, repeated: list[tuple[dict, dict[str, int]]]) -> list[FieldProblem]:
    """A problem at each repeated member, in document order. An object that a repeated member's later value replaced
    is in the document no more: the repeated member that replaced it is reported."""
    wanted = {id(found): names for found, names in repeated}
    problems = ProblemList()
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            for name, count in wanted.get(id(item), {}).items():
                problems.append(FieldProblem(member_path(path, name), _(
                    "this member is named %(count)s times in one object; a run card names each member once (JSON "
                    "readers differ on which of the values counts)") % {"count": count}))
            stack += reversed([(child, member_path(path, name)) for name, child in item.items()
                               if isinstance(child, (dict, list))])
        elif isinstance(item, list):
            stack += reversed([(child, f"{path}[{position}]") for position, child in enumerate(item)
                               if isinstance(child, (dict, list))])
    return listed(problems)


def member_path(path: str, name: str) -> str:
    shown = name if len(name) <= SHOWN_NAME else name[:SHOWN_NAME - 1] + "…"
    return f"{path}.{shown}" if path else shown


def unambiguous(text: str) -> str:
    """Stored JSON text as it may be served: itself, or — when it names a member twice (stored before such cards
    were refused) — the value json.loads reads from it, which is what the secret-text scan read, written again."""
    objects = _Objects()
    value = json.loads(text, object_pairs_hook=objects)
    return json.dumps(value, ensure_ascii=False) if objects.repeated else text
