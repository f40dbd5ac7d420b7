"""Expiry of uploads that were never attached: their objects, rows and abandoned multipart parts go."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from sqlmodel import select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import get_storage
from marketplace.models import Upload
from marketplace.models.base import utcnow
from marketplace.services.uploads.claims import discard
from marketplace.services.versions import leases

log = logging.getLogger(__name__)
BATCH = 200


def expire_stale(*, now: datetime | None = None) -> int:
    """Remove every expired, unattached upload (claimed ones too: an attach that outlived its upload finds
    its claim gone and records nothing); returns how many. Also aborts multipart uploads older than
    the expiry that no open upload row knows (left behind by a crash or a deleted row)."""
    now = now or utcnow()
    removed = 0
    while True:
        with session_scope() as session:
            rows = session.exec(select(Upload).where(Upload.attached_at.is_(None), Upload.expires_at <= now)
                                .order_by(Upload.expires_at).limit(BATCH)).all()
            removed += sum(discard(session, upload=upload) for upload in rows)
        if len(rows) < BATCH:
            break
    storage = get_storage()
    stale = storage.stale_multiparts(older_than=now - timedelta(hours=settings.upload_expire_hours))
    if stale:
        with session_scope() as session:
            known = set(session.exec(select(Upload.upload_id).where(
                Upload.upload_id.in_([s.upload_id for s in stale]))).all())
        for item in stale:
            if item.upload_id not in known:
                storage.abort_multipart(item.key, item.upload_id)
    return removed


async def sweep_forever() -> None:
    """Lifespan task: run `expire_stale` (and drop the download leases a crashed worker left behind, deleting
    the objects only they kept: services/versions/leases.py) every `upload_sweep_seconds`, in a worker thread,
    never dying."""
    while True:
        try:
            removed = await asyncio.to_thread(expire_stale)
            if removed:
                log.info("removed %d expired uploads", removed)
        except Exception:
            log.exception("upload sweep failed")
        try:
            await asyncio.to_thread(leases.sweep)
        except Exception:
            log.exception("download lease sweep failed")
        await asyncio.sleep(settings.upload_sweep_seconds)
