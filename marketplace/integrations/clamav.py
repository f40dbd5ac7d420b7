"""ClamAV's daemon (clamd) over its unix socket, through the `clamdpy` client: INSTREAM scans and the version.

Any failure to reach or read the daemon raises `ClamavError`, so the scanner records an error and retries.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from clamdpy import ClamdUnixSocket

CHUNK_BYTES = 1 << 16


class ClamavError(Exception):
    """clamd could not be asked, or did not answer a verdict."""


@dataclass(frozen=True)
class ClamavVersion:
    """`ClamAV 1.4.6/27065/Wed Oct 18 09:49:14 2023` from freshclam's databases; a local database built with
    sigtool has no number or date (`ClamAV 1.4.6`)."""

    engine: str
    signatures: str | None
    signature_date: str | None


def _client(socket_path: str, timeout: float) -> ClamdUnixSocket:
    return ClamdUnixSocket(path=socket_path, timeout=timeout, max_chunk_size=CHUNK_BYTES)


def version(*, socket_path: str, timeout: float) -> ClamavVersion:
    try:
        raw = _client(socket_path, timeout).version(raw=True)
    except Exception as error:  # the client raises ConnectionError, OSError or its own errors
        raise ClamavError(f"clamd did not answer on {socket_path}: {error}") from error
    engine, _, rest = raw.strip().partition("/")
    number, _, date = rest.partition("/")
    return ClamavVersion(engine=engine, signatures=number or None, signature_date=date or None)


def scan_bytes(data: bytes, *, socket_path: str, timeout: float) -> str | None:
    """The signature name clamd found in `data`, or None when it found nothing."""
    try:
        result = _client(socket_path, timeout).instream(io.BytesIO(data))
    except Exception as error:
        raise ClamavError(f"clamd scan failed: {error}") from error
    if result.status == "FOUND":
        return (result.reason or "unknown").removesuffix(".UNOFFICIAL")
    if result.status != "OK":
        raise ClamavError(f"clamd answered {result.status}: {result.reason}")
    return None
