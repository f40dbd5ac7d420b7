"""What every storage backend offers, and the small value types its answers use."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import PurePosixPath
from typing import BinaryIO, Protocol

CHUNK_SIZE = 1 << 20


class StorageError(Exception):
    """A request the backend refused (unknown multipart upload, wrong part list...); the message is safe to show."""


class NoSuchUpload(StorageError):
    """The multipart upload does not exist (never started, completed or aborted)."""


class ObjectNotFound(StorageError):
    pass


class ObjectTooLarge(StorageError):
    """A local upload went past its size limit; nothing was kept."""


@dataclass(frozen=True)
class PartInfo:
    part_number: int
    etag: str  # without quotes
    size: int


@dataclass(frozen=True)
class PresignedPost:
    """A form the browser POSTs (multipart/form-data, the fields first and `file` last) to `url`."""

    url: str
    fields: dict[str, str]


@dataclass(frozen=True)
class StaleMultipart:
    key: str
    upload_id: str


class Storage(Protocol):
    """Objects by key. Presigned targets let the browser upload straight to the backend. `open_file` gives a
    seekable read-only file of one object (what `zipfile` needs to read an archive's central directory)."""

    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream") -> None: ...
    def get(self, key: str) -> bytes | None: ...
    def head(self, key: str) -> int | None: ...
    def iter_chunks(self, key: str, *, chunk_size: int = CHUNK_SIZE) -> Iterator[bytes]: ...
    def open_file(self, key: str) -> AbstractContextManager[BinaryIO]: ...
    def delete(self, key: str) -> None: ...
    def move(self, src: str, dst: str) -> None: ...

    def object_url(self, key: str) -> str: ...
    def presigned_put_url(self, key: str, *, expires_in: int) -> str: ...
    def presigned_post(self, key: str, *, content_type: str, max_bytes: int, expires_in: int) -> PresignedPost: ...
    def create_multipart(self, key: str, *, content_type: str) -> str: ...
    def presigned_part_url(self, key: str, upload_id: str, part_number: int, *, expires_in: int) -> str: ...
    def list_parts(self, key: str, upload_id: str) -> list[PartInfo]: ...
    def complete_multipart(self, key: str, upload_id: str, parts: list[tuple[int, str]]) -> None: ...
    def abort_multipart(self, key: str, upload_id: str) -> None: ...
    def stale_multiparts(self, *, older_than: datetime) -> list[StaleMultipart]: ...

    @property
    def bucket_name(self) -> str: ...


def safe_key(key: str) -> str:
    """A relative key without '..', '.', empty or hidden parts (hidden folders hold the backend's own state)."""
    if not key or "\\" in key or "\x00" in key:
        raise ValueError(f"unsafe storage key: {key!r}")
    path = PurePosixPath(key)
    parts = key.split("/")
    if path.is_absolute() or any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        raise ValueError(f"unsafe storage key: {key!r}")
    return key


def strip_etag(etag: str) -> str:
    return etag.strip().strip('"')
