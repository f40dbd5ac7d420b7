"""Published versions of agents (label, release notes, files) and the leases of downloads in flight.

A row of `agent_versions` is written when an admin approves a revision that changes files (and, for an agent
live before versions were kept, for the version it replaces): what buyers see in the changelog and download
with `?version=`. `files` keeps the version's file names, sizes and storage keys as JSON, so the changelog
still lists them once the version's objects are gone.
"""

from __future__ import annotations

from datetime import datetime

import pydantic
from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiModel, new_id, utcnow


class AgentVersion(SQLModel, table=True):
    __tablename__ = "agent_versions"
    __table_args__ = (UniqueConstraint("agent_id", "version"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32, ondelete="CASCADE")
    version: int  # the file-set version (agent_files.version) it published
    label: str = Field(max_length=32)
    release_notes: str = Field(default="", sa_column=Column(Text, nullable=False, default=""))
    files: str = Field(default="[]", sa_column=Column(Text, nullable=False, default="[]"))  # [{name,size,key}]
    approved_at: datetime = Field(default_factory=utcnow)


class DownloadLease(SQLModel, table=True):
    """One stored object read by a download in flight: its object is not deleted while the lease lasts.

    Written (committed) before the download checks its files a second time, removed when the stream ends;
    `expires_at` frees what a crashed worker left behind (services/versions/leases.py)."""

    __tablename__ = "download_leases"
    __table_args__ = (Index("ix_download_leases_key_expires", "storage_key", "expires_at"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    download_id: str = Field(max_length=32, index=True)
    storage_key: str = Field(max_length=500)
    expires_at: datetime


# ---- API schemas (camelCase on the wire) ----------------------------------------------------------------


class VersionFilePublic(ApiModel):
    filename: str
    size_bytes: int


class AgentVersionPublic(ApiModel):
    """One published version of an agent, as its changelog shows it."""

    label: str
    released_at: datetime
    release_notes: str = pydantic.Field(description="Markdown, as the vendor wrote it")
    release_notes_html: str = pydantic.Field(description="The notes rendered as safe HTML (no raw HTML kept)")
    files: list[VersionFilePublic]
    current: bool
