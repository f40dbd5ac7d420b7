"""What the scans decide and show: the approval gate, the download gate, and each audience's view of a scan.

- Approval (services/admin/moderation.py): every file of the version going live must have a verdict of clean
  or flagged (an admin decides flagged files, seeing their findings). The gate is one conditional write on
  those scan rows, in the approval's transaction, so a verdict written at the same moment is either seen here
  or sees the approval (services/scanning/effects.py).
- Downloads (services/downloads.py): an infected file is served to nobody; a file without a verdict is served
  only to its vendor.
- Findings (secrets included) are shown to the file's vendor and to admins; buyers see only the date of the
  scan that found nothing (`clean_scanned_at`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, update
from sqlalchemy import select as sa_select
from sqlalchemy.engine import Connection
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Agent, AgentFile, FileScan, ScanStatus

BLOCKED = "This file has been blocked by a security scan."
WAITING = "This file is waiting for its security scan. Please try again in a minute."
INFECTED_REFUSAL = "This agent cannot be approved: a security scan found {finding} in {file}."
SCAN_WAITING_REFUSAL = ("This agent cannot be approved until the security scan of its files is finished "
                        "({file}: {status}).")
SERVED = (ScanStatus.CLEAN, ScanStatus.FLAGGED)


@dataclass(frozen=True)
class ScanView:
    """A file's scan as its vendor and admins see it (`scan` on each file)."""

    status: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    engines: dict[str, Any] = field(default_factory=dict)
    scanned_at: datetime | None = None


PENDING_VIEW = ScanView(status=ScanStatus.PENDING)


def _loads(text: str, default: Any) -> Any:
    try:
        return json.loads(text or "")
    except ValueError:
        return default


def view(row: FileScan | None) -> ScanView:
    if row is None:
        return PENDING_VIEW
    return ScanView(status=row.status, findings=_loads(row.findings, []), engines=_loads(row.engines, {}),
                    scanned_at=row.scanned_at)


def scans_of(session: Session, keys: set[str] | list[str]) -> dict[str, FileScan]:
    keys = set(keys)
    if not keys:
        return {}
    return {row.storage_key: row for row in session.exec(select(FileScan).where(FileScan.storage_key.in_(keys)))}


def views_of(session: Session, keys: set[str] | list[str]) -> dict[str, ScanView]:
    rows = scans_of(session, keys)
    return {key: view(rows.get(key)) for key in keys}


def _first_finding(row: FileScan) -> str:
    findings = [f for f in _loads(row.findings, []) if isinstance(f, dict)]
    malware = [f for f in findings if f.get("kind") == "malware"] or findings
    if not malware:
        return "malware"
    first = malware[0]
    return f"{first.get('name')} ({first.get('member')})" if first.get("member") else str(first.get("name"))


def approval_refusal(session: Session, files: dict[str, str]) -> str | None:
    """Claim the scans of `files` (storage key -> file name) for an approval: None when every one is clean or
    flagged, else why the approval must wait or cannot be. The claim (a no-op update of the rows) holds them
    until the approval commits, so no verdict lands between this check and the commit."""
    if not files:
        return None
    claimed = session.execute(update(FileScan).where(FileScan.storage_key.in_(files), FileScan.status.in_(SERVED))
                              .values(status=FileScan.status)).rowcount or 0
    if claimed == len(files):
        return None
    rows = scans_of(session, files.keys())
    for key, name in sorted(files.items(), key=lambda item: item[1]):
        row = rows.get(key)
        if row is not None and row.status == ScanStatus.INFECTED:
            return INFECTED_REFUSAL.format(finding=_first_finding(row), file=name)
    for key, name in sorted(files.items(), key=lambda item: item[1]):
        row = rows.get(key)
        if row is None or row.status not in SERVED:
            return SCAN_WAITING_REFUSAL.format(file=name, status=row.status if row else ScanStatus.PENDING)
    return SCAN_WAITING_REFUSAL.format(file=next(iter(files.values())), status=ScanStatus.PENDING)


def download_refusal(session: Session, keys: list[str], *, is_vendor: bool) -> str | None:
    """Why these stored files cannot be served now (None: they can): infected -> blocked for everyone; no
    verdict yet -> waiting, except for the files' own vendor."""
    rows = scans_of(session, keys)
    if any(row.status == ScanStatus.INFECTED for row in rows.values()):
        return BLOCKED
    if not is_vendor and any(key not in rows or rows[key].status not in SERVED for key in keys):
        return WAITING
    return None


def clean_scanned_at(conn: Connection | Session, *, agent_id: str) -> datetime | None:
    """For buyers: when the files of the agent's live version were last all found clean (the oldest of their
    verdicts); None when any of them has no clean verdict, or there are none."""
    keys = (sa_select(AgentFile.storage_key).join(Agent, Agent.id == AgentFile.agent_id)
            .where(AgentFile.agent_id == agent_id, AgentFile.version == Agent.current_version).distinct()
            .subquery())
    files, clean, oldest = conn.execute(
        sa_select(func.count(keys.c.storage_key), func.count(FileScan.id), func.min(FileScan.scanned_at))
        .select_from(keys).outerjoin(FileScan, (FileScan.storage_key == keys.c.storage_key)
                                     & (FileScan.status == ScanStatus.CLEAN))).one()
    if not files or clean != files or oldest is None:
        return None
    return oldest if oldest.tzinfo else oldest.replace(tzinfo=UTC)


def summary() -> dict[str, int]:
    """How many stored files have each status (the rescan command's report)."""
    with session_scope() as session:
        return dict(session.exec(select(FileScan.status, func.count()).group_by(FileScan.status)).all())
