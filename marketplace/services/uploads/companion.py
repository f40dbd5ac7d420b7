"""Multipart uploads in Uppy Companion's S3 protocol, on either backend.

Every call names the key and the storage's uploadId; both must belong to an open multipart upload that the
acting vendor started. A completed or aborted upload has no uploadId any more, so it cannot be resumed.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import NoSuchUpload, PartInfo, StorageError, get_storage
from marketplace.models import Upload, UploadMethod, User
from marketplace.services.errors import Invalid, InvalidParameter, NotFound
from marketplace.services.permissions import require_vendor
from marketplace.services.uploads.records import PayloadTooLarge, owned, record

MAX_PARTS = 10_000
MULTIPART_NOT_FOUND = "Multipart upload not found"
PART_NUMBER_RANGE = f"partNumber must be between 1 and {MAX_PARTS}"


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


def _check_part_number(part_number: int) -> None:
    if not 1 <= part_number <= MAX_PARTS:
        raise InvalidParameter(PART_NUMBER_RANGE, field="partNumber")


def start_multipart(*, actor: User | None, filename: str | None, content_type: str | None) -> MultipartStarted:
    vendor = require_vendor(actor)
    with session_scope() as session:
        upload = record(session, vendor=vendor, method=UploadMethod.MULTIPART, filename=filename,
                        content_type=content_type)
        upload.upload_id = get_storage().create_multipart(upload.key, content_type=upload.content_type)
        return MultipartStarted(key=upload.key, upload_id=upload.upload_id)


def sign_part(*, actor: User | None, key: str | None, upload_id: str | None, part_number: int) -> str:
    """A URL for one PUT of part `part_number`; its answer carries the part's ETag."""
    vendor = require_vendor(actor)
    _check_part_number(part_number)
    with session_scope() as session:
        upload = _multipart(session, vendor=vendor, key=key, upload_id=upload_id)
    return get_storage().presigned_part_url(upload.key, upload_id, part_number,
                                            expires_in=settings.upload_url_ttl_seconds)


def list_parts(*, actor: User | None, key: str | None, upload_id: str | None) -> list[PartInfo]:
    """The parts stored so far (Uppy resumes from these after a reload)."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        upload = _multipart(session, vendor=vendor, key=key, upload_id=upload_id)
    try:
        return get_storage().list_parts(upload.key, upload_id)
    except NoSuchUpload:
        raise NotFound(MULTIPART_NOT_FOUND) from None


def _clean_parts(parts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    if not parts:
        raise Invalid("At least one part is required", field="parts")
    if len(parts) > MAX_PARTS:
        raise Invalid(f"At most {MAX_PARTS} parts are allowed", field="parts")
    for number, etag in parts:
        _check_part_number(number)
        if not etag or len(etag) > 128:
            raise Invalid(f"Part {number} has no valid ETag", field="parts")
    return sorted(parts)


def complete_multipart(*, actor: User | None, key: str | None, upload_id: str | None,
                       parts: list[tuple[int, str]]) -> CompletedUpload:
    """Join the parts into the object. Over the size limit the upload is dropped (413)."""
    vendor = require_vendor(actor)
    wanted = _clean_parts(parts)
    storage = get_storage()
    too_large = False
    with session_scope() as session:
        upload = _multipart(session, vendor=vendor, key=key, upload_id=upload_id, lock=True)
        try:
            stored = {p.part_number: p.size for p in storage.list_parts(upload.key, upload_id)}
            if sum(stored.get(n, 0) for n, _ in wanted) > settings.upload_max_file_bytes:
                storage.abort_multipart(upload.key, upload_id)
                session.delete(upload)
                too_large = True
            else:
                storage.complete_multipart(upload.key, upload_id, wanted)
                upload.upload_id = None
        except NoSuchUpload:
            raise NotFound(MULTIPART_NOT_FOUND) from None
        except StorageError as exc:
            raise Invalid(str(exc), field="parts") from None
    if too_large:
        raise PayloadTooLarge(f"The file is larger than the limit of {settings.upload_max_file_bytes} bytes")
    return CompletedUpload(location=storage.object_url(upload.key), key=upload.key, bucket=storage.bucket_name)


def abort_multipart(*, actor: User | None, key: str | None, upload_id: str | None) -> None:
    """Drop the parts and the key: an aborted upload no longer counts against the vendor's open uploads."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        upload = _multipart(session, vendor=vendor, key=key, upload_id=upload_id, lock=True)
        get_storage().abort_multipart(upload.key, upload_id)
        session.delete(upload)
