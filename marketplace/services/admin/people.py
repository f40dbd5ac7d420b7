"""Admin tables of customers and vendors: paged, searchable, newest first (admin only).

Both read users that are not deleted, through ix_users_admin_role_created (revision 0011), so a page and its
total stay fast at 100,000 users; a vendor's agent count is one grouped query over the page's ids, its plan
another.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import case, func
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Agent, AgentStatus, Role, User
from marketplace.services import table_search as text_search
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin
from marketplace.services.plans.current import plans_of

MAX_OFFSET = 100_000


@dataclass(frozen=True)
class PersonRow:
    id: str
    first_name: str | None
    last_name: str | None
    email: str
    username: str
    role: str
    is_vendor_approved: bool
    created_at: datetime
    profile_image_url: str | None
    agent_count: int  # agents with this vendorId, not deleted
    published_count: int  # of those, the live ones (approved): what the vendor has published
    plan_name: str | None = None  # a vendor's plan (Free without one of its own); None for customers


def _list(role: str, *, actor: User | None, limit: int, offset: int, search: str | None
          ) -> tuple[list[PersonRow], int]:
    require_admin(actor)
    check_page(limit=limit, offset=offset, max_offset=MAX_OFFSET)
    like = text_search.pattern(search)
    rows = text_search.source(User.__table__, search)
    conditions = [rows.c.role == role, rows.c.deleted_at.is_(None)]
    if like is not None:
        conditions.append(text_search.matches(like, rows.c.username, rows.c.email, rows.c.first_name,
                                              rows.c.last_name))
    with session_scope() as session:
        # The page's ids first (without a search an index-only scan, however deep the offset), then those rows.
        ids, total = text_search.page_and_total(session, rows=rows, conditions=conditions, limit=limit,
                                                offset=offset)
        by_id = {u.id: u for u in session.exec(select(User).where(User.id.in_(ids))).all()} if ids else {}
        users = [by_id[i] for i in ids if i in by_id]
        live = func.sum(case((Agent.status == AgentStatus.APPROVED, 1), else_=0))
        counts = {vendor: (int(n), int(published or 0)) for vendor, n, published in session.exec(
            select(Agent.vendor_id, func.count(), live).where(Agent.vendor_id.in_(ids), Agent.deleted_at.is_(None))
            .group_by(Agent.vendor_id)).all()} if ids else {}
        vendor_plans = plans_of(session, ids) if role == Role.VENDOR else {}
    people = [PersonRow(id=u.id, first_name=u.first_name, last_name=u.last_name, email=u.email, username=u.username,
                        role=u.role, is_vendor_approved=u.is_vendor_approved, created_at=u.created_at,
                        profile_image_url=u.profile_image_url, agent_count=counts.get(u.id, (0, 0))[0],
                        published_count=counts.get(u.id, (0, 0))[1],
                        plan_name=vendor_plans[u.id].name if u.id in vendor_plans else None)
              for u in users]
    return people, total


def list_customers(*, actor: User | None, limit: int = 20, offset: int = 0, search: str | None = None
                   ) -> tuple[list[PersonRow], int]:
    """Customers (role user), newest first; `search` matches username, email, first or last name."""
    return _list(Role.USER, actor=actor, limit=limit, offset=offset, search=search)


def list_vendors(*, actor: User | None, limit: int = 20, offset: int = 0, search: str | None = None
                 ) -> tuple[list[PersonRow], int]:
    """Vendors (approved or not), newest first, each with its number of agents and its plan; same search as
    customers."""
    return _list(Role.VENDOR, actor=actor, limit=limit, offset=offset, search=search)
