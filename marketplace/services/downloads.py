"""Agent downloads: every file of an agent in one zip, for its buyers, its vendor and admins."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath

from sqlmodel import select

from marketplace.db import session_scope
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentFile, Purchase, Role, User
from marketplace.services.errors import Forbidden, Invalid, NotFound
from marketplace.services.permissions import require_user

NO_ACCESS = "You don't have access to download this file."
NOT_FOUND = "File not found."
MAX_ARCHIVE_BYTES = 200 * 1024 * 1024  # agent files are small; the zip is built in memory


@dataclass(frozen=True)
class Archive:
    filename: str
    content: bytes


def archive_name(agent_name: str) -> str:
    """'My Agent v2!' -> 'My_Agent_v2__files.zip' (every non-alphanumeric character becomes '_')."""
    return re.sub(r"[^A-Za-z0-9]", "_", agent_name) + "_files.zip"


def can_download(session, *, user: User, agent: Agent) -> bool:  # noqa: ANN001 - sqlmodel Session
    if user.role == Role.ADMIN or (agent.vendor_id is not None and agent.vendor_id == user.id):
        return True
    return session.exec(select(Purchase.id).where(Purchase.user_id == user.id,
                                                  Purchase.agent_id == agent.id)).first() is not None


def _entry_name(filename: str, used: set[str]) -> str:
    name = PurePosixPath(filename.replace("\\", "/")).name.strip() or "file"
    stem, suffix = PurePosixPath(name).stem, PurePosixPath(name).suffix
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{stem} ({n}){suffix}"
    used.add(candidate)
    return candidate


def agent_archive(*, actor: User | None, agent_id: str) -> Archive:
    user = require_user(actor)
    with session_scope() as session:
        agent = session.get(Agent, agent_id)
        if agent is None:
            raise NotFound(NOT_FOUND)
        if not can_download(session, user=user, agent=agent):
            raise Forbidden(NO_ACCESS)
        files = session.exec(select(AgentFile).where(AgentFile.agent_id == agent.id)
                             .order_by(AgentFile.created_at, AgentFile.id)).all()
        name = agent.name
    if not files:
        raise NotFound(NOT_FOUND)
    storage = get_storage()
    buffer = io.BytesIO()
    total, used = 0, set()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for row in files:
            data = storage.get(row.storage_key)
            if data is None:
                raise NotFound(NOT_FOUND)
            total += len(data)
            if total > MAX_ARCHIVE_BYTES:
                raise Invalid("This agent's files are too large to download at once")
            archive.writestr(_entry_name(row.filename, used), data)
    return Archive(filename=archive_name(name), content=buffer.getvalue())
