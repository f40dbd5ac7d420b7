"""The scan of one stored file: what each engine finds in it and, for archives, in each member.

- malware: ClamAV's daemon (integrations/clamav.py). An archive is first sent whole (clamd unpacks it, member by
  member, with its own limits): one round trip for the common clean archive. Only when clamd finds something, or
  cannot take it whole, is each member sent on its own, so the finding names the member;
- code: the YARA rules kept beside this module (`rules/*.yar`);
- pickle: `.pkl .pickle .pt .pth .joblib` read by picklescan, every import outside its safe list reported;
- secret: token and key patterns (services/scanning/secrets.py), shown masked;
- archive: zip and tar.gz members are scanned one by one, and nested archives down to `scan_max_depth`;
  a member compressed more than `scan_max_ratio`, more than `scan_max_members` members or more than
  `scan_max_unpacked_bytes` in all is reported and not read further (an archive bomb costs nothing to refuse).
Nothing is extracted to disk: members are read into memory one at a time (at most MEMBER_MAX_BYTES each).
"""

from __future__ import annotations

import hashlib
import io
import logging
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import version as package_version
from pathlib import Path, PurePosixPath
from typing import Any

import yara
from picklescan import scanner as picklescan

from marketplace.config import settings
from marketplace.integrations import clamav
from marketplace.integrations.storage import get_storage
from marketplace.models import FindingKind
from marketplace.services.scanning import secrets
from marketplace.services.scanning.findings import Finding

log = logging.getLogger(__name__)
RULES_DIR = Path(__file__).parent / "rules"
PICKLE_SUFFIXES = frozenset({".pkl", ".pickle", ".pt", ".pth", ".joblib"})
MEMBER_MAX_BYTES = 128 << 20
READ_CHUNK = 1 << 20


class ScanFailed(Exception):
    """An engine could not give its verdict (clamd down, storage unreadable): the scan is retried."""


@dataclass(frozen=True)
class EngineSet:
    """The engines of one scanning run and their versions (`engines` on each verdict, `key` to compare)."""

    versions: dict[str, Any]
    key: str


@cache
def _rules() -> tuple[yara.Rules, str]:
    files = sorted(RULES_DIR.glob("*.yar"))
    digest = hashlib.sha256(b"".join(f.name.encode() + f.read_bytes() for f in files)).hexdigest()[:16]
    return yara.compile(filepaths={f.stem: str(f) for f in files}), digest


def engine_set() -> EngineSet:
    """Ask clamd its version (ScanFailed when it does not answer) and name every engine's version."""
    try:
        clam = clamav.version(socket_path=settings.clamd_socket, timeout=settings.clamd_timeout_seconds)
    except clamav.ClamavError as error:
        raise ScanFailed(str(error)) from error
    _, rules_digest = _rules()
    versions = {"clamav": clam.engine, "clamavSignatures": clam.signatures, "signatureDate": clam.signature_date,
                "yara": yara.__version__, "yaraRules": rules_digest, "picklescan": package_version("picklescan"),
                "secrets": secrets.PATTERNS_VERSION}
    key = "|".join(str(versions[name]) for name in sorted(versions))
    return EngineSet(versions=versions, key=key[:200])


@dataclass
class _Walk:
    """One file's scan: its findings and what its archives have unpacked so far (the bomb limits)."""

    findings: list[Finding] = field(default_factory=list)
    unpacked: int = 0
    members: int = 0
    stopped: bool = False  # an archive limit was hit: nothing more is unpacked
    clamav_members: bool = True  # False once clamd found the whole archive clean: members are not sent again
    whole_malware: str | None = None  # what clamd found in the whole archive, until a member is found to hold it


def scan_object(*, key: str, filename: str) -> list[Finding]:
    """Scan the stored object at `key` (named `filename`); ScanFailed when an engine or the storage fails."""
    storage = get_storage()
    try:
        data = b"".join(storage.iter_chunks(key, chunk_size=READ_CHUNK))
    except Exception as error:
        raise ScanFailed(f"could not read {key} from storage: {error}") from error
    return scan_data(data, filename=filename)


def scan_data(data: bytes, *, filename: str) -> list[Finding]:
    """The findings of every engine in `data` (a file named `filename`) and in its archives' members."""
    walk = _Walk()
    _scan(walk, data, name=filename, member=None, depth=0)
    return walk.findings


def _scan(walk: _Walk, data: bytes, *, name: str, member: str | None, depth: int) -> None:
    suffix = PurePosixPath(name.lower()).suffix
    archive = _archive_kind(data, name) if suffix not in PICKLE_SUFFIXES else None
    if archive is None and walk.clamav_members:
        _clamav(walk, data, member)
    if archive is None:
        _yara(walk, data, member)
        walk.findings.extend(secrets.find(data, member=member))
    if suffix in PICKLE_SUFFIXES:
        _pickle(walk, data, name=name, member=member, suffix=suffix)
    if archive is not None:
        if depth == 0:
            _clamav_whole(walk, data)
        if depth >= settings.scan_max_depth:
            walk.findings.append(Finding(FindingKind.ARCHIVE, "nesting-depth", member,
                                         f"archives nested deeper than {settings.scan_max_depth} levels"))
            return
        members = _zip_members if archive == "zip" else _tar_members
        try:
            for inner_name, inner in members(walk, data, member):
                _scan(walk, inner, name=inner_name, member=_join(member, inner_name), depth=depth + 1)
        except (zipfile.BadZipFile, tarfile.TarError, zlib.error, EOFError, OSError, ValueError) as error:
            walk.findings.append(Finding(FindingKind.ARCHIVE, "unreadable", member, f"archive unreadable: {error}"))
        if walk.whole_malware and depth == 0 and not any(f.kind == FindingKind.MALWARE for f in walk.findings):
            # clamd found it in the whole archive only (in a part no member holds)
            walk.findings.append(Finding(FindingKind.MALWARE, walk.whole_malware, None, "ClamAV signature"))


def _join(outer: str | None, inner: str) -> str:
    return f"{outer}/{inner}" if outer else inner


def _archive_kind(data: bytes, name: str) -> str | None:
    lowered = name.lower()
    if data[:4] == b"PK\x03\x04" or (lowered.endswith(".zip") and data[:4] in (b"PK\x05\x06", b"PK\x07\x08")):
        return "zip"
    if data[:2] == b"\x1f\x8b" and lowered.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    return None


def _limit(walk: _Walk, member: str | None, name: str, detail: str) -> None:
    walk.findings.append(Finding(FindingKind.ARCHIVE, name, member, detail))
    walk.stopped = True


def _admit(walk: _Walk, archive: str | None, entry: str, size: int, packed: int | None) -> bool:
    """Count a member against the limits before reading it; False (and a finding) when it must not be read."""
    if walk.stopped:
        return False
    walk.members += 1
    where = _join(archive, entry)
    if walk.members > settings.scan_max_members:
        _limit(walk, archive, "too-many-members", f"more than {settings.scan_max_members} members")
        return False
    if packed is not None and size > 1024 and size / max(packed, 1) > settings.scan_max_ratio:
        _limit(walk, where, "compression-ratio",
               f"compressed {size // max(packed, 1)}:1, more than {settings.scan_max_ratio}:1")
        return False
    if walk.unpacked + size > settings.scan_max_unpacked_bytes:
        _limit(walk, archive, "unpacked-size",
               f"unpacks to more than {settings.scan_max_unpacked_bytes // (1 << 20)} MB")
        return False
    if size > MEMBER_MAX_BYTES:
        _limit(walk, where, "member-size", f"a member of more than {MEMBER_MAX_BYTES // (1 << 20)} MB")
        return False
    return True


def _read_capped(walk: _Walk, stream: io.BufferedIOBase, archive: str | None, entry: str,
                 declared: int) -> bytes | None:
    """A member's bytes, never more than it declared (a lying header is an archive finding, not a bomb)."""
    data = stream.read(declared + 1)
    if len(data) > declared:
        _limit(walk, _join(archive, entry), "size-mismatch", "a member larger than its header says")
        return None
    walk.unpacked += len(data)
    return data


def _zip_members(walk: _Walk, data: bytes, archive: str | None) -> Iterator[tuple[str, bytes]]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for info in z.infolist():
            if info.is_dir():
                continue
            if not _admit(walk, archive, info.filename, info.file_size, info.compress_size):
                return
            with z.open(info) as stream:
                inner = _read_capped(walk, stream, archive, info.filename, info.file_size)
            if inner is None:
                return
            yield info.filename, inner


def _tar_members(walk: _Walk, data: bytes, archive: str | None) -> Iterator[tuple[str, bytes]]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r|gz") as tar:
        for entry in tar:
            if not entry.isfile():
                continue
            if not _admit(walk, archive, entry.name, entry.size, None):
                return
            stream = tar.extractfile(entry)
            if stream is None:
                continue
            inner = _read_capped(walk, stream, archive, entry.name, entry.size)
            if inner is None:
                return
            yield entry.name, inner


def _clamav(walk: _Walk, data: bytes, member: str | None) -> None:
    try:
        found = clamav.scan_bytes(data, socket_path=settings.clamd_socket, timeout=settings.clamd_timeout_seconds)
    except clamav.ClamavError as error:
        raise ScanFailed(str(error)) from error
    if found:
        walk.findings.append(Finding(FindingKind.MALWARE, found, member, "ClamAV signature"))


def _clamav_whole(walk: _Walk, data: bytes) -> None:
    """Send a top-level archive whole: clean -> its members are not sent one by one (clamd read them)."""
    try:
        found = clamav.scan_bytes(data, socket_path=settings.clamd_socket, timeout=settings.clamd_timeout_seconds)
    except clamav.ClamavError:
        return  # too large for clamd's stream limit, say: every member goes on its own (an outage fails there)
    walk.clamav_members, walk.whole_malware = found is not None, found


def _yara(walk: _Walk, data: bytes, member: str | None) -> None:
    rules, _ = _rules()
    for match in rules.match(data=data, timeout=60):
        walk.findings.append(Finding(FindingKind.CODE, match.rule, member, str(match.meta.get("description", ""))))


def _pickle(walk: _Walk, data: bytes, *, name: str, member: str | None, suffix: str) -> None:
    result = picklescan.scan_bytes(io.BytesIO(data), name, suffix, strict=True)
    for found in result.globals:
        if found.safety == picklescan.SafetyLevel.Dangerous:
            walk.findings.append(Finding(FindingKind.PICKLE, f"{found.module}.{found.name}", member,
                                         "a pickle import outside the safe list: runs when the file is loaded"))
    if result.scan_err:
        walk.findings.append(Finding(FindingKind.PICKLE, "unreadable", member,
                                     "a pickle that cannot be read to its end"))
