"""The admin agent table: every agent not deleted (any status), newest first, paged and searchable (admin only).

Pages come from ix_agents_admin_created / ix_agents_admin_status (revision 0011); vendor usernames, category
names and tags are read for the page's rows only.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Agent, AgentStatus, AgentTag, Category, User
from marketplace.services import table_search as text_search
from marketplace.services.errors import InvalidParameter
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin

MAX_OFFSET = 100_000
STATUSES = tuple(s.value for s in AgentStatus)


@dataclass(frozen=True)
class AdminAgentRow:
    id: str
    name: str
    short_description: str
    description: str
    price_cents: int
    pricing_model: str
    status: str
    is_approved: bool
    avg_rating: float
    review_count: int
    vendor_id: str | None
    vendor_username: str | None  # None: no vendor or a deleted one (the UI says Unknown)
    category_id: int | None
    category_name: str | None
    demo_url: str | None
    image_url: str | None
    tags: list[str]
    created_at: datetime
    rejection_reason: str | None = None
    reviewed_at: datetime | None = None
    trial_days: int = 0


def _status(status: str | None) -> str | None:
    if status in (None, "", "all"):
        return None
    if status not in STATUSES:
        raise InvalidParameter("status must be pending, approved, rejected or all", field="status")
    return status


def list_agents(*, actor: User | None, limit: int = 20, offset: int = 0, search: str | None = None,
                status: str | None = None) -> tuple[list[AdminAgentRow], int]:
    """Agents not deleted, newest first, with their vendor and category; `search` matches name or short
    description; `status` (pending, approved, rejected) narrows to one status (the approvals sub-tabs)."""
    require_admin(actor)
    check_page(limit=limit, offset=offset, max_offset=MAX_OFFSET)
    wanted = _status(status)
    like = text_search.pattern(search)
    rows = text_search.source(Agent.__table__, search)
    conditions: list[ColumnElement[bool]] = [rows.c.deleted_at.is_(None)]
    if wanted is not None:
        conditions.append(rows.c.status == wanted)
    if like is not None:
        conditions.append(text_search.matches(like, rows.c.name, rows.c.short_description))
    with session_scope() as session:
        # The page's ids first (without a search an index-only scan, however deep the offset), then those rows.
        ids, total = text_search.page_and_total(session, rows=rows, conditions=conditions, limit=limit,
                                                offset=offset)
        by_id = {a.id: a for a in session.exec(select(Agent).where(Agent.id.in_(ids))).all()} if ids else {}
        agents = [by_id[i] for i in ids if i in by_id]
        vendor_ids = {a.vendor_id for a in agents if a.vendor_id}
        category_ids = {a.category_id for a in agents if a.category_id is not None}
        vendors = dict(session.exec(select(User.id, User.username).where(
            User.id.in_(vendor_ids), User.deleted_at.is_(None))).all()) if vendor_ids else {}
        categories = dict(session.exec(select(Category.id, Category.name).where(
            Category.id.in_(category_ids))).all()) if category_ids else {}
        tags: dict[str, list[str]] = {}
        if agents:
            for agent_id, tag in session.exec(select(AgentTag.agent_id, AgentTag.tag).where(
                    AgentTag.agent_id.in_([a.id for a in agents])).order_by(AgentTag.position, AgentTag.tag)):
                tags.setdefault(agent_id, []).append(tag)
    found = [AdminAgentRow(
        id=a.id, name=a.name, short_description=a.short_description, description=a.description,
        price_cents=a.price_cents, pricing_model=a.pricing_model, trial_days=a.trial_days, status=a.status,
        is_approved=a.status == AgentStatus.APPROVED,
        avg_rating=float(a.avg_rating or 0.0), review_count=a.review_count, vendor_id=a.vendor_id,
        vendor_username=vendors.get(a.vendor_id) if a.vendor_id else None, category_id=a.category_id,
        category_name=categories.get(a.category_id) if a.category_id is not None else None,
        demo_url=a.demo_url, image_url=a.image_url, tags=tags.get(a.id, []), created_at=a.created_at,
        rejection_reason=a.rejection_reason, reviewed_at=a.reviewed_at,
    ) for a in agents]
    return found, int(total)
