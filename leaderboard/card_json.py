"""A run card's JSON, read within bounds and without ambiguity (docs/run-cards.md, "Limits").

* **Values are counted before they are built.** json.loads makes a Python object of every value (an empty object
  costs 64 bytes, an object of one member about 200, against its 3 or 9 bytes of text), so a body of tiny values costs
  a worker twenty times its size or more. `value_count` counts the commas and opening brackets outside strings at C
  speed first, and a body of more than RUN_CARD_MAX_VALUES values is refused before any is built.
* **A member name appears once in an object.** json.loads keeps the last of repeated names silently, while other
  readers keep the first, and a card is stored and served as the text it was sent: the secret-text scan would read one
  value and the public another. Repeated names are refused wherever they are, each at its JSON path.
* **What is served whole is small.** The install read serves every card without its results[] in each row it lists,
  and the method-config download serves `method_config` as sent: METHOD_CONFIG_MAX_BYTES for the one,
  HEAD_MAX_BYTES for all the card's members but results[] together (`size_problems`).
* **The text is not held whole.** A card is read member by member, results[] an element at a time, from a window of
  the body (corpus.validation.JsonObjectReader): the decoded text of a body takes up to four bytes a character.
"""

import codecs
import json
from collections import Counter
from typing import Any

import numpy as np
from django.conf import settings

from common.problems import FieldProblem, ProblemList, listed
from corpus.validation import JsonObjectReader, NotStreamed, refuse_constant

from .cards import top_level_value_text

COUNT_CHUNK = 1 << 20
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


def value_count(body: bytes, limit: int) -> int:
    """How many JSON values `body` holds, counting each array element and object member (containers included): the
    commas and opening brackets outside strings, plus one. Counted over the whole body at first, strings included (an
    overcount, enough when it is within `limit`); otherwise again, a COUNT_CHUNK at a time with numpy, only where an
    even number of quotes comes before, once escaped backslashes and quotes are taken out (JSON reads a string's
    escapes from left to right, as bytes.replace does). Outside strings a backslash is no JSON: json.loads stops
    there, having built only values counted."""
    count = body.count(b",") + body.count(b"[") + body.count(b"{") + 1
    if count <= limit:
        return count
    if b"\\" in body:
        body = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    count, quotes_before = 1, 0
    for start in range(0, len(body), COUNT_CHUNK):
        chunk = np.frombuffer(body, dtype=np.uint8, count=min(COUNT_CHUNK, len(body) - start), offset=start)
        quotes = chunk == ord('"')
        # uint8 sums wrap at 256, which keeps their parity.
        inside = (np.cumsum(quotes, dtype=np.uint8) + quotes_before) & 1
        structure = (chunk == ord(",")) | (chunk == ord("[")) | (chunk == ord("{"))
        count += int(np.count_nonzero(structure & (inside == 0)))
        quotes_before = (quotes_before + int(np.count_nonzero(quotes))) & 1
    return count


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


def refuse_too_many_values(body: bytes, limit: int | None = None) -> None:
    """CardJsonError when `body` holds more than `limit` values (RUN_CARD_MAX_VALUES by default)."""
    limit = settings.RUN_CARD_MAX_VALUES if limit is None else limit
    count = value_count(body, limit)
    if count > limit:
        raise CardJsonError([FieldProblem("", (
            f"holds {count:,} JSON values (objects, arrays, their members and elements); the limit is {limit:,}, "
            "about 40,000 results as the harness writes them"))], too_large=True)


def read_json(body: bytes, limit: int | None = None) -> tuple[Any, str]:
    """The value `body` holds and its text; CardJsonError for more than `limit` values (RUN_CARD_MAX_VALUES by
    default), text that is not UTF-8, JSON that is not (or holds NaN or Infinity), nesting too deep, or a member name
    repeated in an object."""
    refuse_too_many_values(body, limit)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CardJsonError([FieldProblem("", f"not valid UTF-8 (byte offset {exc.start})")]) from None
    objects = _Objects()
    try:
        value = json.loads(text, parse_constant=refuse_constant, object_pairs_hook=objects)
    except json.JSONDecodeError as exc:
        raise CardJsonError([FieldProblem("", f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")]
                            ) from None
    except RecursionError:
        raise CardJsonError([FieldProblem("", "invalid JSON: nested too deeply")]) from None
    except ValueError as exc:
        raise CardJsonError([FieldProblem("", f"invalid JSON: {exc}")]) from None
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
    refuse_too_many_values(body)
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
                raise CardJsonError([FieldProblem(member_path("", name), (
                    f"is {len(text):,} characters of JSON; a card's members but results[] may hold "
                    f"{HEAD_MAX_BYTES:,} bytes together"))], too_large=True)
            members[name], card[name] = text, decoder.decode(text)
    except NotStreamed:
        value, text = read_json(body)
        return value, ({name: found for name in value if name != "results"
                        if (found := top_level_value_text(text, name)) is not None} if isinstance(value, dict) else {})
    if objects.repeated:
        raise CardJsonError(repeated_names(card, objects.repeated))
    return card, members


def size_problems(members: dict[str, str]) -> list[FieldProblem]:
    """`method_config` over METHOD_CONFIG_MAX_BYTES, and the members but results[] over HEAD_MAX_BYTES together."""
    sizes = {name: len(text.encode("utf-8")) for name, text in members.items()}
    problems = []
    if sizes.get("method_config", 0) > METHOD_CONFIG_MAX_BYTES:
        problems.append(FieldProblem("method_config", (
            f"is {sizes['method_config']:,} bytes of JSON; the limit is {METHOD_CONFIG_MAX_BYTES:,} (it is served "
            "whole to everyone who installs the method)")))
    if sum(sizes.values()) > HEAD_MAX_BYTES:
        largest = sorted(sizes, key=sizes.__getitem__, reverse=True)[:3]
        problems.append(FieldProblem("", (
            f"the card without its results[] is {sum(sizes.values()):,} bytes of JSON; the limit is "
            f"{HEAD_MAX_BYTES:,} (it is served with every row the leaderboard's install read lists); the largest "
            "members: " + ", ".join(f"{member_path('', name)} ({sizes[name]:,})" for name in largest))))
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
                problems.append(FieldProblem(member_path(path, name), (
                    f"this member is named {count} times in one object; a run card names each member once (JSON "
                    "readers differ on which of the values counts)")))
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
