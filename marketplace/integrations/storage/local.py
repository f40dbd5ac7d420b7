"""Local disk backend, with app-served upload targets that behave like S3's presigned ones.

Objects live at `{root}/{key}`. Uploads are written to `{root}/.tmp/` and renamed into place, so a reader
never sees half a file. Multipart uploads keep their parts in `{root}/.multipart/{uploadId}/` (the key in
a `key` file, each part as `NNNNN` with its md5 in `NNNNN.etag`, and a `lock` file that orders part commits)
and complete by streaming concatenation.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import BinaryIO
from urllib.parse import quote, urlencode

from marketplace.config import settings
from marketplace.integrations.storage import tokens
from marketplace.integrations.storage.base import (
    CHUNK_SIZE,
    NoSuchUpload,
    ObjectNotFound,
    ObjectTooLarge,
    PartInfo,
    PresignedPost,
    StaleMultipart,
    StorageError,
    safe_key,
    strip_etag,
)

LOCAL_TARGET_PATH = "/api/uploads/local"
_UPLOAD_ID = re.compile(r"[0-9a-f]{32}")
_PART_NAME = re.compile(r"\d{5}")
_LOCK_NAME = "lock"


class ObjectWriter:
    """Streams one upload to a temp file (md5 on the fly, a size cap), then renames it into place on commit."""

    def __init__(self, root: Path, target: Path, *, max_bytes: int | None) -> None:
        tmp_dir = root / ".tmp"
        tmp_dir.mkdir(parents=True, exist_ok=True)
        self.target = target
        self.max_bytes = max_bytes
        self.size = 0
        self._md5 = hashlib.md5(usedforsecurity=False)
        self._tmp = tmp_dir / uuid.uuid4().hex
        self._file = self._tmp.open("wb")

    def write(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.max_bytes is not None and self.size > self.max_bytes:
            raise ObjectTooLarge(f"The file is larger than the limit of {self.max_bytes} bytes")
        self._md5.update(chunk)
        self._file.write(chunk)

    @property
    def etag(self) -> str:
        return self._md5.hexdigest()

    def commit(self) -> str:
        """Put the file in place; returns its md5 hex (the ETag, unquoted)."""
        self._file.close()
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self._tmp.replace(self.target)
        return self.etag

    def discard(self) -> None:
        self._file.close()
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> ObjectWriter:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if not self._file.closed or self._tmp.exists():
            self.discard()


class LocalStorage:
    bucket_name = "local"

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _path(self, key: str) -> Path:
        return self.root / safe_key(key)

    # --- objects -----------------------------------------------------------------------------------
    def put(self, key: str, data: bytes, *, content_type: str = "application/octet-stream") -> None:
        with self.writer(key, max_bytes=None) as out:
            out.write(data)
            out.commit()

    def get(self, key: str) -> bytes | None:
        path = self._path(key)
        return path.read_bytes() if path.is_file() else None

    def head(self, key: str) -> int | None:
        path = self._path(key)
        return path.stat().st_size if path.is_file() else None

    def iter_chunks(self, key: str, *, chunk_size: int = CHUNK_SIZE) -> Iterator[bytes]:
        try:
            f = self._path(key).open("rb")
        except FileNotFoundError:
            raise ObjectNotFound(key) from None
        with f:
            while chunk := f.read(chunk_size):
                yield chunk

    @contextmanager
    def open_file(self, key: str) -> Iterator[BinaryIO]:
        try:
            f = self._path(key).open("rb")
        except FileNotFoundError:
            raise ObjectNotFound(key) from None
        with f:
            yield f

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def move(self, src: str, dst: str) -> None:
        source, target = self._path(src), self._path(dst)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.replace(source, target)
        except FileNotFoundError:
            raise ObjectNotFound(src) from None

    def writer(self, key: str, *, max_bytes: int | None) -> ObjectWriter:
        """Where the app's upload target streams a whole object."""
        return ObjectWriter(self.root, self._path(key), max_bytes=max_bytes)

    # --- signed targets ----------------------------------------------------------------------------
    def object_url(self, key: str) -> str:
        return f"{settings.public_url.rstrip('/')}{LOCAL_TARGET_PATH}/{quote(safe_key(key))}"

    def presigned_put_url(self, key: str, *, expires_in: int) -> str:
        expires, signature = tokens.issue(tokens.Purpose.PUT, key, ttl=expires_in)
        return f"{self.object_url(key)}?{urlencode({'expires': expires, 'signature': signature})}"

    def presigned_post(self, key: str, *, content_type: str, max_bytes: int, expires_in: int) -> PresignedPost:
        expires, signature = tokens.issue(tokens.Purpose.POST, safe_key(key), ttl=expires_in)
        return PresignedPost(url=f"{settings.public_url.rstrip('/')}{LOCAL_TARGET_PATH}",
                             fields={"key": key, "expires": str(expires), "signature": signature})

    def presigned_part_url(self, key: str, upload_id: str, part_number: int, *, expires_in: int) -> str:
        expires, signature = tokens.issue(tokens.Purpose.PART, key, ttl=expires_in, upload_id=upload_id,
                                          part_number=part_number)
        query = {"uploadId": upload_id, "partNumber": part_number, "expires": expires, "signature": signature}
        return f"{self.object_url(key)}?{urlencode(query)}"

    # --- multipart ---------------------------------------------------------------------------------
    def _upload_dir(self, key: str, upload_id: str) -> Path:
        """The folder of an existing multipart upload of `key`; NoSuchUpload otherwise."""
        if not _UPLOAD_ID.fullmatch(upload_id or ""):
            raise NoSuchUpload("The specified multipart upload does not exist")
        folder = self.root / ".multipart" / upload_id
        try:
            owner = (folder / "key").read_text()
        except FileNotFoundError:
            raise NoSuchUpload("The specified multipart upload does not exist") from None
        if owner != safe_key(key):
            raise NoSuchUpload("The specified multipart upload does not exist")
        return folder

    def create_multipart(self, key: str, *, content_type: str) -> str:
        upload_id = uuid.uuid4().hex
        folder = self.root / ".multipart" / upload_id
        folder.mkdir(parents=True)
        (folder / "key").write_text(safe_key(key))
        return upload_id

    def part_writer(self, key: str, upload_id: str, part_number: int, *, max_bytes: int | None) -> ObjectWriter:
        folder = self._upload_dir(key, upload_id)
        return ObjectWriter(self.root, folder / f"{part_number:05d}", max_bytes=max_bytes)

    def commit_part(self, writer: ObjectWriter, *, max_total: int | None = None) -> str:
        """Keep a finished part with its ETag (written first, so a listed part always has one). With `max_total`,
        refused (ObjectTooLarge, nothing kept) when the other stored parts and this one would pass it: parts of
        one upload commit one at a time (a lock file in its folder), so parts sent together cannot all fit."""
        folder = writer.target.parent
        try:
            lock = (folder / _LOCK_NAME).open("a")
        except FileNotFoundError:  # aborted meanwhile
            writer.discard()
            raise NoSuchUpload("The specified multipart upload does not exist") from None
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if max_total is not None:
                others = sum(path.stat().st_size for path in folder.iterdir()
                             if _PART_NAME.fullmatch(path.name) and path.name != writer.target.name)
                if others + writer.size > max_total:
                    writer.discard()
                    raise ObjectTooLarge(f"The file is larger than the limit of {max_total} bytes")
            writer.target.with_suffix(".etag").write_text(writer.etag)
            return writer.commit()

    def list_parts(self, key: str, upload_id: str) -> list[PartInfo]:
        folder = self._upload_dir(key, upload_id)
        parts = []
        for path in sorted(folder.iterdir()):
            if not _PART_NAME.fullmatch(path.name):
                continue
            try:
                etag = path.with_suffix(".etag").read_text()
                parts.append(PartInfo(part_number=int(path.name), etag=etag, size=path.stat().st_size))
            except FileNotFoundError:
                continue
        return parts

    def complete_multipart(self, key: str, upload_id: str, parts: list[tuple[int, str]]) -> None:
        folder = self._upload_dir(key, upload_id)
        stored = {p.part_number: p for p in self.list_parts(key, upload_id)}
        numbers = [n for n, _ in parts]
        if not parts or numbers != sorted(set(numbers)):
            raise StorageError("The list of parts was not in ascending order")
        for number, etag in parts:
            part = stored.get(number)
            if part is None or part.etag != strip_etag(etag):
                raise StorageError(f"Part {number} was not uploaded or its ETag does not match")
        with self.writer(key, max_bytes=None) as out:
            for number, _ in parts:
                with (folder / f"{number:05d}").open("rb") as f:
                    while chunk := f.read(CHUNK_SIZE):
                        out.write(chunk)
            out.commit()
        shutil.rmtree(folder, ignore_errors=True)

    def abort_multipart(self, key: str, upload_id: str) -> None:
        try:
            folder = self._upload_dir(key, upload_id)
        except NoSuchUpload:
            return
        shutil.rmtree(folder, ignore_errors=True)

    def stale_multiparts(self, *, older_than: datetime) -> list[StaleMultipart]:
        """Multipart folders untouched since `older_than` (abandoned uploads)."""
        base = self.root / ".multipart"
        if not base.is_dir():
            return []
        stale = []
        for folder in base.iterdir():
            try:
                touched = datetime.fromtimestamp(max(p.stat().st_mtime for p in (folder, *folder.iterdir())), UTC)
                key = (folder / "key").read_text()
            except (FileNotFoundError, NotADirectoryError):
                continue
            if touched < older_than:
                stale.append(StaleMultipart(key=key, upload_id=folder.name))
        return stale
