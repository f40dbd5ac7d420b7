"""What an uploaded agent file really is, judged by its first bytes and its name (never by what the browser said).

Allowed: archives (zip, tar.gz/tgz), PDF, and text files (json, yaml/yml, py, js, ts, md, txt). The name's
extension picks the kind; the content must match it: an archive or PDF by its magic number, a text file by
being UTF-8 without binary control characters. Executables are refused whatever they are called.
"""

from __future__ import annotations

import tarfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from marketplace.services.errors import Invalid

SNIFF_BYTES = 8192  # how much of an object is read to judge it
ALLOWED = ("zip", "tar.gz", "tgz", "pdf", "json", "yaml", "yml", "py", "js", "ts", "md", "txt")
TEXT_KINDS = frozenset({"json", "yaml", "yml", "py", "js", "ts", "md", "txt"})
COMPRESSED_KINDS = frozenset({"zip", "tar.gz", "tgz", "pdf"})  # stored as they are in a download zip
MIME = {
    "zip": "application/zip", "tar.gz": "application/gzip", "tgz": "application/gzip", "pdf": "application/pdf",
    "json": "application/json", "yaml": "application/yaml", "yml": "application/yaml", "py": "text/x-python",
    "js": "text/javascript", "ts": "text/plain", "md": "text/markdown", "txt": "text/plain",
}
ALLOWED_TEXT = "Allowed file types: zip, tar.gz, json, yaml, py, js, ts, md, txt, pdf"
EXECUTABLE = f"Executable files are not allowed. {ALLOWED_TEXT}"
UNKNOWN_TYPE = f"This file type is not allowed. {ALLOWED_TEXT}"
EMPTY = "The file is empty"

_EXECUTABLE_MAGICS = (
    b"\x7fELF",  # Linux/Unix ELF
    b"MZ",  # Windows PE / DOS
    b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe",  # Mach-O 32/64, both orders
    b"\xca\xfe\xba\xbe",  # Mach-O universal (also Java class files: not allowed either)
)
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header, or the end record of an empty zip
# Bytes that never occur in text: C0 controls except tab, LF, FF, CR and ESC (ANSI colours in logs), and DEL.
_BINARY = frozenset(set(range(0x00, 0x20)) - {0x09, 0x0A, 0x0C, 0x0D, 0x1B}) | {0x7F}


@dataclass(frozen=True)
class FileKind:
    kind: str  # one of ALLOWED
    content_type: str

    @property
    def compressed(self) -> bool:
        return self.kind in COMPRESSED_KINDS


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
    return "txt" if is_text(prefix.removeprefix(b"\xef\xbb\xbf"), complete=complete) else None


def is_executable(prefix: bytes) -> bool:
    return prefix.startswith(_EXECUTABLE_MAGICS)


def is_text(prefix: bytes, *, complete: bool) -> bool:
    """UTF-8 without binary control bytes. A sniffed prefix may end inside a multibyte character
    (`complete` False): up to 3 trailing bytes are then allowed to be an unfinished sequence."""
    if any(byte in _BINARY for byte in prefix):
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


def judge(filename: str, prefix: bytes, *, size: int) -> FileKind:
    """The file's kind, or Invalid saying why it is refused. `prefix` is the object's first bytes
    (at most SNIFF_BYTES), `size` its real size."""
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
        ok = is_text(prefix.removeprefix(b"\xef\xbb\xbf"), complete=complete)
    if not ok:
        if kind is None:
            raise Invalid(UNKNOWN_TYPE, field="agentFileURL")
        raise Invalid(f"The content of this file is not a valid .{kind} file. {ALLOWED_TEXT}", field="agentFileURL")
    return FileKind(kind=kind, content_type=MIME[kind])

