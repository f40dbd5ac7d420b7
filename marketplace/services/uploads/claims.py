"""Claiming a finished upload for the one attach that may keep it, and dropping uploads that will not be kept.

An attach claims its upload with one conditional UPDATE (services/decisions.py) before it touches the object:
`claimed_key`, where the object is moved while it is checked, is set only if the upload is this vendor's,
finished, unexpired and not claimed yet. Of two attaches of the same upload exactly one wins; the other changes
nothing (409). The winner then either records the file (`finish`, in the transaction that adds its row),
gives the claim back (`release`: the object returns under its upload key), or drops the upload (`drop`:
objects and row go). Until one of those happens the upload still counts as open, and a crash in between
leaves a row the expiry sweep removes with both of its objects (`discard`).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import unquote, urlsplit

from sqlalchemy import delete
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.integrations.storage import ObjectNotFound, get_storage
from marketplace.models import Upload, User
from marketplace.models.base import utcnow
from marketplace.services import decisions
from marketplace.services.errors import Conflict, DomainError, Forbidden, Invalid
from marketplace.services.uploads.records import UPLOAD_ATTACHED, UPLOAD_EXPIRED

NOT_ISSUED = "This file URL was not issued by this marketplace"
FOREIGN_FILE = "This file was uploaded by another vendor"
NOT_FINISHED = "This upload is not finished yet"
CLAIM_LOST = "This upload expired while it was being attached; please upload the file again"
MAX_URL = 4096
# Every URL a finished upload is reported by ends its path with the key: the local target, an S3 presigned
# URL (its query aside) or the location of an S3 object, path-style or virtual-hosted.
_KEY_AT_END = re.compile(r"(?:^|/)(uploads/[0-9a-f]{32})$")


@dataclass(frozen=True)
class Claimed:
    key: str  # where the browser put the object
    stored_key: str  # where the attach moves it, out of reach of any upload URL
    filename: str


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


def _why_not(upload: Upload | None, vendor: User, now: datetime) -> DomainError:
    """Why a claim found nothing to claim (read after the UPDATE, so it describes what won)."""
    if upload is None:
        return Invalid(NOT_ISSUED)
    if upload.vendor_id != vendor.id:
        return Forbidden(FOREIGN_FILE)
    if upload.attached_at is not None or upload.claimed_key is not None:
        return Conflict(UPLOAD_ATTACHED)
    if upload.expires_at <= now:
        return Invalid(UPLOAD_EXPIRED)
    if upload.upload_id is not None:  # a multipart upload that was never completed
        return Invalid(NOT_FINISHED)
    return Conflict(UPLOAD_ATTACHED)


def claim(*, vendor: User, url: str | None, stored_key: str) -> Claimed:
    """Claim the upload `url` reports for one attach (committed before this returns). Refused: not issued
    here (400), another vendor's (403), already attached or being attached (409), expired or unfinished
    (400); a refused claim changes nothing."""
    key = key_from_url(url)
    if key is None:
        raise Invalid(NOT_ISSUED)
    now = utcnow()
    with session_scope() as session:
        won = decisions.claim_any(
            session, Upload, Upload.key == key, Upload.vendor_id == vendor.id, Upload.attached_at.is_(None),
            Upload.claimed_key.is_(None), Upload.expires_at > now, Upload.upload_id.is_(None),
            values={"claimed_key": stored_key})
        upload = session.get(Upload, key)
        if not won or upload is None:
            raise _why_not(upload, vendor, now)
        return Claimed(key=key, stored_key=stored_key, filename=upload.filename)


def claimable(*, vendor: User, url: str | None) -> Claimed:
    """The vendor's finished upload at `url` as a claim would find it, without claiming it (its `stored_key`
    is its own key): for checking a file before anything is attached. Refused as `claim` refuses."""
    key = key_from_url(url)
    if key is None:
        raise Invalid(NOT_ISSUED)
    now = utcnow()
    with session_scope() as session:
        upload = session.get(Upload, key)
        if (upload is None or upload.vendor_id != vendor.id or upload.attached_at is not None
                or upload.claimed_key is not None or upload.expires_at <= now or upload.upload_id is not None):
            raise _why_not(upload, vendor, now)
        return Claimed(key=key, stored_key=key, filename=upload.filename)


def finish(session: Session, claimed: Claimed) -> None:
    """Mark the upload attached, in the caller's transaction (the one that adds the file's row). Its UPDATE is
    that transaction's first write: on SQLite it takes the database's write lock, so what the caller reads
    next is current."""
    decisions.claim(session, Upload, Upload.key == claimed.key, Upload.claimed_key == claimed.stored_key,
                    Upload.attached_at.is_(None), values={"attached_at": utcnow()}, conflict=CLAIM_LOST)


def release(claimed: Claimed) -> None:
    """Give the claim up: the object goes back under its upload key and the upload can be attached again. If
    the row went meanwhile (expired and swept), its object goes too."""
    storage = get_storage()
    with contextlib.suppress(ObjectNotFound):
        storage.move(claimed.stored_key, claimed.key)
    with session_scope() as session:
        lifted = decisions.claim_any(session, Upload, Upload.key == claimed.key,
                                     Upload.claimed_key == claimed.stored_key, Upload.attached_at.is_(None),
                                     values={"claimed_key": None})
    if not lifted:
        storage.delete(claimed.key)


def reopen(*, stored_keys: list[str]) -> None:
    """Undo attaches whose file rows went with a new agent that was taken back (services/vendors/submission.py):
    each object returns under its upload key and the upload can be attached again."""
    if not stored_keys:
        return
    storage = get_storage()
    with session_scope() as session:
        for upload in session.exec(select(Upload).where(Upload.claimed_key.in_(stored_keys),
                                                        Upload.attached_at.is_not(None))).all():
            if upload.claimed_key is None:
                continue  # the query matched its claimed key: never None here
            with contextlib.suppress(ObjectNotFound):
                storage.move(upload.claimed_key, upload.key)
            upload.claimed_key, upload.attached_at = None, None
            session.add(upload)


def drop(claimed: Claimed) -> None:
    """The claimed upload is refused: its objects and its row go (the objects first, so a crash leaves a row
    for the sweep rather than an object nothing names)."""
    with session_scope() as session:
        won = session.exec(delete(Upload).where(Upload.key == claimed.key, Upload.claimed_key == claimed.stored_key,
                                                Upload.attached_at.is_(None))).rowcount
        if won:
            _delete_objects(claimed.key, claimed.stored_key)


def drop_unclaimed(*, vendor: User, url: str | None) -> None:
    """Drop the vendor's finished, unclaimed upload at `url`, if there is one (an attach refused before it
    claimed the upload, e.g. for another vendor's agent)."""
    key = key_from_url(url)
    if key is None:
        return
    with session_scope() as session:
        won = session.exec(delete(Upload).where(Upload.key == key, Upload.vendor_id == vendor.id,
                                                Upload.attached_at.is_(None), Upload.claimed_key.is_(None),
                                                Upload.upload_id.is_(None))).rowcount
        if won:
            _delete_objects(key)


def discard(session: Session, *, upload: Upload) -> bool:
    """Delete an upload that was never attached: its row, its object (and where a claim moved it), and any
    multipart leftovers. False (nothing touched) if it was attached meanwhile."""
    won = session.exec(delete(Upload).where(Upload.key == upload.key, Upload.attached_at.is_(None))).rowcount
    if won:
        if upload.upload_id:
            get_storage().abort_multipart(upload.key, upload.upload_id)
        _delete_objects(upload.key, upload.claimed_key)
    return bool(won)


def _delete_objects(*keys: str | None) -> None:
    storage = get_storage()
    for key in keys:
        if key:
            storage.delete(key)
