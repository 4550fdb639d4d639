"""Safe inspection of a method submission package (a .zip or .tar.gz) and of its cost report.

A package comes from a stranger and is read by a server that also holds secret corpora, so it is
treated as hostile data: it is read member by member in memory and never extracted to disk, and
nothing in it is ever executed or imported (the sandbox that will run methods is not part of this
site, SPEC §6). Every problem is a `FieldProblem` whose path is the member's path inside the archive
(or the uploaded file's name for the archive as a whole), and all of them are reported at once.

Refused: archives over the size limit, members whose declared (uncompressed) sizes add up past the
uncompressed limit or compress suspiciously well (zip bombs), too many members, absolute paths,
`..` components, backslashes, drive letters, control characters, symbolic and hard links, device,
FIFO and socket members, encrypted zip members, duplicate names (compared after Unicode NFC and case
folding, as case-insensitive file systems would), file types outside the allow-list, files that are
not UTF-8 text, missing required files, and malformed JSON in them (with line and column).

Of Django it uses only translation: every problem is written in the language of the request being served
(`gettext`), as the other checks of a submission are. Nothing else is read from settings: the caller passes the
limits (see `PackageLimits`).
"""

import codecs
import hashlib
import json
import math
import re
import stat
import tarfile
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import IO, Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from common.problems import FieldProblem
from corpus.validation import refuse_constant

MIB = 1024 * 1024
CHUNK = 64 * 1024
MAX_PATH_LENGTH = 255
# method.json and method_card.json describe a method; anything larger than this is not such a file.
MAX_DESCRIPTOR_BYTES = 1 * MIB

REQUIRED_DESCRIPTORS = ("method.json", "method_card.json")

# What a package may hold: source code and text. Binaries (compiled FSTs, model weights, wheels,
# shared libraries) are dependencies to declare in method.json as `mirrored` with a `pin`, which the
# sandbox fetches; they are never uploaded here. Every allowed file must also be UTF-8 text without
# NUL bytes, so a binary renamed to `.py` is refused too.
CODE_SUFFIXES = frozenset({
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".rs", ".go", ".java", ".kt", ".rb", ".pl", ".pm", ".r", ".jl",
    ".c", ".h", ".cc", ".cpp", ".hpp", ".sh", ".bash",
    # Finite-state morphology sources (HFST / foma), common in pipelines for Indigenous languages.
    ".lexc", ".twolc", ".xfst", ".foma", ".regex",
})
CONFIG_SUFFIXES = frozenset({".json", ".toml", ".yaml", ".yml", ".cfg", ".ini", ".lock"})
DOCUMENT_SUFFIXES = frozenset({".md", ".rst", ".txt"})
DATA_SUFFIXES = frozenset({".csv", ".tsv", ".jsonl", ".att"})
PLAIN_NAMES = frozenset({
    "license", "licence", "copying", "notice", "authors", "readme", "changelog", "makefile", "dockerfile",
    ".gitignore", ".gitattributes", ".python-version",
})
ALLOWED_TYPES_TEXT = ", ".join(sorted(CODE_SUFFIXES | CONFIG_SUFFIXES | DOCUMENT_SUFFIXES | DATA_SUFFIXES))

DRIVE_LETTER = re.compile(r"^[A-Za-z]:")
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True)
class PackageLimits:
    """Size limits. `max_ratio` is checked only for members (zip) or archives (tar.gz) that expand
    beyond `ratio_floor_bytes`: small text files compress well and are harmless, while a zip bomb
    is a large expansion from a small input (source code compresses about 3-10×, never 100×)."""

    max_bytes: int = 50 * MIB
    max_uncompressed_bytes: int = 200 * MIB
    max_members: int = 2000
    max_ratio: int = 100
    ratio_floor_bytes: int = 1 * MIB


@dataclass(frozen=True)
class PackageFile:
    """One regular file of the package: its path in the archive, size and kind
    (`code`, `config`, `document` or `data`)."""

    path: str
    size: int
    kind: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "kind": self.kind}


@dataclass
class PackageReport:
    """What the inspection found. `manifest` and `method_card` are the parsed JSON documents (None
    when missing or malformed); `root` is the folder holding them ("" or one top-level folder)."""

    filename: str
    archive_format: str = ""
    size: int = 0
    sha256: str = ""
    files: list[PackageFile] = field(default_factory=list)
    problems: list[FieldProblem] = field(default_factory=list)
    root: str = ""
    readme: str = ""
    manifest: Any = None
    method_card: Any = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def uncompressed_size(self) -> int:
        return sum(file.size for file in self.files)


@dataclass
class _Member:
    """A member as the archive declares it, before any of its content is read."""

    raw_name: str
    kind: str  # file, dir, symlink, hardlink, device, fifo, socket, other
    size: int
    compressed_size: int | None = None
    encrypted: bool = False
    link_target: str = ""


class _Stop(Exception):
    """The archive as a whole is refused (unreadable, too many members, expanding past the limit):
    reading it any further, or reporting files missing from it, would be wasted or misleading."""


def file_kind(path: str) -> str | None:
    """The kind of an allowed file, or None when its type is not allowed."""
    name = PurePosixPath(path).name
    suffix = PurePosixPath(name).suffix.lower()
    if suffix in CODE_SUFFIXES:
        return "code"
    if suffix in CONFIG_SUFFIXES:
        return "config"
    if suffix in DOCUMENT_SUFFIXES:
        return "document"
    if suffix in DATA_SUFFIXES:
        return "data"
    if name.lower() in PLAIN_NAMES:
        return "document"
    return None


def member_path_problem(name: str) -> str | None:
    """Why a member name is unsafe to name a file by, or None. Checked on the name as stored, before
    any normalization, so that no trick survives into the listing."""
    if not name:
        return _("empty member name")
    if any(ord(char) < 32 or ord(char) == 127 for char in name):
        return _("control character in the path")
    if "\\" in name:
        return _("backslash in the path (a Windows separator or an escape trick); use / between folders")
    if name.startswith("/"):
        return _("absolute path; members must be relative to the package")
    if DRIVE_LETTER.match(name):
        return _("drive letter in the path; members must be relative to the package")
    if ".." in name.split("/"):
        return _('parent-folder component ".." in the path; it would point outside the package')
    if len(name) > MAX_PATH_LENGTH:
        return _("path longer than %(limit)s characters") % {"limit": MAX_PATH_LENGTH}
    return None


def normalise(name: str) -> str:
    """`./a//b/` → `a/b`: the path a member would have once unpacked (after `member_path_problem`)."""
    return "/".join(part for part in name.split("/") if part not in ("", "."))


def _collision_key(path: str) -> str:
    return unicodedata.normalize("NFC", path).casefold()


def _human(size: int) -> str:
    """A size in the reader's language: whole mebibytes from 1 MiB up, bytes below."""
    if size >= MIB:
        return _("%(size)s MiB") % {"size": f"{size / MIB:.0f}"}
    return ngettext("%(size)s byte", "%(size)s bytes", size) % {"size": size}


def _not_utf8(offset: int) -> str:
    """One wording for a descriptor parsed whole and for a file read in chunks."""
    return _("not UTF-8 text (invalid byte at offset %(offset)s)") % {"offset": offset}


def _compression_bomb(expanded: int, compressed: int, limits: PackageLimits) -> str:
    """The refusal of a member (zip) or an archive (tar.gz) that expands past the ratio limit."""
    return (_("expands %(ratio)s× (%(compressed)s to %(expanded)s), over the %(limit)s× limit: a compression bomb")
            % {"ratio": f"{expanded / max(compressed, 1):.0f}", "compressed": _human(compressed),
               "expanded": _human(expanded), "limit": limits.max_ratio})


def _json_problem(path: str, data: bytes) -> tuple[Any, FieldProblem | None]:
    """Parse one JSON document; a problem carries the line and column where parsing stopped."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, FieldProblem(path, _not_utf8(error.start))
    try:
        return json.loads(text, parse_constant=refuse_constant), None
    except json.JSONDecodeError as error:
        # The reason is the json module's own (in English): it names the token the parser expected.
        return None, FieldProblem(path, _("malformed JSON at line %(line)s, column %(column)s: %(reason)s")
                                  % {"line": error.lineno, "column": error.colno, "reason": error.msg})
    except ValueError as error:  # NaN or Infinity, refused by refuse_constant in the reader's language
        return None, FieldProblem(path, str(error))
    except RecursionError:  # "[[[[…": a few hundred kilobytes nest deeper than the parser recurses
        return None, FieldProblem(path, _("malformed JSON: nested too deeply"))


class _Inspector:
    def __init__(self, report: PackageReport, limits: PackageLimits):
        self.report = report
        self.limits = limits
        self.declared_total = 0
        self.count = 0
        self.seen: dict[str, tuple[str, str]] = {}  # collision key → (path, kind)
        self.descriptors: dict[str, bytes] = {}
        self.first_top: str | None = None

    def problem(self, path: str, message: str) -> None:
        self.report.problems.append(FieldProblem(path, message))

    def admit(self, member: _Member) -> str | None:
        """Check what the archive declares about one member; the normalized path of a regular file
        whose content should be read, otherwise None. Raises _Stop when the whole archive is refused."""
        self.count += 1
        if self.count > self.limits.max_members:
            self.problem(self.report.filename, _("more than %(limit)s members; a method package holds code and "
                                                 "text, not a file tree this large")
                         % {"limit": self.limits.max_members})
            raise _Stop
        name = member.raw_name
        unsafe = member_path_problem(name)
        if unsafe:
            self.problem(name, unsafe)
        if member.kind == "symlink":
            self.problem(name, _("symbolic link (to %(target)s); links are refused, a link could point outside "
                                 "the package") % {"target": repr(member.link_target)})
        elif member.kind == "hardlink":
            self.problem(name, _("hard link (to %(target)s); links are refused, put the file itself in the "
                                 "package") % {"target": repr(member.link_target)})
        elif member.kind == "device":
            self.problem(name, _("device member; only regular files and folders are allowed"))
        elif member.kind == "fifo":
            self.problem(name, _("fifo member; only regular files and folders are allowed"))
        elif member.kind == "socket":
            self.problem(name, _("socket member; only regular files and folders are allowed"))
        elif member.kind == "other":
            self.problem(name, _("member of a special type (neither a file, a folder nor a link); only regular "
                                 "files and folders are allowed"))
        if member.encrypted:
            self.problem(name, _("encrypted member; packages must not be encrypted"))
        if unsafe or member.kind not in ("file", "dir"):
            return None
        path = normalise(name)
        if not path:  # "./" or "/"-only folder entries: the package root itself.
            return None
        key = _collision_key(path)
        if key in self.seen:
            earlier, earlier_kind = self.seen[key]
            if not (earlier_kind == member.kind == "dir"):
                if earlier == path:
                    message = _("duplicate: the same path as %(earlier)s earlier in the archive")
                else:
                    message = _("duplicate: a path that differs only in case or Unicode form from %(earlier)s "
                                "earlier in the archive")
                self.problem(name, message % {"earlier": repr(earlier)})
            return None
        self.seen[key] = (path, member.kind)
        if member.kind == "dir":
            return None
        self.declared_total += member.size
        if self.declared_total > self.limits.max_uncompressed_bytes:
            self.problem(name, _("the members up to this one expand to more than %(limit)s, the uncompressed "
                                 "limit") % {"limit": _human(self.limits.max_uncompressed_bytes)})
            raise _Stop
        compressed = member.compressed_size
        if (compressed is not None and member.size > self.limits.ratio_floor_bytes
                and member.size > self.limits.max_ratio * max(compressed, 1)):
            self.problem(name, _compression_bomb(member.size, compressed, self.limits))
            return None
        kind = file_kind(path)
        if kind is None:
            self.problem(name, _("file type not allowed (%(suffix)s); a package holds source code and text "
                                 "only: %(allowed)s, or files named LICENSE, README, Makefile and the like")
                         % {"suffix": PurePosixPath(path).suffix or _("no extension"), "allowed": ALLOWED_TYPES_TEXT})
            return None
        self.report.files.append(PackageFile(path, member.size, kind))
        if self.first_top is None:
            self.first_top = path.split("/", 1)[0]
        return path

    def read(self, name: str, path: str, chunks: Iterator[bytes], declared_size: int) -> None:
        """Stream one file: UTF-8 text without NUL bytes, no longer than declared; keep the bytes of
        the descriptors (method.json, method_card.json) near the top of the package."""
        decoder = codecs.getincrementaldecoder("utf-8")()
        # At most four files are kept: the descriptors at the top, or in the first top-level folder
        # (the only one that can be the package root).
        keep = PurePosixPath(path).name in REQUIRED_DESCRIPTORS and (
            "/" not in path or (path.count("/") == 1 and path.split("/", 1)[0] == self.first_top))
        kept: list[bytes] = []
        offset = 0
        for chunk in chunks:
            if b"\x00" in chunk:
                self.problem(name, _("contains NUL bytes: a binary file, not text"))
                return
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as error:
                self.problem(name, _not_utf8(offset + error.start))
                return
            offset += len(chunk)
            if offset > declared_size:
                self.problem(name, _("holds more data than its header declares"))
                raise _Stop
            if keep:
                if offset > MAX_DESCRIPTOR_BYTES:
                    self.problem(name, _("larger than %(limit)s; a method description is small")
                                 % {"limit": _human(MAX_DESCRIPTOR_BYTES)})
                    keep = False
                    kept = []
                else:
                    kept.append(chunk)
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            self.problem(name, _("not UTF-8 text (the file ends inside a character)"))
            return
        if keep:
            self.descriptors[path] = b"".join(kept)

    def finish(self) -> None:
        """Required files, the package root, and the two JSON descriptors."""
        report = self.report
        paths = [file.path for file in report.files]
        tops = {path.split("/", 1)[0] for path in paths}
        if paths and len(tops) == 1 and all("/" in path for path in paths):
            report.root = tops.pop() + "/"
        root = report.root
        directly_in_root = [path for path in paths if path.startswith(root) and "/" not in path[len(root):]]
        for descriptor, attribute in (("method.json", "manifest"), ("method_card.json", "method_card")):
            path = root + descriptor
            if path not in self.descriptors:
                if path not in paths:
                    self.problem(path, _("required file is missing: the dependency manifest, at the top of the "
                                         "package") if descriptor == "method.json" else
                                 _("required file is missing: the method card, at the top of the package"))
                continue
            value, problem = _json_problem(path, self.descriptors[path])
            if problem:
                report.problems.append(problem)
            else:
                setattr(report, attribute, value)
        readmes = sorted(path for path in directly_in_root if path[len(root):].upper().startswith("README"))
        report.readme = readmes[0] if readmes else ""
        if not readmes:
            self.problem(f"{root}README.md", _("required file is missing: a README (README, README.md, "
                                               "README.txt or README.rst) next to method.json"))
        if not any(file.kind == "code" for file in report.files):
            self.problem(report.filename, _("no source code file; the package must hold the method's code"))


def _size_and_head(fileobj: IO[bytes]) -> tuple[int, bytes]:
    """The size and the first bytes (the format's magic number), without reading the rest."""
    fileobj.seek(0, 2)
    size = fileobj.tell()
    fileobj.seek(0)
    head = fileobj.read(4)
    fileobj.seek(0)
    return size, head


def _sha256(fileobj: IO[bytes]) -> str:
    digest = hashlib.sha256()
    fileobj.seek(0)
    while chunk := fileobj.read(CHUNK):
        digest.update(chunk)
    fileobj.seek(0)
    return digest.hexdigest()


def _format_of(filename: str, head: bytes) -> tuple[str, str | None]:
    """(format, problem): the name must say .zip or .tar.gz (.tgz) and the bytes must agree."""
    lower = filename.lower()
    named = "zip" if lower.endswith(".zip") else "tar.gz" if lower.endswith((".tar.gz", ".tgz")) else ""
    actual = "zip" if head.startswith(ZIP_MAGIC) else "tar.gz" if head.startswith(GZIP_MAGIC) else ""
    if not named:
        return "", _("expected a .zip or .tar.gz package")
    if not actual:
        return "", _("named .%(named)s but its content is neither a zip nor a gzip archive") % {"named": named}
    if actual != named:
        return "", (_("named .%(named)s but its content is a %(actual)s archive")
                    % {"named": named, "actual": actual})
    return named, None


def _zip_kind(info: zipfile.ZipInfo) -> str:
    mode = info.external_attr >> 16
    file_type = stat.S_IFMT(mode)
    if file_type == stat.S_IFLNK:
        return "symlink"
    if file_type in (stat.S_IFCHR, stat.S_IFBLK):
        return "device"
    if file_type == stat.S_IFIFO:
        return "fifo"
    if file_type == stat.S_IFSOCK:
        return "socket"
    if file_type == stat.S_IFDIR or info.is_dir():
        return "dir"
    return "file"


def _chunks(read: Callable[[int], bytes]) -> Iterator[bytes]:
    while chunk := read(CHUNK):
        yield chunk


def _inspect_zip(fileobj: IO[bytes], inspector: _Inspector) -> None:
    try:
        archive = zipfile.ZipFile(fileobj)
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        inspector.problem(inspector.report.filename, _("not a readable zip archive (%(error)s)") % {"error": error})
        raise _Stop from error
    with archive:
        infos = archive.infolist()
        if len(infos) > inspector.limits.max_members:
            inspector.problem(inspector.report.filename, _("%(count)s members, more than the %(limit)s allowed")
                              % {"count": len(infos), "limit": inspector.limits.max_members})
            raise _Stop
        for info in infos:
            member = _Member(info.filename, _zip_kind(info), info.file_size, info.compress_size,
                             encrypted=bool(info.flag_bits & 0x1))
            if member.kind == "symlink" and not member.encrypted and info.file_size <= MAX_PATH_LENGTH * 4:
                # A zip symlink stores its target as the member's data: read it only to name it.
                member.link_target = archive.read(info).decode("utf-8", "replace")
            path = inspector.admit(member)
            if path is None:
                continue
            try:
                with archive.open(info) as stream:
                    inspector.read(info.filename, path, _chunks(stream.read), info.file_size)
            except (zipfile.BadZipFile, zlib.error, OSError, NotImplementedError, EOFError) as error:
                inspector.problem(info.filename, _("cannot be read (%(error)s)") % {"error": error})


def _tar_kind(member: tarfile.TarInfo) -> str:
    if member.issym():
        return "symlink"
    if member.islnk():
        return "hardlink"
    if member.ischr() or member.isblk():
        return "device"
    if member.isfifo():
        return "fifo"
    if member.isdir():
        return "dir"
    if member.isreg():
        return "file"
    return "other"


def _inspect_tar(fileobj: IO[bytes], inspector: _Inspector) -> None:
    """Members in stream order: each file's content is read as it passes, and the walk stops as soon
    as the declared sizes exceed the limit, before decompressing anything further."""
    report = inspector.report
    try:
        archive = tarfile.open(fileobj=fileobj, mode="r|gz")
    except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
        report.problems.append(FieldProblem(report.filename, _("not a readable tar.gz archive (%(error)s)")
                                            % {"error": error}))
        raise _Stop from error
    with archive:
        try:
            while (member := archive.next()) is not None:
                path = inspector.admit(_Member(member.name, _tar_kind(member), member.size,
                                               link_target=member.linkname))
                if path is None:
                    continue
                stream = archive.extractfile(member)
                if stream is not None:
                    inspector.read(member.name, path, _chunks(stream.read), member.size)
        except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
            report.problems.append(FieldProblem(report.filename, _("the tar.gz archive is damaged (%(error)s)")
                                                % {"error": error}))
            raise _Stop from error
    declared = inspector.declared_total
    if declared > inspector.limits.ratio_floor_bytes and declared > inspector.limits.max_ratio * max(report.size, 1):
        report.problems.append(FieldProblem(report.filename,
                                            _compression_bomb(declared, report.size, inspector.limits)))


def inspect_package(fileobj: IO[bytes], filename: str, limits: PackageLimits | None = None) -> PackageReport:
    """Check a submitted package without extracting or executing anything; see the module docstring.

    `fileobj` must be seekable (an uploaded file is). The report lists every regular file and every
    problem; the parsed descriptors are set only when they parse."""
    limits = limits or PackageLimits()
    report = PackageReport(filename=filename or "package")
    size, head = _size_and_head(fileobj)
    report.size = size
    if size > limits.max_bytes:
        report.problems.append(FieldProblem(report.filename, _("the package is %(size)s, over the %(limit)s limit")
                                            % {"size": _human(size), "limit": _human(limits.max_bytes)}))
        return report
    if size == 0:
        report.problems.append(FieldProblem(report.filename, _("the package is empty")))
        return report
    report.sha256 = _sha256(fileobj)
    archive_format, problem = _format_of(report.filename, head)
    if problem:
        report.problems.append(FieldProblem(report.filename, problem))
        return report
    report.archive_format = archive_format
    inspector = _Inspector(report, limits)
    try:
        (_inspect_zip if archive_format == "zip" else _inspect_tar)(fileobj, inspector)
    except _Stop:
        return report
    finally:
        fileobj.seek(0)
    inspector.finish()
    return report


# Cost report (SPEC §8: per-run cost = entries × API calls per entry × cost per call).

COST_REPORT_MAX_BYTES = 1 * MIB


def _number_problem(value: Any, path: str, *, required: bool) -> FieldProblem | None:
    if value is None:
        return FieldProblem(path, _("required field is missing; expected a number ≥ 0")) if required else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return FieldProblem(path, _("expected a number ≥ 0, found %(found)s")
                            % {"found": json.dumps(value, ensure_ascii=False)[:60]})
    if value < 0:
        return FieldProblem(path, _("expected a number ≥ 0, found %(found)s") % {"found": value})
    return None


def _string_problem(value: Any, path: str, *, required: bool) -> FieldProblem | None:
    if value is None:
        return FieldProblem(path, _("required field is missing; expected a non-empty string")) if required else None
    if not isinstance(value, str) or (required and not value.strip()):
        return FieldProblem(path, _("expected a non-empty string, found %(found)s")
                            % {"found": json.dumps(value, ensure_ascii=False)[:60]})
    return None


def validate_cost_report(report: Any, path: str = "cost_report") -> list[FieldProblem]:
    """Check a cost report's shape; every problem has its field path (`cost_report.items[2].cost_usd`).

    Required: `cost_per_entry_usd` (what translating one corpus entry costs, number ≥ 0) and `items`, a
    non-empty list of cost lines, each with `description` (string) and `cost_usd` (number ≥ 0) and
    optionally `hardware`, `api` and `notes` (strings). Optional: `api_calls_per_entry` (number ≥ 0),
    `total_cost_usd` (number ≥ 0, which must then equal the sum of the items within half a cent),
    `hardware`, `api` and `notes` (strings). Unknown extra fields are kept."""
    if not isinstance(report, dict):
        return [FieldProblem(path, _("expected a JSON object (a cost report)"))]
    problems = [problem for problem in (
        _number_problem(report.get("cost_per_entry_usd"), f"{path}.cost_per_entry_usd", required=True),
        _number_problem(report.get("api_calls_per_entry"), f"{path}.api_calls_per_entry", required=False),
        _number_problem(report.get("total_cost_usd"), f"{path}.total_cost_usd", required=False),
        *(_string_problem(report.get(name), f"{path}.{name}", required=False) for name in ("hardware", "api", "notes")),
    ) if problem]
    items = report.get("items")
    if not isinstance(items, list) or not items:
        problems.append(FieldProblem(f"{path}.items", _('expected a non-empty list of cost lines '
                                                        '({"description": …, "cost_usd": …})')))
        return problems
    total = 0.0
    sums = True
    for index, item in enumerate(items):
        where = f"{path}.items[{index}]"
        if not isinstance(item, dict):
            problems.append(FieldProblem(where, _("expected an object (one cost line)")))
            sums = False
            continue
        cost = _number_problem(item.get("cost_usd"), f"{where}.cost_usd", required=True)
        if cost:
            problems.append(cost)
            sums = False
        else:
            total += item["cost_usd"]
        problems += [problem for problem in (
            _string_problem(item.get("description"), f"{where}.description", required=True),
            *(_string_problem(item.get(name), f"{where}.{name}", required=False)
              for name in ("hardware", "api", "notes")),
        ) if problem]
    declared = report.get("total_cost_usd")
    if sums and declared is not None and not _number_problem(declared, "", required=False) \
            and abs(declared - total) > 0.005:
        problems.append(FieldProblem(f"{path}.total_cost_usd", _("is %(declared)s but the items add up to %(total)s")
                                     % {"declared": declared, "total": f"{total:.4f}"}))
    return problems


def parse_cost_report(data: bytes, filename: str = "cost_report.json") -> tuple[Any, list[FieldProblem]]:
    """Parse and validate an uploaded cost report."""
    if len(data) > COST_REPORT_MAX_BYTES:
        return None, [FieldProblem(filename, _("larger than %(limit)s; a cost report is small")
                                   % {"limit": _human(COST_REPORT_MAX_BYTES)})]
    value, problem = _json_problem(filename, data)
    if problem:
        return None, [problem]
    return value, validate_cost_report(value)
