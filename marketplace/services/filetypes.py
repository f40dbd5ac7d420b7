"""What an uploaded agent file really is, judged by its content and its name (never by what the browser said).

Allowed: archives (zip, tar.gz/tgz), PDF, and text files (json, yaml/yml, py, js, ts, md, txt). The name's
extension picks the kind (a name without one is judged by its first bytes); the whole content must then be
that kind:
- text: UTF-8 without binary control bytes, read to the end in chunks (an ELF header after the first
  kilobytes of a `.md` is found); `.json` must parse as JSON and `.yaml`/`.yml` as YAML holding mappings or
  lists (up to PARSED_MAX_BYTES; YAML as a stream of parser events, never built into objects, so aliases and
  merge keys cannot blow up);
- zip and tar.gz: read by their own libraries to the end of what matters (services/archives.py);
- pdf: the `%PDF-` header with an object right after it, and `startxref` ... `%%EOF` at its end.
Executables are refused whatever they are called. The type stored and sent for a file is the one found here
(`FileKind.content_type`). `check_object` is the whole check of a stored object, for the attach and for the
upload widget once an upload finishes.
"""

from __future__ import annotations

import codecs
import json
import re
import tarfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import BinaryIO

import yaml

from marketplace.config import settings
from marketplace.integrations.storage import ObjectNotFound, get_storage
from marketplace.services import archives
from marketplace.services.errors import Invalid
from marketplace.services.filenames import check_filename, shown_name

SNIFF_BYTES = 8192  # the first bytes that decide a kind by content, and where a PDF's first object must be
TEXT_CHUNK = 256 * 1024
# Parsed up to these sizes (about a second of work each; YAML's parser is the slower by far). Larger data
# belongs in an archive.
PARSED_MAX_BYTES = {"json": 10 << 20, "yaml": 2 << 20, "yml": 2 << 20}
PDF_TAIL_BYTES = 2048
ALLOWED = ("zip", "tar.gz", "tgz", "pdf", "json", "yaml", "yml", "py", "js", "ts", "md", "txt")
TEXT_KINDS = frozenset({"json", "yaml", "yml", "py", "js", "ts", "md", "txt"})
COMPRESSED_KINDS = frozenset({"zip", "tar.gz", "tgz", "pdf"})  # stored as they are in a download zip
MIME = {
    "zip": "application/zip", "tar.gz": "application/gzip", "tgz": "application/gzip", "pdf": "application/pdf",
    "json": "application/json", "yaml": "application/yaml", "yml": "application/yaml", "py": "text/x-python",
    "js": "text/javascript", "ts": "text/plain", "md": "text/markdown", "txt": "text/plain",
}
COMPRESSED_TYPES = frozenset(MIME[kind] for kind in COMPRESSED_KINDS)
ALLOWED_TEXT = "Allowed file types: zip, tar.gz, json, yaml, py, js, ts, md, txt, pdf"
EXECUTABLE = f"Executable files are not allowed. {ALLOWED_TEXT}"
UNKNOWN_TYPE = f"This file type is not allowed. {ALLOWED_TEXT}"
EMPTY = "The file is empty"
OBJECT_MISSING = "The uploaded file was not found in storage. Please upload it again."
TOO_LARGE = "File is too large: {size} bytes. The limit is {limit} bytes ({mb} MB) per file."

_EXECUTABLE_MAGICS = (
    b"\x7fELF",  # Linux/Unix ELF
    b"MZ",  # Windows PE / DOS
    b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe",  # Mach-O 32/64, both orders
    b"\xca\xfe\xba\xbe",  # Mach-O universal (also Java class files: not allowed either)
)
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header, or the end record of an empty zip
_BOM = b"\xef\xbb\xbf"
# Bytes that never occur in text: C0 controls except tab, LF, FF, CR and ESC (ANSI colours in logs), and DEL.
_BINARY = re.compile(rb"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f]")
_PDF_HEADER = re.compile(rb"%PDF-[12]\.\d[^\r\n]*")
_PDF_SPACE = re.compile(rb"[ \t\r\n\f\x00]*")
_PDF_COMMENT = re.compile(rb"%[^\r\n]*")
_PDF_OBJECT = re.compile(rb"\d+[ \t\r\n\f\x00]+\d+[ \t\r\n\f\x00]+obj\b")
_PDF_END = re.compile(rb"startxref\s+(\d+)\s+%%EOF")
_YAML_NULLS = frozenset({"", "~", "null", "Null", "NULL"})
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class FileKind:
    kind: str  # one of ALLOWED
    content_type: str

    @property
    def compressed(self) -> bool:
        return self.kind in COMPRESSED_KINDS


class _Bad(Exception):
    """The content does not hold what its kind promises; the message says why."""


def picker_extensions() -> list[str]:
    """The allowed kinds as a file picker's name endings: the last part only ('tar.gz' -> '.gz'), which is
    what browsers and Uppy compare; the content check on upload decides the rest."""
    return list(dict.fromkeys(f".{kind.rsplit('.', 1)[-1]}" for kind in ALLOWED))


def kind_of_name(filename: str) -> str | None:
    """The allowed kind a file name claims ('x.TAR.GZ' -> 'tar.gz'), or None."""
    name = PurePosixPath(filename.replace("\\", "/")).name.lower()
    if name.endswith(".tar.gz"):
        return "tar.gz"
    suffix = PurePosixPath(name).suffix.lstrip(".")
    return suffix if suffix in ALLOWED and suffix != "tar.gz" else None


def _has_suffix(filename: str) -> bool:
    return bool(PurePosixPath(filename.replace("\\", "/")).suffix)


def _kind_of_content(prefix: bytes, *, complete: bool) -> str | None:
    """A file without an extension (README, LICENSE, or one PUT to `POST /api/objects/upload`'s URL, which
    carries no name) is judged by content alone. A name with an extension is never overridden by content:
    'x.exe' holding text stays refused."""
    if prefix.startswith(_ZIP_MAGICS):
        return "zip"
    if _is_tar_gz(prefix):
        return "tar.gz"
    if prefix.startswith(b"%PDF-"):
        return "pdf"
    if prefix.startswith(b"#!"):  # a script with no extension is meant to be run: not accepted as text
        return None
    return "txt" if is_text(prefix.removeprefix(_BOM), complete=complete) else None


def is_executable(prefix: bytes) -> bool:
    return prefix.startswith(_EXECUTABLE_MAGICS)


def is_text(prefix: bytes, *, complete: bool) -> bool:
    """UTF-8 without binary control bytes. A sniffed prefix may end inside a multibyte character
    (`complete` False): up to 3 trailing bytes are then allowed to be an unfinished sequence."""
    if _BINARY.search(prefix):
        return False
    try:
        prefix.decode("utf-8")
        return True
    except UnicodeDecodeError as error:
        cut_short = error.reason == "unexpected end of data" and error.start >= len(prefix) - 3
        return not complete and cut_short


def _is_tar_gz(prefix: bytes) -> bool:
    """gzip magic, and the first 512 bytes after decompressing are a tar header (its checksum adds up)."""
    if not prefix.startswith(b"\x1f\x8b"):
        return False
    try:
        block = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS).decompress(prefix, 512)
    except zlib.error:
        return False
    if len(block) < 512:
        return False
    try:
        tarfile.TarInfo.frombuf(block, encoding="utf-8", errors="surrogateescape")
    except tarfile.HeaderError:
        return False
    return True


def _kind(filename: str, prefix: bytes, *, size: int) -> str:
    """The kind the first bytes and the name agree on, or Invalid saying why not."""
    if size <= 0 or not prefix:
        raise Invalid(EMPTY, field="agentFileURL")
    if is_executable(prefix):
        raise Invalid(EXECUTABLE, field="agentFileURL")
    complete = len(prefix) >= size
    kind = kind_of_name(filename) if _has_suffix(filename) else _kind_of_content(prefix, complete=complete)
    ok = False
    if kind == "zip":
        ok = prefix.startswith(_ZIP_MAGICS)
    elif kind in ("tar.gz", "tgz"):
        ok = _is_tar_gz(prefix)
    elif kind == "pdf":
        ok = prefix.startswith(b"%PDF-")
    elif kind in TEXT_KINDS:
        ok = is_text(prefix.removeprefix(_BOM), complete=complete)
    if kind is None:
        raise Invalid(UNKNOWN_TYPE, field="agentFileURL")
    if not ok:
        raise Invalid(f"The content of this file is not a valid .{kind} file. {ALLOWED_TEXT}", field="agentFileURL")
    return kind


def _read_text(f: BinaryIO, *, keep: bool) -> str:
    """Read the whole file as UTF-8 text in chunks (constant memory unless `keep`, which returns the text)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    kept: list[str] = []
    f.seek(0)
    first = True
    while chunk := f.read(TEXT_CHUNK):
        if first:
            chunk, first = chunk.removeprefix(_BOM), False
        if _BINARY.search(chunk):
            raise _Bad("it holds binary data")
        try:
            text = decoder.decode(chunk)
        except UnicodeDecodeError:
            raise _Bad("it is not UTF-8 text") from None
        if keep:
            kept.append(text)
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise _Bad("it is not UTF-8 text") from None
    return "".join(kept)


def _check_json(f: BinaryIO) -> None:
    try:
        json.loads(_read_text(f, keep=True))
    except json.JSONDecodeError as error:
        raise _Bad(f"{error.msg} at line {error.lineno}, column {error.colno}") from None
    except (ValueError, RecursionError):
        raise _Bad("it does not parse as JSON") from None


def _check_yaml(f: BinaryIO) -> None:
    """Parse events only: whether each document is a mapping, a list or empty needs no objects built."""
    _read_text(f, keep=False)
    f.seek(0)
    depth = 0
    try:
        for event in yaml.parse(f, Loader=_YAML_LOADER):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif depth == 0 and isinstance(event, yaml.NodeEvent):
                plain_null = isinstance(event, yaml.ScalarEvent) and not event.style and event.value in _YAML_NULLS
                if not plain_null:
                    raise _Bad("a YAML file must hold mappings or lists")
    except yaml.MarkedYAMLError as error:
        line = f" at line {error.problem_mark.line + 1}" if error.problem_mark else ""
        raise _Bad(f"{error.problem or 'it does not parse as YAML'}{line}") from None
    except (yaml.YAMLError, ValueError, RecursionError):
        raise _Bad("it does not parse as YAML") from None


def _pdf_object_follows_header(prefix: bytes) -> bool:
    """The header line, then (after spaces and comment lines, such as the binary marker) the first object:
    what every PDF writer emits, and what HTML behind a PDF header is not."""
    header = _PDF_HEADER.match(prefix)
    if header is None:
        return False
    position = header.end()
    while True:
        position = _PDF_SPACE.match(prefix, position).end()  # type: ignore[union-attr]  # \s* always matches
        comment = _PDF_COMMENT.match(prefix, position)
        if comment is None:
            return _PDF_OBJECT.match(prefix, position) is not None
        position = comment.end()


def _check_pdf(f: BinaryIO, prefix: bytes, *, size: int) -> None:
    if not _pdf_object_follows_header(prefix):
        raise _Bad("no PDF object follows its header")
    f.seek(max(0, size - PDF_TAIL_BYTES))
    end = _PDF_END.search(f.read(PDF_TAIL_BYTES))
    if end is None or int(end.group(1)) >= size:
        raise _Bad("it has no PDF trailer at its end")


def check_file(filename: str, f: BinaryIO, *, size: int) -> FileKind:
    """The kind of the whole file `f` (seekable, `size` bytes) named `filename`, or Invalid saying why it is
    refused (naming the file for anything found past its first bytes)."""
    f.seek(0)
    prefix = f.read(SNIFF_BYTES)
    kind = _kind(filename, prefix, size=size)
    name = shown_name(filename)
    if size > PARSED_MAX_BYTES.get(kind, size):
        raise Invalid(f"{name} is too large to check: .{kind} files can be at most "
                      f"{PARSED_MAX_BYTES[kind] >> 20} MB. Put large data in a zip or tar.gz file.",
                      field="agentFileURL")
    try:
        _check_content(kind, name, f, prefix, size=size)
    except (_Bad, archives.Unreadable) as bad:
        raise Invalid(f"{name} is not a valid .{kind} file: {bad}. {ALLOWED_TEXT}", field="agentFileURL") from None
    except archives.Refused as refused:
        raise Invalid(str(refused), field="agentFileURL") from None
    return FileKind(kind=kind, content_type=MIME[kind])


def _check_content(kind: str, name: str, f: BinaryIO, prefix: bytes, *, size: int) -> None:
    f.seek(0)
    if kind == "zip":
        archives.check_zip(name, f, is_executable=is_executable)
    elif kind in ("tar.gz", "tgz"):
        archives.check_tar_gz(name, f, is_executable=is_executable)
    elif kind == "pdf":
        _check_pdf(f, prefix, size=size)
    elif kind == "json":
        _check_json(f)
    elif kind in ("yaml", "yml"):
        _check_yaml(f)
    else:
        _read_text(f, keep=False)


def check_object(*, key: str, filename: str) -> FileKind:
    """The whole check of the stored object `key`, uploaded as `filename`: a plain name, present in storage,
    within the size limit, and content of an allowed kind. Returns the kind found (its content type is the one
    to store); raises Invalid with the reason."""
    name = check_filename(filename)
    storage = get_storage()
    size = storage.head(key)
    if size is None:
        raise Invalid(OBJECT_MISSING, field="agentFileURL")
    limit = settings.upload_max_file_bytes
    if size > limit:
        raise Invalid(TOO_LARGE.format(size=size, limit=limit, mb=round(limit / 1_048_576, 1)), field="agentFileURL")
    try:
        with storage.open_file(key) as f:
            return check_file(name, f, size=size)
    except ObjectNotFound:
        raise Invalid(OBJECT_MISSING, field="agentFileURL") from None
