"""The corpus file written (SPEC §3.1): a version's entries streamed in the shape they were imported in. Both the
exports (corpus.selectors) and the hashes of a version's content (corpus.services) read it; validation.py reads such
a file back."""

import json
from collections.abc import Iterable, Iterator

from .models import FileLayout


def corpus_file_chunks(envelope: str, documents: Iterable[str]) -> Iterator[bytes]:
    """The corpus file format (SPEC §3.1), streamed: the stored envelope and entry objects verbatim."""
    yield b'{\n  "dataset": ' + envelope.encode("utf-8") + b',\n  "entries": ['
    separator = b"\n    "
    for document in documents:
        yield separator + document.encode("utf-8")
        separator = b",\n    "
    yield b"\n  ]\n}\n"


def file_chunks(layout: str, envelope: str, documents: Iterable[str]) -> Iterator[bytes]:
    """A version's file in the shape it was imported in (FileLayout), streamed: the corpus format as
    corpus_file_chunks writes it; another object with its members in their order, each on one line as stored,
    and `entries` last; a bare list of the entry objects. Two-space indent, one entry per line, nothing that
    changes between two calls: the same envelope and entries give the same bytes."""
    if layout == FileLayout.DATASET:
        yield from corpus_file_chunks(envelope, documents)
        return
    separator = b"\n  "
    if layout == FileLayout.OBJECT:
        yield b"{"
        for name, value in json.loads(envelope).items():
            yield (b"\n  " + json.dumps(name, ensure_ascii=False).encode("utf-8") + b": "
                   + json.dumps(value, ensure_ascii=False).encode("utf-8") + b",")
        yield b'\n  "entries": ['
        separator = b"\n    "
    else:
        yield b"["
    first = separator
    for document in documents:
        yield separator + document.encode("utf-8")
        separator = b"," + first
    yield b"\n  ]\n}\n" if layout == FileLayout.OBJECT else b"\n]\n"
