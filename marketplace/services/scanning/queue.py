"""Scanning stored files off the request, from any number of processes, as the mail outbox sends mail.

A file's scan row (`file_scans`, one per stored object) is written pending in the transaction that stores the
file (`enqueue`), so a crash right after loses no scan. `drain` scans every row that is due: rows are claimed a
few at a time with one conditional update (still due) that moves their `due_at` past a lease and counts the
attempt, committed before the scan; so two scanners never scan the same file at once, and a file whose scanner
died is due again once the lease ends. A verdict is written with a condition on the attempt (the lease is still
ours), in one transaction with what it causes (services/scanning/effects.py). A failed scan (clamd down, the
object unreadable) is due again `SCAN_RETRY_DELAY_SECONDS` later, doubling up to MAX_RETRY_DELAY, and never
dropped; a file that has no verdict yet shows `error` meanwhile, one that has keeps its verdict.

Rescans: `queue_all` (`python -m marketplace.scan --all`), and `queue_stale` run by every scanner each hour:
files whose verdict is older than `SCAN_RESCAN_HOURS` (the daily rescan) or was given by other engines,
rules or signatures than the current ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import event, or_, update
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import AgentFile, FileScan, FindingKind, ScanStatus
from marketplace.models.base import utcnow
from marketplace.services import decisions
from marketplace.services.errors import Conflict
from marketplace.services.scanning import effects, engines
from marketplace.services.scanning.findings import Finding

log = logging.getLogger(__name__)

LEASE = timedelta(minutes=10)  # a 50 MB archive of many members takes seconds; the lease leaves a wide margin
CLAIM_BATCH = 4
POLL_SECONDS = 5.0
STALE_EVERY_SECONDS = 3600
MAX_RETRY_DELAY = timedelta(hours=6)
QUEUED = "marketplace_queued_scans"
_scanners: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []


@dataclass(frozen=True)
class Claimed:
    id: str
    storage_key: str
    attempts: int
    status: str


def enqueue(session: Session, keys: Iterable[str]) -> None:
    """Queue a scan of each stored object in `keys` inside `session`'s transaction (a key that has a scan row
    already is queued again); the scanners of this process are woken when it commits."""
    keys = sorted(set(keys))
    if not keys:
        return
    known = set(session.exec(select(FileScan.storage_key).where(FileScan.storage_key.in_(keys))).all())
    now = utcnow()
    for key in keys:
        if key not in known:
            session.add(FileScan(storage_key=key, due_at=now))
    if known:
        session.execute(update(FileScan).where(FileScan.storage_key.in_(known), FileScan.due_at.is_(None))
                        .values(due_at=now))
    session.info[QUEUED] = True


@event.listens_for(Session, "after_commit")
def _wake_scanner(session: Session) -> None:
    if session.info.pop(QUEUED, False):
        wake()


@event.listens_for(Session, "after_rollback")
def _forget(session: Session) -> None:
    session.info.pop(QUEUED, None)


def verdict(findings: list[Finding]) -> str:
    """Malware makes a file infected; anything else found flags it for an admin; nothing found: clean."""
    if any(f.kind == FindingKind.MALWARE for f in findings):
        return ScanStatus.INFECTED
    return ScanStatus.FLAGGED if findings else ScanStatus.CLEAN


def drain(*, now: datetime | None = None) -> int:
    """Scan every file due at `now` (default: the current time); answers how many verdicts were written."""
    written = 0
    engine_set: engines.EngineSet | None = None
    while True:
        moment = now or utcnow()
        batch = _claim_due(moment)
        if not batch:
            return written
        for claimed in batch:
            try:
                engine_set = engine_set or engines.engine_set()
                filename = _filename(claimed.storage_key)
                findings = engines.scan_object(key=claimed.storage_key, filename=filename)
            except engines.ScanFailed as error:
                _failed(claimed, moment, str(error))
                continue
            except Exception as error:  # a bug in an engine must not stop the queue: recorded, retried
                log.exception("scan of %s: unexpected error", claimed.storage_key)
                _failed(claimed, moment, f"unexpected error: {error}")
                continue
            if _record(claimed, findings, engine_set):
                written += 1


def _filename(key: str) -> str:
    with session_scope() as session:
        name = session.exec(select(AgentFile.filename).where(AgentFile.storage_key == key)).first()
    return name or key.rsplit("/", 1)[-1]


def _claim_due(moment: datetime) -> list[Claimed]:
    table = FileScan.__table__
    due = (select(table.c.id).where(table.c.due_at <= moment).order_by(table.c.due_at, table.c.created_at)
           .limit(CLAIM_BATCH).scalar_subquery())
    claim = (update(table).where(table.c.id.in_(due), table.c.due_at <= moment)
             .values(due_at=moment + LEASE, attempts=table.c.attempts + 1)
             .returning(table.c.id, table.c.storage_key, table.c.attempts, table.c.status))
    with session_scope() as session:
        rows = session.execute(claim).all()
    return [Claimed(id=r.id, storage_key=r.storage_key, attempts=r.attempts, status=r.status) for r in rows]


def _record(claimed: Claimed, findings: list[Finding], engine_set: engines.EngineSet) -> bool:
    """Write the verdict (unless the lease was lost) and, in the same transaction, what it causes."""
    status = verdict(findings)
    try:
        with session_scope() as session:
            decisions.claim(session, FileScan, FileScan.id == claimed.id, FileScan.attempts == claimed.attempts,
                            values={"status": status, "findings": json.dumps([f.as_dict() for f in findings]),
                                    "engines": json.dumps(engine_set.versions, sort_keys=True),
                                    "engines_key": engine_set.key, "scanned_at": utcnow(), "due_at": None,
                                    "attempts": 0, "last_error": None},
                            conflict="lease lost")
            effects.verdict_written(session, key=claimed.storage_key, before=claimed.status, after=status,
                                    findings=findings)
    except Conflict:
        return False
    log.info("scan of %s: %s (%d findings)", claimed.storage_key, status, len(findings))
    return True


def _failed(claimed: Claimed, moment: datetime, error: str) -> None:
    delay = min(timedelta(seconds=settings.scan_retry_delay_seconds * 2 ** (claimed.attempts - 1)), MAX_RETRY_DELAY)
    log.warning("scan of %s failed (attempt %d), retry in %s: %s", claimed.storage_key, claimed.attempts, delay, error)
    values: dict[str, object] = {"due_at": moment + delay, "last_error": error[:2000]}
    if claimed.status in (ScanStatus.PENDING, ScanStatus.ERROR):
        values["status"] = ScanStatus.ERROR
    with session_scope() as session:
        decisions.claim_any(session, FileScan, FileScan.id == claimed.id, FileScan.attempts == claimed.attempts,
                            values=values)


def queue_all() -> int:
    """Queue every stored file for a scan (rules or signatures changed); answers how many were queued."""
    with session_scope() as session:
        queued = session.execute(update(FileScan).where(FileScan.due_at.is_(None)).values(due_at=utcnow())).rowcount
        missing = set(session.exec(select(AgentFile.storage_key).distinct()).all()) - set(
            session.exec(select(FileScan.storage_key)).all())
        enqueue(session, missing)
        session.info[QUEUED] = True
    return (queued or 0) + len(missing)


def queue_stale(*, engines_key: str | None, now: datetime | None = None) -> int:
    """Queue the files whose verdict is older than the rescan period, or was given by other engines than
    `engines_key` (None: clamd did not answer, so only the age counts)."""
    moment = now or utcnow()
    stale = [FileScan.scanned_at < moment - timedelta(hours=settings.scan_rescan_hours)]
    if engines_key is not None:
        stale.append(FileScan.engines_key != engines_key)
    with session_scope() as session:
        return session.execute(update(FileScan).where(FileScan.due_at.is_(None), FileScan.scanned_at.is_not(None),
                                                      or_(*stale)).values(due_at=moment)).rowcount or 0


def wake() -> None:
    """Have this process's scanner drain now (called after a commit that queued scans; any thread)."""
    for loop, ready in list(_scanners):
        with contextlib.suppress(RuntimeError):  # that loop has closed
            loop.call_soon_threadsafe(ready.set)


def _queue_stale_now() -> None:
    try:
        key: str | None = engines.engine_set().key
    except engines.ScanFailed:
        key = None
    queue_stale(engines_key=key)


async def scan_forever() -> None:
    """Lifespan task: drain on start, on `wake` and every `POLL_SECONDS`, in a worker thread, never dying;
    every hour it queues the stale verdicts (the daily rescan, and a rescan when the engines changed)."""
    scanner = (asyncio.get_running_loop(), asyncio.Event())
    _scanners.append(scanner)
    next_stale = time.monotonic()
    try:
        while True:
            scanner[1].clear()
            try:
                if time.monotonic() >= next_stale:
                    next_stale = time.monotonic() + STALE_EVERY_SECONDS
                    await asyncio.to_thread(_queue_stale_now)
                await asyncio.to_thread(drain)
            except Exception:
                log.exception("file scans: scanning failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(scanner[1].wait(), POLL_SECONDS)
    finally:
        _scanners.remove(scanner)
