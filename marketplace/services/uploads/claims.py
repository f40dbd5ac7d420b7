"""Turning a finished upload's URL back into the issued key, and dropping uploads that will not be kept."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from sqlalchemy import delete
from sqlmodel import Session

from marketplace.integrations.storage import get_storage
from marketplace.models import Upload, User
from marketplace.models.base import utcnow
from marketplace.services.errors import Forbidden, Invalid
from marketplace.services.uploads.records import UPLOAD_ATTACHED, UPLOAD_EXPIRED

NOT_ISSUED = "This file URL was not issued by this marketplace"
FOREIGN_FILE = "This file was uploaded by another vendor"
NOT_FINISHED = "This upload is not finished yet"
MAX_URL = 4096
# Every URL a finished upload is reported by ends its path with the key: the local target, an S3 presigned
# URL (its query aside) or the location of an S3 object, path-style or virtual-hosted.
_KEY_AT_END = re.compile(r"(?:^|/)(uploads/[0-9a-f]{32})$")


def key_from_url(url: str | None) -> str | None:
    if not url or len(url) > MAX_URL:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    match = _KEY_AT_END.search(unquote(parts.path))
    return match.group(1) if match else None


def claim(session: Session, *, vendor: User, url: str | None) -> Upload:
    """The upload issued to `vendor` that `url` reports, still open and finished.

    The caller checks the object itself (size, type) and sets `attached_at` in the same transaction; the
    row is locked (PostgreSQL) so the same upload cannot be attached twice.
    """
    key = key_from_url(url)
    upload = session.get(Upload, key, with_for_update=True) if key else None
    if upload is None:
        raise Invalid(NOT_ISSUED)
    if upload.vendor_id != vendor.id:
        raise Forbidden(FOREIGN_FILE)
    if upload.attached_at is not None:
        raise Invalid(UPLOAD_ATTACHED)
    if upload.expires_at <= utcnow():
        raise Invalid(UPLOAD_EXPIRED)
    if upload.upload_id is not None:  # a multipart upload that was never completed
        raise Invalid(NOT_FINISHED)
    return upload


def discard(session: Session, *, upload: Upload) -> None:
    """Delete the stored object, any multipart leftovers, and the row."""
    storage = get_storage()
    if upload.upload_id:
        storage.abort_multipart(upload.key, upload.upload_id)
    storage.delete(upload.key)
    session.exec(delete(Upload).where(Upload.key == upload.key))
