"""Pending revisions of live agents, and the file versions behind them (ARCHITECTURE "Agent lifecycle").

A live agent's edits and file changes wait in its one pending `AgentRevision`; its files are collected as
version `current_version + 1`, which starts as copies of the live version's rows (same storage keys). An
object in storage is deleted only once no `AgentFile` row refers to its key any more.

Helpers here take the caller's session: the vendor services (agents, files) and the admin's moderation
use them inside their own transactions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, delete, select

from marketplace.models import Agent, AgentFile, AgentRevision, AgentTag, RevisionStatus, User
from marketplace.models.base import utcnow
from marketplace.services import decisions, scanning
from marketplace.services.errors import Forbidden, NotFound
from marketplace.services.versions.objects import files_of, unreferenced

AGENT_NOT_FOUND = "Agent not found"
NOT_YOUR_AGENT = "You can only change your own agents"
CONCURRENT_CHANGE = "This agent was changed at the same moment by another request. Please try again."
DRAFT_FIELDS = ("name", "short_description", "description", "price_cents", "pricing_model", "activation_limit",
                "trial_days", "category_id", "demo_url", "image_url")


def pending_revision(session: Session, agent: Agent) -> AgentRevision | None:
    return session.exec(select(AgentRevision).where(AgentRevision.agent_id == agent.id,
                                                    AgentRevision.status == RevisionStatus.PENDING)).first()


def open_revision(session: Session, agent: Agent, *, vendor_id: str | None) -> AgentRevision:
    """The agent's pending revision, created (with copies of the live files as its version) if none.
    The caller has claimed the agent (`claim_agent`), so two requests cannot both create one."""
    revision = pending_revision(session, agent)
    if revision is not None:
        return revision
    version = agent.current_version + 1
    # A rejected revision of the same number may have left rows behind only if its cleanup failed; start clean.
    session.exec(delete(AgentFile).where(AgentFile.agent_id == agent.id, AgentFile.version == version))
    for row in files_of(session, agent.id, agent.current_version):
        session.add(AgentFile(agent_id=agent.id, version=version, storage_key=row.storage_key, filename=row.filename,
                              size_bytes=row.size_bytes, content_type=row.content_type, created_at=row.created_at))
    revision = AgentRevision(agent_id=agent.id, vendor_id=vendor_id, version=version)
    session.add(revision)
    session.flush()
    return revision


def count_files(session: Session, agent_id: str, version: int) -> int:
    return session.exec(select(func.count()).select_from(AgentFile)
                        .where(AgentFile.agent_id == agent_id, AgentFile.version == version)).one()


def read_changes(revision: AgentRevision) -> dict[str, Any]:
    try:
        changes = json.loads(revision.changes or "{}")
    except ValueError:
        return {}
    return changes if isinstance(changes, dict) else {}


def write_changes(revision: AgentRevision, changes: dict[str, Any]) -> None:
    revision.changes = json.dumps(changes, sort_keys=True)
    revision.updated_at = utcnow()


def agent_tags(session: Session, agent_id: str) -> list[str]:
    return list(session.exec(select(AgentTag.tag).where(AgentTag.agent_id == agent_id)
                             .order_by(AgentTag.position, AgentTag.tag)).all())


def replace_tags(session: Session, agent_id: str, tags: Iterable[str]) -> None:
    session.exec(delete(AgentTag).where(AgentTag.agent_id == agent_id))
    session.flush()
    for position, tag in enumerate(tags):
        session.add(AgentTag(agent_id=agent_id, tag=tag, position=position))


def changed_fields(agent: Agent, live_tags: list[str], changes: dict[str, Any]) -> list[str]:
    """The draft fields whose proposed value differs from the live listing, in the wizard's order."""
    changed = [name for name in DRAFT_FIELDS if name in changes and changes[name] != getattr(agent, name)]
    if "tags" in changes and list(changes["tags"]) != live_tags:
        changed.append("tags")
    return changed


def apply_changes(session: Session, agent: Agent, changes: dict[str, Any]) -> None:
    for name in DRAFT_FIELDS:
        if name in changes:
            setattr(agent, name, changes[name])
    if "tags" in changes:
        replace_tags(session, agent.id, changes["tags"])


def drop_version(session: Session, agent_id: str, version: int) -> list[str]:
    """Delete a version's rows; answer the storage keys that no row refers to any more (to delete after commit)."""
    keys = {row.storage_key for row in files_of(session, agent_id, version)}
    session.exec(delete(AgentFile).where(AgentFile.agent_id == agent_id, AgentFile.version == version))
    session.flush()
    return unreferenced(session, keys)


@dataclass(frozen=True)
class FileInfo:
    id: str
    filename: str
    size_bytes: int
    content_type: str = "application/octet-stream"
    scan: scanning.ScanView = scanning.PENDING_VIEW  # the file's security scan (its vendor sees the findings)


def file_info(row: AgentFile, scans: dict[str, scanning.ScanView] | None = None) -> FileInfo:
    return FileInfo(id=row.id, filename=row.filename, size_bytes=row.size_bytes, content_type=row.content_type,
                    scan=(scans or {}).get(row.storage_key, scanning.PENDING_VIEW))


def own_agent(session: Session, *, vendor: User, agent_id: str) -> Agent:
    """The vendor's agent as it is now: unknown or deleted -> 404, another vendor's -> 403. A change then
    claims it (`claim_agent`) before writing anything."""
    agent = None
    if agent_id and len(agent_id) <= 64:
        agent = session.exec(select(Agent).where(Agent.id == agent_id)).first()
    if agent is None or agent.deleted_at is not None:
        raise NotFound(AGENT_NOT_FOUND)
    if agent.vendor_id != vendor.id:
        raise Forbidden(NOT_YOUR_AGENT)
    return agent


def claim_agent(session: Session, agent: Agent, values: dict[str, Any] | None = None) -> None:
    """The first write of a vendor's change: the agent is still as read (status, live version, not deleted),
    else 409. Admin decisions claim the same row first (services/admin/moderation.py), so until this change
    commits no decision lands on the agent, its revision or its files, and the other way round. Without
    `values` the row is claimed as it is (a live agent whose change goes to its revision)."""
    decisions.claim(session, Agent, Agent.id == agent.id, Agent.status == agent.status,
                    Agent.current_version == agent.current_version, Agent.deleted_at.is_(None),
                    values=values or {"current_version": Agent.current_version}, conflict=CONCURRENT_CHANGE)
