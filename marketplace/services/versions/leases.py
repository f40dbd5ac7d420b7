"""Leases of downloads in flight: a stored object is not deleted while a download reads it.

Race-free without locks, by the order of commits on both sides:
- a download reads its version's files, commits a lease on each key, then reads the files again in a new
  transaction and streams only if every leased key still belongs to that version;
- a deletion first commits the removal of a version's file rows, then (in a new transaction) deletes only the
  objects that no file row refers to and no unexpired lease holds (`objects.delete_objects`).
If the deletion looks before the lease is committed, the rows were already gone when the download read again, so
the download answers 404 instead of streaming; otherwise the deletion sees the lease and keeps the object.
The stream's end removes the lease and deletes what was kept only for it; a lease a crashed worker left behind
expires (`LEASE_TTL`) and `sweep` deletes what it held.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import timedelta

from sqlmodel import delete, select

from marketplace.db import session_scope
from marketplace.models import DownloadLease
from marketplace.models.base import new_id, utcnow
from marketplace.services.versions import objects

LEASE_TTL = timedelta(hours=6)  # longer than any download of the largest agent on a slow line


def take(keys: Iterable[str]) -> str:
    """Lease `keys` for one download (committed when this returns); answers the download's id."""
    download_id = new_id()
    expires = utcnow() + LEASE_TTL
    with session_scope() as session:
        for key in sorted(set(keys)):
            session.add(DownloadLease(download_id=download_id, storage_key=key, expires_at=expires))
    return download_id


def release(download_id: str) -> None:
    """The download ended (sent, failed or cut off): drop its leases, then delete the objects that only it kept."""
    with session_scope() as session:
        keys = list(
            session.exec(select(DownloadLease.storage_key).where(DownloadLease.download_id == download_id)).all()
        )
        session.exec(delete(DownloadLease).where(DownloadLease.download_id == download_id))
    objects.delete_objects(keys)


def sweep() -> int:
    """Drop expired leases and delete the objects they alone kept; answers how many leases were dropped."""
    with session_scope() as session:
        rows = session.exec(
            select(DownloadLease.id, DownloadLease.storage_key).where(DownloadLease.expires_at <= utcnow())
        ).all()
        if rows:
            session.exec(delete(DownloadLease).where(DownloadLease.id.in_([row[0] for row in rows])))
    objects.delete_objects(row[1] for row in rows)
    return len(rows)


def streamed(chunks: Iterator[bytes], download_id: str) -> Iterator[bytes]:
    """`chunks`, releasing the download's leases when the stream ends, however it ends (a client that goes away
    closes the generator)."""
    try:
        yield from chunks
    finally:
        release(download_id)
