"""What an uploaded archive holds: a zip read through its central directory, a tar.gz read as the gzip and tar
stream it must be. Nothing is extracted; `is_executable` judges each entry's first bytes (services/filetypes).

Refused: an archive its own library cannot read to the end; entries whose path is absolute or climbs out
(`..`), links pointing outside the archive, devices and pipes, encrypted zip entries (they cannot be checked),
entries that are executables by their first bytes, more than MAX_ENTRIES entries, and a tar.gz that unpacks
to more than MAX_UNPACKED_BYTES. Each refusal names the archive and the entry.
"""

from __future__ import annotations

import gzip
import re
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from typing import BinaryIO

from marketplace.services.filenames import shown_name

MAX_ENTRIES = 10_000
MAX_UNPACKED_BYTES = 1 << 30  # what a tar.gz may unpack to (reading it all costs about a second per GB)
MAX_LINK_TARGET = 4096
READ_BYTES = 1 << 20
Sniffer = Callable[[bytes], bool]
_DRIVE = re.compile(r"[A-Za-z]:")


class Refused(Exception):
    """An archive refused for what it holds; the message (naming the archive and the entry) is shown."""


class Unreadable(Exception):
    """Not an archive of its kind: its own library cannot read it; the message says where it broke."""


def _unsafe_path(path: str) -> bool:
    """Absolute, a Windows drive, or climbing out with '..' (backslashes count as separators: Windows tools
    treat them so)."""
    path = path.replace("\\", "/")
    return path.startswith("/") or bool(_DRIVE.match(path)) or "\x00" in path or ".." in path.split("/")


def _entry(archive: str, entry: str, problem: str, rule: str = "") -> Refused:
    return Refused(f"{archive} contains {problem}: {shown_name(entry)}{rule}")


def _check_name(archive: str, entry: str) -> None:
    if _unsafe_path(entry):
        raise _entry(archive, entry, "an entry with an unsafe path")


def _check_link(archive: str, entry: str, target: str) -> None:
    if not target or _unsafe_path(target):
        raise _entry(archive, entry, "a link that points outside the archive")


def _check_head(archive: str, entry: str, head: bytes, is_executable: Sniffer) -> None:
    if is_executable(head):
        raise _entry(archive, entry, "an executable file", ". Executable files are not allowed.")


def check_zip(archive: str, f: BinaryIO, *, is_executable: Sniffer) -> None:
    """Raise Unreadable unless `f` is a zip its library reads, Refused if it holds anything refused."""
    try:
        with zipfile.ZipFile(f) as z:
            infos = z.infolist()
            if len(infos) > MAX_ENTRIES:
                raise Refused(f"{archive} holds more than {MAX_ENTRIES} entries")
            for info in infos:
                _check_name(archive, info.filename)
                if info.flag_bits & 0x1:
                    raise _entry(archive, info.filename, "an encrypted entry that cannot be checked")
                mode = info.external_attr >> 16
                if stat.S_ISLNK(mode):
                    with z.open(info) as member:
                        _check_link(archive, info.filename, member.read(MAX_LINK_TARGET).decode("utf-8", "replace"))
                    continue
                if info.is_dir() or info.file_size == 0:
                    continue
                with z.open(info) as member:
                    _check_head(archive, info.filename, member.read(4), is_executable)
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, EOFError, OSError, ValueError) as error:
        raise Unreadable(str(error)) from None


class _Capped:
    """A read-only stream that stops with Refused past `limit` bytes (a gzip bomb is not read to its end)."""

    def __init__(self, stream: BinaryIO | gzip.GzipFile, limit: int, archive: str) -> None:
        self.stream, self.limit, self.archive, self.read_bytes = stream, limit, archive, 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size if size is not None and size >= 0 else READ_BYTES)
        self.read_bytes += len(data)
        if self.read_bytes > self.limit:
            raise Refused(f"{self.archive} unpacks to more than {self.limit // (1 << 20)} MB")
        return data


def check_tar_gz(archive: str, f: BinaryIO, *, is_executable: Sniffer) -> None:
    """Raise Unreadable unless `f` is gzip (its CRC and length checked at its end, nothing but gzip after it)
    holding a tar archive, Refused if that holds anything refused."""
    try:
        with gzip.GzipFile(fileobj=f, mode="rb") as unzipped:
            stream = _Capped(unzipped, MAX_UNPACKED_BYTES, archive)
            with tarfile.open(fileobj=stream, mode="r|") as tar:  # type: ignore[call-overload]  # typeshed: no stream mode with fileobj
                for count, member in enumerate(tar, start=1):
                    if count > MAX_ENTRIES:
                        raise Refused(f"{archive} holds more than {MAX_ENTRIES} entries")
                    _check_tar_member(archive, tar, member, is_executable)
            while stream.read(READ_BYTES):  # the end of the gzip stream, where its checksum is
                pass
    except (tarfile.TarError, gzip.BadGzipFile, zlib.error, EOFError, OSError, ValueError) as error:
        raise Unreadable(str(error)) from None


def _check_tar_member(archive: str, tar: tarfile.TarFile, member: tarfile.TarInfo, is_executable: Sniffer) -> None:
    _check_name(archive, member.name)
    if member.issym() or member.islnk():
        _check_link(archive, member.name, member.linkname)
    elif member.isfile():
        if member.size:
            extracted = tar.extractfile(member)
            if extracted is not None:
                _check_head(archive, member.name, extracted.read(4), is_executable)
    elif not member.isdir():
        raise _entry(archive, member.name, "a special file (a device or a pipe)")


