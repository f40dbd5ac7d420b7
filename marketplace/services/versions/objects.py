"""The stored objects of an agent's versions: which file rows a version has, which keys no row refers to any
more, and deleting those that no download in flight holds (leases.py says why that order is race-free)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlmodel import Session, delete, select

from marketplace.db import session_scope
from marketplace.integrations.storage import get_storage
from marketplace.models import AgentFile, DownloadLease, Upload
from marketplace.models.base import utcnow


def files_of(session: Session, agent_id: str, version: int) -> list[AgentFile]:
    return list(session.exec(select(AgentFile).where(AgentFile.agent_id == agent_id, AgentFile.version == version)
                             .order_by(AgentFile.created_at, AgentFile.id)).all())


def unreferenced(session: Session, keys: Iterable[str]) -> list[str]:
    keys = set(keys)
    if not keys:
        return []
    used = set(session.exec(select(AgentFile.storage_key).where(AgentFile.storage_key.in_(keys))).all())
    return sorted(keys - used)


def held(session: Session, keys: Iterable[str]) -> set[str]:
    """The keys among `keys` that a download in flight holds."""
    keys = set(keys)
    if not keys:
        return set()
    return set(
        session.exec(
            select(DownloadLease.storage_key).where(
                DownloadLease.storage_key.in_(keys), DownloadLease.expires_at > utcnow()
            )
        ).all()
    )


def delete_objects(keys: Iterable[str]) -> None:
    """Delete stored objects (after the commit that dropped their last rows) and their upload records; an object
    a download in flight holds stays until that download ends (services/versions/leases.py)."""
    keys = sorted(set(keys))
    if not keys:
        return
    storage = get_storage()
    with session_scope() as session:
        still_used = set(session.exec(select(AgentFile.storage_key).where(AgentFile.storage_key.in_(keys))).all())
        still_used |= held(session, keys)
        gone = [key for key in keys if key not in still_used]
        if gone:
            session.exec(delete(Upload).where(Upload.key.in_(gone)))
    for key in gone:
        storage.delete(key)
