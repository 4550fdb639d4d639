"""The JSON corpus import reads its file an entry at a time (corpus.validation.read_corpus): every file must
come out exactly as the whole-file parse (decode_corpus_bytes + validate_corpus) says, valid or not, wherever
the reading windows happen to cut it, and the file's text and entries are never held whole."""

import json
import tracemalloc

import pytest

from common import json_reader
from corpus import validation
from corpus.services import import_corpus
from corpus.validation import (
    MAX_PROBLEMS_KEPT,
    CorpusFileError,
    StreamedEntries,
    decode_corpus_bytes,
    read_corpus,
    validate_corpus,
)

from .conftest import corpus_bytes, entry, mixed_entries

LIMIT = 10_000_000


def outcome(read, data: bytes):
    """What an import learns from `read`: the refusal's problems, or everything it takes from the corpus."""
    try:
        corpus = read(data)
    except CorpusFileError as error:
        return "refused", [str(problem) for problem in error.problems], error.total
    entries = [(valid.position, valid.data, valid.entry_id, valid.segment, valid.difficulty, valid.provenance,
                valid.register, valid.context, valid.domain) for valid in corpus.entries]
    segments = {valid.segment for valid in validate_corpus(*whole_parse(data, LIMIT)).entries}
    assert corpus.segments == segments
    return "valid", corpus.envelope, corpus.envelope_fields, corpus.warnings, len(corpus.entries), entries


whole_parse = decode_corpus_bytes


def whole(data: bytes):
    parsed, scan_text = whole_parse(data, LIMIT)
    return validate_corpus(parsed, scan_text=scan_text)


def streamed(data: bytes):
    return read_corpus(data, LIMIT)


ENVELOPE = json.loads(corpus_bytes([]))["dataset"]


def document(*members: tuple[str, str]) -> bytes:
    """A file written member by member, so that members can repeat or come in any order."""
    return ("{" + ", ".join(f"{json.dumps(name)}: {text}" for name, text in members) + "}").encode("utf-8")


DATASET = ("dataset", json.dumps(ENVELOPE, ensure_ascii=False))
ENTRIES = ("entries", json.dumps(mixed_entries(), ensure_ascii=False))
UNICODE_ENTRIES = [
    entry(1, source="nêhiyawêwin ᓀᐦᐃᔭᐍᐏᐣ", reference="emoji 😀 and \u00e9", notes="tab\tquote\"backslash\\"),
    entry("upstream-2", "diagnostic", provenance={"type": "textbook", "page": 12}, difficulty=5),
    entry(3, domain=None, register=None, variant_class="a" * 200),
    entry(4, "gold_standard", source="x" * 3000, reference="y"),
]

CASES = {
    "mixed": corpus_bytes(mixed_entries()),
    "unicode and escapes": corpus_bytes(UNICODE_ENTRIES),
    "escaped by json": json.dumps({"dataset": ENVELOPE, "entries": UNICODE_ENTRIES}).encode(),
    "compact": json.dumps({"dataset": ENVELOPE, "entries": mixed_entries()}, separators=(",", ":")).encode(),
    "byte order mark": b"\xef\xbb\xbf" + corpus_bytes(mixed_entries()),
    "whitespace around": b" \r\n\t" + corpus_bytes(mixed_entries()) + b"\n\n \t",
    "entries first": document(ENTRIES, DATASET),
    "other members": document(("notes", '[1, [2.5e3, {"a": null}], -0]'), DATASET, ENTRIES, ("x", "true")),
    "unsegmented": corpus_bytes([{"id": 1, "source": "s", "reference": "r"}, entry(2)]),
    "empty object": b"{}",
    "no entries member": document(DATASET),
    "empty entries": document(DATASET, ("entries", "[ ]")),
    "null entries": document(DATASET, ("entries", "null")),
    "entries object": document(DATASET, ("entries", '{"1": {}}')),
    "entries string": document(DATASET, ("entries", '"[]"')),
    "no dataset": document(ENTRIES),
    "envelope and entries wrong": document(("entries", '[{"id": true}, 7, {"id": 1, "source": 2}]'),
                                          ("dataset", '{"id": "bad id", "created": "May"}')),
    "duplicate ids": corpus_bytes([entry(1), entry(2), entry(1), entry("2")]),
    "many problems": corpus_bytes([{"id": n, "source": "", "reference": 1} for n in range(MAX_PROBLEMS_KEPT)]),
    "repeated member": document(DATASET, ENTRIES, DATASET),
    "repeated entries": document(DATASET, ENTRIES, ("entries", "[]")),
    "repeated key in an entry": document(DATASET, ("entries", '[{"id": 1, "source": "a", "source": "b"}]')),
    "repeated key in the envelope": document(("dataset", '{"id": "a", "id": "b"}'), ENTRIES),
    "NaN in an entry": document(DATASET, ("entries", '[{"id": 1, "difficulty": NaN}]')),
    "Infinity after the entries": document(DATASET, ENTRIES, ("x", "-Infinity")),
    "huge exponent": document(DATASET, ("entries", '[{"id": 1, "source": "s", "reference": "r", "x": 1e999}]')),
    "NUL escape": corpus_bytes([entry(1, source="a\x00b"), entry(2)]),
    "lone surrogate": document(DATASET, ("entries", '[{"id": 1, "source": "s", "reference": "r", '
                                                    '"notes": "\\ud800"}]')),
    "surrogate pair": document(DATASET, ("entries", '[{"id": 1, "source": "\\ud83d\\ude00", "reference": "r"}]')),
    "escaped backslash before u0000": document(DATASET, ("entries", '[{"id": 1, "source": "\\\\u0000", '
                                                                    '"reference": "r"}]')),
    "NUL in the envelope": corpus_bytes(mixed_entries(), notes="a\x00"),
    "NUL in another member": document(DATASET, ENTRIES, ("x", '"\\u0000"')),
    "trailing comma in entries": document(DATASET, ("entries", "[{}, ]")),
    "missing comma": document(DATASET, ("entries", "[{} {}]")),
    "trailing comma in the object": document(DATASET, ENTRIES)[:-1] + b", }",
    "truncated": corpus_bytes(mixed_entries())[:-40],
    "unterminated string at the end": b'{"dataset": {}, "entries": ["abc',
    "extra data": corpus_bytes(mixed_entries()) + b" {}",
    "two objects": b"{} {}",
    "top-level array": json.dumps([ENVELOPE]).encode(),
    "top-level string": b'"dataset"',
    "top-level number": b"12",
    "second byte order mark": b"\xef\xbb\xbf\xef\xbb\xbf{}",
    "single quotes": b"{'dataset': {}}",
    "control character in a string": document(DATASET, ("entries", '[{"id": 1, "source": "a\tb"}]')),
    "invalid UTF-8 in the middle": corpus_bytes(mixed_entries()).replace(b"source public-2", b"source \xff-2"),
    "invalid UTF-8 after a JSON error": b'{"dataset": {,}, "entries": ["\xc3"]}',
    "truncated UTF-8 at the end": corpus_bytes(mixed_entries()) + b"\xe2\x82",
    "encoded surrogate": corpus_bytes([entry(1, source="@")]).replace(b"@", b"\xed\xb3\xbf"),
    "deep nesting": document(DATASET, ("entries", "[" * 100_000 + "]" * 100_000)),
    "only whitespace": b" \n\t ",
    "empty": b"",
}


# Files the streaming reader leaves to the whole parse, so that their problem reads exactly as before.
PARSED_WHOLE = {
    "repeated member", "repeated entries", "repeated key in an entry", "repeated key in the envelope",
    "NaN in an entry", "Infinity after the entries", "trailing comma in entries", "missing comma",
    "trailing comma in the object", "truncated", "unterminated string at the end", "extra data", "two objects",
    "top-level array", "top-level string", "top-level number", "second byte order mark", "single quotes",
    "control character in a string", "invalid UTF-8 in the middle", "invalid UTF-8 after a JSON error",
    "truncated UTF-8 at the end", "encoded surrogate", "deep nesting",
}


@pytest.mark.parametrize("chunk", [1, 2, 7, 64, json_reader.READ_CHUNK])
@pytest.mark.parametrize("name", list(CASES))
def test_streamed_reading_gives_what_the_whole_parse_gives(name, chunk, monkeypatch):
    data = CASES[name]
    expected = outcome(whole, data)
    monkeypatch.setattr(json_reader, "READ_CHUNK", chunk)
    parsed_whole = []
    monkeypatch.setattr(validation, "decode_corpus_bytes", lambda *args: parsed_whole.append(1) or whole_parse(*args))
    assert outcome(streamed, data) == expected
    assert bool(parsed_whole) == (name in PARSED_WHOLE)


def test_the_size_limit_is_checked_first():
    with pytest.raises(CorpusFileError, match="the limit is 10 bytes"):
        read_corpus(b"   " * 5 + b"{", 10)


def test_a_large_file_is_read_without_holding_its_text_or_entries():
    entries = [entry(n, ("development", "gold_standard")[n % 2], notes=f"ᓀᐦᐃᔭᐍᐏᐣ note {n} " + "placeholder " * 5)
               for n in range(20_000)]
    data = corpus_bytes(entries)
    tracemalloc.start()
    try:
        corpus = read_corpus(data, LIMIT)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(corpus.entries, StreamedEntries) and len(corpus.entries) == 20_000
    assert corpus.segments == {"development", "gold_standard"}
    # The whole parse held the text (twice the file's size: its syllabics take two bytes a character) and every
    # entry object besides, 4.5 times the file's size; read an entry at a time, the ids seen and one window.
    assert peak < len(data), (peak, len(data))
    assert [valid.data for valid in corpus.entries] == entries


@pytest.mark.django_db
def test_import_of_a_streamed_file_stores_every_entry(steward):
    entries = UNICODE_ENTRIES + [entry(n, "held_out") for n in range(10, 40)]
    outcome = import_corpus(data=corpus_bytes(entries), organization=steward, actor=None)
    version = outcome.version
    assert outcome.created and version.entry_count == len(entries)
    stored = list(version.entries.order_by("position").values_list("document", "segment", "provenance"))
    assert [json.loads(document) for document, _, _ in stored] == entries
    assert stored[1][1:] == ("diagnostic", "textbook") and stored[-1][1] == "held_out"
    assert version.public_sha256 != version.sha256  # secret entries: the public is shown a keyed hash
    # The same content in another layout is recognised: its canonical hash is read from the stream again.
    again = import_corpus(data=json.dumps({"dataset": json.loads(version.envelope), "entries": entries}).encode(),
                          organization=steward, actor=None)
    assert not again.created and again.version == version
