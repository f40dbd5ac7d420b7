"""A vendor's own agents, in every status, for its dashboard (the public catalogue shows live ones only)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Agent, Category, User
from marketplace.services.permissions import require_vendor


@dataclass(frozen=True)
class VendorAgent:
    id: str
    name: str
    short_description: str
    price_cents: int
    status: str
    rejection_reason: str | None
    category_id: int | None
    category_name: str | None
    image_url: str | None
    avg_rating: float
    review_count: int
    sales_count: int
    created_at: datetime
    updated_at: datetime


def list_own_agents(*, actor: User | None) -> list[VendorAgent]:
    """The actor's agents that are not deleted, newest first."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        rows = session.exec(
            select(Agent.id, Agent.name, Agent.short_description, Agent.price_cents, Agent.status,
                   Agent.rejection_reason, Agent.category_id, Category.name, Agent.image_url, Agent.avg_rating,
                   Agent.review_count, Agent.sales_count, Agent.created_at, Agent.updated_at)
            .outerjoin(Category, Category.id == Agent.category_id)
            .where(Agent.vendor_id == vendor.id, Agent.deleted_at.is_(None))
            .order_by(Agent.created_at.desc(), Agent.id.desc())).all()
    return [VendorAgent(*row) for row in rows]
