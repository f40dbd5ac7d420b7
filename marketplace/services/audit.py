"""The audit log: every admin write records who did what to which record, in the write's own transaction."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import AuditEntry, User
from marketplace.services import audit_words
from marketplace.services.errors import InvalidParameter
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin

MAX_OFFSET = 1_000_000
MAX_SEARCH = 200
SYSTEM_ACTOR = "security-scan"


def record(session: Session, *, actor: User | None, action: str, target_type: str, target_id: str | None = None,
           details: dict[str, Any] | None = None) -> AuditEntry:
    """Add an entry to `session` (committed, or rolled back, with the write it describes). `actor` None: the
    app itself decided (a security scan blocking a file), recorded as SYSTEM_ACTOR."""
    entry = AuditEntry(actor_id=actor.id if actor else None, actor_username=actor.username if actor else SYSTEM_ACTOR,
                       action=action, target_type=target_type,
                       target_id=str(target_id or "")[:64],
                       details=json.dumps(details or {}, default=str, sort_keys=True))
    session.add(entry)
    return entry


@dataclass(frozen=True)
class AuditRecord:
    id: str
    actor_id: str | None
    actor_username: str
    action: str
    target_type: str
    target_id: str
    details: dict[str, Any]
    created_at: datetime
    summary: str = ""  # the entry in words (services/audit_words)


def _like(term: str) -> str:
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped.lower()}%"


def list_entries(*, actor: User | None, limit: int = 50, offset: int = 0,
                 search: str | None = None) -> tuple[list[AuditRecord], int]:
    """Newest first, with the number of matches on all pages; `search` matches the actor's username, the
    action or the target id (case-insensitive)."""
    require_admin(actor)
    check_page(limit=limit, offset=offset, max_offset=MAX_OFFSET)
    term = (search or "").strip()
    if len(term) > MAX_SEARCH:
        raise InvalidParameter(f"search must be at most {MAX_SEARCH} characters", field="search")
    conditions = []
    if term:
        pattern = _like(term)
        conditions.append(or_(func.lower(AuditEntry.actor_username).like(pattern, escape="\\"),
                              func.lower(AuditEntry.action).like(pattern, escape="\\"),
                              func.lower(AuditEntry.target_id).like(pattern, escape="\\")))
    with session_scope() as session:
        total = session.exec(select(func.count()).select_from(AuditEntry).where(*conditions)).one()
        rows = session.exec(select(AuditEntry).where(*conditions)
                            .order_by(AuditEntry.created_at.desc(), AuditEntry.id.desc())
                            .offset(offset).limit(limit)).all()
        records = [AuditRecord(id=r.id, actor_id=r.actor_id, actor_username=r.actor_username, action=r.action,
                               target_type=r.target_type, target_id=r.target_id,
                               details=json.loads(r.details or "{}"), created_at=r.created_at) for r in rows]
        words = audit_words.summaries(session, records)
    return [replace(record, summary=text) for record, text in zip(records, words, strict=True)], total
