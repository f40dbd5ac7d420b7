"""Security scans of stored agent files: one row per stored object (services/scanning), and the API's view of it.

A scan belongs to the object (`storage_key`), not to an `AgentFile` row: a revision's copies of the live files
share their objects, so they share their verdict.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiModel, new_id, utcnow


class ScanStatus(StrEnum):
    PENDING = "pending"  # never scanned yet (or every attempt so far failed before a first verdict: see ERROR)
    CLEAN = "clean"
    FLAGGED = "flagged"  # dangerous code, a pickle import, a secret or an archive limit: an admin decides
    INFECTED = "infected"  # malware: never approved, never served
    ERROR = "error"  # no verdict yet because the scan failed; retried with backoff


class FindingKind(StrEnum):
    MALWARE = "malware"
    CODE = "code"
    PICKLE = "pickle"
    SECRET = "secret"
    ARCHIVE = "archive"


class FileScan(SQLModel, table=True):
    """The scan of one stored object. `status` is the last verdict; a rescan keeps it until a new one is
    written, so a live file stays downloadable while it is scanned again.

    `due_at` is when a scanner may next take it: at first when it was stored, while a scanner holds it the end
    of that scanner's lease, after a failed attempt the retry time; None when nothing is queued. `engines_key`
    names the engines and signatures of the last verdict, so a change of rules or signatures queues a rescan."""

    __tablename__ = "file_scans"
    __table_args__ = (Index("ix_file_scans_due_at", "due_at"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    storage_key: str = Field(max_length=500, unique=True)
    status: str = Field(default=ScanStatus.PENDING, max_length=16)
    findings: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))
    engines: str = Field(default="{}", sa_column=Column(Text, nullable=False, default="{}"))
    engines_key: str = Field(default="", max_length=200)
    scanned_at: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    due_at: datetime | None = None  # set by `enqueue` (services/scanning/queue.py)
    attempts: int = 0
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))


class ScanFindingPublic(ApiModel):
    kind: str
    name: str
    member: str | None = None  # the path inside an archive; None for the file itself
    detail: str = ""


class FileScanPublic(ApiModel):
    """`scan` on a file as the admin and its vendor see it (buyers never see findings: they get `scannedAt`)."""

    status: str
    findings: list[ScanFindingPublic]
    engines: dict[str, Any]
    scanned_at: datetime | None = None
