"""Multipart uploads in Uppy Companion's S3 protocol, on either backend.

Every call names the key and the storage's uploadId; both must belong to an open multipart upload that the
acting vendor started. A completed or aborted upload has no uploadId any more, so it cannot be resumed.

The size limit holds while the parts arrive, not only at `complete`: part numbers stop at `max_parts()` (every
part but the last is at least 5 MiB, S3's rule, which the upload widget follows on both backends), and no part
is signed once the parts stored so far fill the limit. The local backend also refuses a part's bytes past what
is left (services/uploads/local_target.py). S3 cannot be told a part's size when its URL is signed (the upload
widget does not send it), so a part there may be larger: `sign_part` drops the whole upload as soon as the
stored parts are seen past the limit, and `complete` checks the total again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlmodel import Session, delete

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import NoSuchUpload, PartInfo, StorageError, get_storage
from marketplace.models import Upload, UploadMethod, User
from marketplace.services import decisions
from marketplace.services.errors import Conflict, Invalid, InvalidParameter, NotFound
from marketplace.services.permissions import require_vendor
from marketplace.services.uploads.records import owned, record, too_large

MIN_PART_BYTES = 5 * 1024 * 1024  # S3's smallest part (all but the last)
S3_MAX_PARTS = 10_000
MULTIPART_NOT_FOUND = "Multipart upload not found"


def max_parts() -> int:
    """The most parts a file within the size limit needs when every part but the last has MIN_PART_BYTES."""
    return max(1, min(S3_MAX_PARTS, math.ceil(settings.upload_max_file_bytes / MIN_PART_BYTES)))


def part_room(parts: list[PartInfo], part_number: int) -> int:
    """How many bytes part `part_number` may hold: the limit less every other stored part (a part sent again
    replaces its earlier copy). Zero or less: no room."""
    return settings.upload_max_file_bytes - sum(p.size for p in parts if p.part_number != part_number)


@dataclass(frozen=True)
class MultipartStarted:
    key: str
    upload_id: str


@dataclass(frozen=True)
class CompletedUpload:
    location: str
    key: str
    bucket: str


def _multipart(session: Session, *, vendor: User, key: str | None, upload_id: str | None,
               lock: bool = False) -> Upload:
    upload = owned(session, vendor=vendor, key=key, lock=lock)
    if upload.method != UploadMethod.MULTIPART or not upload_id or upload.upload_id != upload_id:
        raise NotFound(MULTIPART_NOT_FOUND)
    return upload


def check_part_number(part_number: int) -> None:
    top = max_parts()
    if not 1 <= part_number <= top:
        raise InvalidParameter(f"partNumber must be between 1 and {top}", field="partNumber")


def _stored_parts(upload: Upload) -> list[PartInfo]:
    try:
        return get_storage().list_parts(upload.key, upload.upload_id or "")
    except NoSuchUpload:
        raise NotFound(MULTIPART_NOT_FOUND) from None


def _drop(session: Session, upload: Upload) -> None:
    """The upload's parts and key go (a statement, not the ORM's delete: a row gone meanwhile is no error)."""
    get_storage().abort_multipart(upload.key, upload.upload_id or "")
    session.exec(delete(Upload).where(Upload.key == upload.key))


def start_multipart(*, actor: User | None, filename: str | None, content_type: str | None) -> MultipartStarted:
    vendor = require_vendor(actor)
    upload = record(vendor=vendor, method=UploadMethod.MULTIPART, filename=filename, content_type=content_type)
    storage = get_storage()
    upload_id = storage.create_multipart(upload.key, content_type=upload.content_type)
    try:
        with session_scope() as session:
            decisions.claim(session, Upload, Upload.key == upload.key, Upload.upload_id == "",
                            values={"upload_id": upload_id}, conflict=MULTIPART_NOT_FOUND)
    except Conflict:  # the row went meanwhile: so does the storage's upload
        storage.abort_multipart(upload.key, upload_id)
        raise
    return MultipartStarted(key=upload.key, upload_id=upload_id)


def sign_part(*, actor: User | None, key: str | None, upload_id: str | None, part_number: int) -> str:
    """A URL for one PUT of part `part_number`; its answer carries the part's ETag. Refused (413) once the
    stored parts leave no room; an upload whose stored parts already pass the limit is dropped."""
    vendor = require_vendor(actor)
    check_part_number(part_number)
    with session_scope() as session:
        upload = _multipart(session, vendor=vendor, key=key, upload_id=upload_id, lock=True)
        parts = _stored_parts(upload)
        over = sum(p.size for p in parts) > settings.upload_max_file_bytes
        if over:
            _drop(session, upload)
    if over or part_room(parts, part_number) <= 0:
        raise too_large()
    return get_storage().presigned_part_url(upload.key, upload.upload_id or "", part_number,
                                            expires_in=settings.upload_url_ttl_seconds)


def list_parts(*, actor: User | None, key: str | None, upload_id: str | None) -> list[PartInfo]:
    """The parts stored so far (Uppy resumes from these after a reload)."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        upload = _multipart(session, vendor=vendor, key=key, upload_id=upload_id)
    return _stored_parts(upload)


def _clean_parts(parts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    if not parts:
        raise Invalid("At least one part is required", field="parts")
    if len(parts) > max_parts():
        raise Invalid(f"At most {max_parts()} parts are allowed", field="parts")
    for number, etag in parts:
        check_part_number(number)
        if not etag or len(etag) > 128:
            raise Invalid(f"Part {number} has no valid ETag", field="parts")
    return sorted(parts)


def complete_multipart(*, actor: User | None, key: str | None, upload_id: str | None,
                       parts: list[tuple[int, str]]) -> CompletedUpload:
    """Join the parts into the object. Over the size limit the upload is dropped (413)."""
    vendor = require_vendor(actor)
    wanted = _clean_parts(parts)
    if not upload_id:
        raise NotFound(MULTIPART_NOT_FOUND)
    storage = get_storage()
    oversized = False
    with session_scope() as session:
        upload = _multipart(session, vendor=vendor, key=key, upload_id=upload_id, lock=True)
        try:
            stored = {p.part_number: p.size for p in storage.list_parts(upload.key, upload_id)}
            if sum(stored.get(n, 0) for n, _ in wanted) > settings.upload_max_file_bytes:
                _drop(session, upload)
                oversized = True
            else:
                storage.complete_multipart(upload.key, upload_id, wanted)
                upload.upload_id = None
        except NoSuchUpload:
            raise NotFound(MULTIPART_NOT_FOUND) from None
        except StorageError as exc:
            raise Invalid(str(exc), field="parts") from None
    if oversized:
        raise too_large()
    return CompletedUpload(location=storage.object_url(upload.key), key=upload.key, bucket=storage.bucket_name)


def abort_multipart(*, actor: User | None, key: str | None, upload_id: str | None) -> None:
    """Drop the parts and the key: an aborted upload no longer counts against the vendor's open uploads."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        _drop(session, _multipart(session, vendor=vendor, key=key, upload_id=upload_id, lock=True))
