"""The `uploads` rows: every object key the app issues, to whom and until when, and the checks on them."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta

from sqlalchemy import delete, func
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import Upload, UploadMethod, User
from marketplace.models.base import new_id, utcnow
from marketplace.services.errors import DomainError, Forbidden, Invalid, NotFound, TooManyRequests

KEY_PREFIX = "uploads/"
KEY_PATTERN = re.compile(r"uploads/[0-9a-f]{32}")
MAX_FILENAME = 255
MAX_CONTENT_TYPE = 255
DEFAULT_CONTENT_TYPE = "application/octet-stream"
_CONTENT_TYPE = re.compile(r"[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\s*;[\x20-\x7e]*)?")

UPLOAD_NOT_FOUND = "Upload not found"
FOREIGN_UPLOAD = "This upload belongs to another vendor"
UPLOAD_EXPIRED = "This upload has expired; please upload the file again"
UPLOAD_ATTACHED = "This file is already attached to an agent"


class PayloadTooLarge(DomainError):
    status = 413


def too_large() -> PayloadTooLarge:
    return PayloadTooLarge(f"The file is larger than the limit of {settings.upload_max_file_bytes} bytes")


def too_many_open_message() -> str:
    return (f"You have {settings.upload_max_open_per_vendor} unfinished uploads. Attach them to an agent or "
            f"wait until they expire (after {settings.upload_expire_hours} hours) before uploading more files.")


def clean_filename(value: str | None) -> str:
    """The original file name, kept as metadata only: control characters dropped, bounded, never a path."""
    name = "".join(ch for ch in (value or "") if unicodedata.category(ch)[0] != "C")
    name = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return name[:MAX_FILENAME] or "file"


def clean_content_type(value: str | None) -> str:
    value = (value or "").strip()
    if not value:
        return DEFAULT_CONTENT_TYPE
    if len(value) > MAX_CONTENT_TYPE or not _CONTENT_TYPE.fullmatch(value):
        raise Invalid("Invalid file type", field="type")
    return value


def open_count(session: Session, vendor_id: str, *, now: datetime) -> int:
    query = select(func.count()).select_from(Upload).where(
        Upload.vendor_id == vendor_id, Upload.attached_at.is_(None), Upload.expires_at > now)
    return int(session.exec(query).one())


def record(*, vendor: User, method: str, filename: str | None, content_type: str | None) -> Upload:
    """A new key for `vendor`, refused past the open-upload limit (so nobody fills the storage with strays).

    Counted first, then checked (as services/ratelimit.py does): the row is committed before the vendor's open
    uploads are counted, so of requests arriving together the later ones always see the earlier ones, on SQLite
    and PostgreSQL alike, and no more than the limit can pass. A refused request takes its row back. A
    multipart upload is recorded with `upload_id` "" (not finished, nothing to resume yet) until the storage
    has started it.
    """
    now = utcnow()
    upload = Upload(key=f"{KEY_PREFIX}{new_id()}", vendor_id=vendor.id, method=method,
                    upload_id="" if method == UploadMethod.MULTIPART else None,
                    filename=clean_filename(filename), content_type=clean_content_type(content_type),
                    created_at=now, expires_at=now + timedelta(hours=settings.upload_expire_hours))
    with session_scope() as session:
        session.add(upload)
    with session_scope() as session:
        over = open_count(session, vendor.id, now=now) > settings.upload_max_open_per_vendor
        if over:
            session.exec(delete(Upload).where(Upload.key == upload.key))
    if over:
        raise TooManyRequests(too_many_open_message())
    return upload


def owned(session: Session, *, vendor: User, key: str | None, lock: bool = False) -> Upload:
    """The open upload `key` issued to `vendor`: NotFound if unknown, Forbidden if another vendor's,
    Invalid once attached or expired."""
    if not key or not KEY_PATTERN.fullmatch(key):
        raise NotFound(UPLOAD_NOT_FOUND)
    upload = session.get(Upload, key, with_for_update=lock)
    if upload is None:
        raise NotFound(UPLOAD_NOT_FOUND)
    if upload.vendor_id != vendor.id:
        raise Forbidden(FOREIGN_UPLOAD)
    check_open(upload)
    return upload


def check_open(upload: Upload, *, now: datetime | None = None) -> None:
    if upload.attached_at is not None or upload.claimed_key is not None:
        raise Invalid(UPLOAD_ATTACHED)
    if upload.expires_at <= (now or utcnow()):
        raise Invalid(UPLOAD_EXPIRED)
