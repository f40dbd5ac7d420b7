"""The local backend's upload targets: what S3 does for presigned PUTs, part PUTs and POST forms.

They authenticate by the signed token in the URL (or the form), not by the session, exactly like S3. The
key must also still be an open upload (not attached, not expired, not discarded), so a token cannot be
replayed to overwrite a file after it was checked and attached. Bodies stream to disk in chunks; past the
size limit the request stops with 413 and nothing is kept. A part's limit is what the other stored parts of
its upload leave (services/uploads/companion.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from python_multipart.exceptions import MultipartParseError
from python_multipart.multipart import MultipartParser, parse_options_header

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import (
    LocalStorage,
    NoSuchUpload,
    ObjectTooLarge,
    ObjectWriter,
    get_storage,
    tokens,
)
from marketplace.models import Upload, UploadMethod
from marketplace.services.errors import Forbidden, Invalid, NotFound
from marketplace.services.uploads.companion import MULTIPART_NOT_FOUND, check_part_number, part_room
from marketplace.services.uploads.records import KEY_PATTERN, check_open, too_large

MAX_FORM_FIELDS = 32
MAX_FORM_FIELD_BYTES = 8192
INVALID_SIGNATURE = "Invalid upload signature"


@dataclass(frozen=True)
class Received:
    key: str
    etag: str  # md5 hex, unquoted
    location: str


def _local() -> LocalStorage:
    storage = get_storage()
    if not isinstance(storage, LocalStorage):
        raise NotFound("Uploads go straight to the storage service on this server")
    return storage


def _verify(purpose: tokens.Purpose, key: str, expires: str | None, signature: str | None, *,
            upload_id: str = "", part_number: int | None = None) -> None:
    if not KEY_PATTERN.fullmatch(key or ""):
        raise Forbidden(INVALID_SIGNATURE)
    try:
        tokens.verify(purpose, key, expires, signature, upload_id=upload_id, part_number=part_number)
    except tokens.TokenError as exc:
        raise Forbidden(str(exc)) from None


def _check_row(key: str, *, method: str, upload_id: str | None = None) -> None:
    """The key is still an open upload of the kind the token was issued for."""
    with session_scope() as session:
        upload = session.get(Upload, key)
        if upload is None:
            raise NotFound("Upload not found")
        if method == UploadMethod.MULTIPART:
            if upload.method != method or upload.upload_id != upload_id:
                raise NotFound(MULTIPART_NOT_FOUND)
        elif upload.method not in (UploadMethod.PUT, UploadMethod.POST):
            raise Invalid("This upload takes parts, not a whole file")
        check_open(upload)


def _part_room(storage: LocalStorage, key: str, upload_id: str, part_number: int) -> int:
    """What is left of the size limit for this part, given the parts stored so far (413 when nothing is)."""
    check_part_number(part_number)
    try:
        room = part_room(storage.list_parts(key, upload_id), part_number)
    except NoSuchUpload:
        raise NotFound(MULTIPART_NOT_FOUND) from None
    if room <= 0:
        raise too_large()
    return room


async def _stream(writer: ObjectWriter, body: AsyncIterator[bytes]) -> None:
    try:
        async for chunk in body:
            writer.write(chunk)
    except ObjectTooLarge:
        raise too_large() from None


async def receive_put(*, key: str, expires: str | None, signature: str | None, body: AsyncIterator[bytes],
                      content_length: int | None = None, upload_id: str | None = None,
                      part_number: str | None = None) -> Received:
    """One signed PUT: a whole object, or (with uploadId and partNumber) one part of a multipart upload."""
    storage = _local()
    is_part = upload_id is not None or part_number is not None
    number: int | None = None
    if is_part:
        try:
            number = int(part_number or "")
        except ValueError:
            raise Forbidden(INVALID_SIGNATURE) from None
        _verify(tokens.Purpose.PART, key, expires, signature, upload_id=upload_id or "", part_number=number)
    else:
        _verify(tokens.Purpose.PUT, key, expires, signature)
    if content_length is not None and content_length > settings.upload_max_file_bytes:
        raise too_large()
    method = UploadMethod.MULTIPART if is_part else UploadMethod.PUT
    await asyncio.to_thread(_check_row, key, method=method, upload_id=upload_id)
    limit = settings.upload_max_file_bytes
    if is_part:
        room = await asyncio.to_thread(_part_room, storage, key, upload_id or "", number or 0)
        if content_length is not None and content_length > room:
            raise too_large()
        try:
            writer = storage.part_writer(key, upload_id or "", number or 0, max_bytes=room)
        except NoSuchUpload:
            raise NotFound(MULTIPART_NOT_FOUND) from None
        with writer:
            await _stream(writer, body)
            try:
                etag = await asyncio.to_thread(storage.commit_part, writer, max_total=limit)
            except ObjectTooLarge:  # parts sent at the same time filled the room first
                raise too_large() from None
            except NoSuchUpload:
                raise NotFound(MULTIPART_NOT_FOUND) from None
    else:
        with storage.writer(key, max_bytes=limit) as writer:
            await _stream(writer, body)
            etag = await asyncio.to_thread(writer.commit)
    return Received(key=key, etag=etag, location=storage.object_url(key))


class _FormReader:
    """Feeds a multipart/form-data body through python-multipart, field by field, without buffering the file.

    The text fields before `file` are collected (bounded); `on_file` is called once the `file` part's
    headers are read and returns the writer its bytes go to. Fields after `file` are ignored, as S3 does.
    """

    def __init__(self, boundary: bytes) -> None:
        self.fields: dict[str, str] = {}
        self.file_started = False
        self.file_done = False
        self.writer: ObjectWriter | None = None
        self._pending: list[bytes] = []  # file bytes that arrived before the writer was opened
        self._header_name = b""
        self._header_value = b""
        self._name = ""
        self._value = bytearray()
        self._is_file = False
        callbacks = {
            "on_part_begin": self._part_begin, "on_header_field": self._header_field,
            "on_header_value": self._header_value_cb, "on_header_end": self._header_end,
            "on_part_data": self._part_data, "on_part_end": self._part_end,
        }
        self.parser = MultipartParser(boundary, callbacks)  # type: ignore[arg-type]  # callbacks: a plain dict

    def _part_begin(self) -> None:
        self._name, self._value, self._is_file = "", bytearray(), False

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def _header_value_cb(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def _header_end(self) -> None:
        if self._header_name.lower() == b"content-disposition":
            _, options = parse_options_header(self._header_value)
            self._name = options.get(b"name", b"").decode("utf-8", "replace")
            if self._name.lower() == "file" and not self.file_started:
                self._is_file = self.file_started = True
        self._header_name, self._header_value = b"", b""

    def _part_data(self, data: bytes, start: int, end: int) -> None:
        if self.file_done:
            return
        if self._is_file:
            if self.writer is None:
                self._pending.append(data[start:end])
            else:
                self.writer.write(data[start:end])
            return
        self._value += data[start:end]
        if len(self._value) > MAX_FORM_FIELD_BYTES:
            raise Invalid("A form field is too long")

    def _part_end(self) -> None:
        if self._is_file:
            self.file_done = True
        elif not self.file_started:
            if len(self.fields) >= MAX_FORM_FIELDS:
                raise Invalid("Too many form fields")
            self.fields.setdefault(self._name, self._value.decode("utf-8", "replace"))

    def open_writer(self, opener: Callable[[dict[str, str]], ObjectWriter]) -> None:
        self.writer = opener(self.fields)
        for chunk in self._pending:
            self.writer.write(chunk)
        self._pending.clear()


def _boundary(content_type: str | None) -> bytes:
    kind, options = parse_options_header(content_type or "")
    boundary = options.get(b"boundary")
    if kind != b"multipart/form-data" or not boundary:
        raise Invalid("Expected a multipart/form-data body")
    return boundary


async def receive_post(*, content_type: str | None, body: AsyncIterator[bytes],
                       content_length: int | None = None) -> Received:
    """One signed form POST (the local twin of an S3 presigned POST): fields first, then `file`."""
    storage = _local()
    form = _FormReader(_boundary(content_type))
    # The form envelope is small; a body far past the file limit is refused before reading it.
    if content_length is not None and content_length > settings.upload_max_file_bytes + 64 * 1024:
        raise too_large()
    key = ""

    def opener(fields: dict[str, str]) -> ObjectWriter:
        nonlocal key
        key = fields.get("key", "")
        _verify(tokens.Purpose.POST, key, fields.get("expires"), fields.get("signature"))
        _check_row(key, method=UploadMethod.POST)
        return storage.writer(key, max_bytes=settings.upload_max_file_bytes)

    try:
        async for chunk in body:
            form.parser.write(chunk)
            if form.file_started and form.writer is None:
                await asyncio.to_thread(form.open_writer, opener)
        form.parser.finalize()
        if form.writer is None:
            raise Invalid("The form has no file")
        if not form.file_done:
            raise Invalid("The form ended before the end of the file")
        etag = await asyncio.to_thread(form.writer.commit)
    except ObjectTooLarge:
        raise too_large() from None
    except MultipartParseError:
        raise Invalid("Malformed form body") from None
    finally:
        if form.writer is not None:
            form.writer.__exit__(None, None, None)
    return Received(key=key, etag=etag, location=storage.object_url(key))
