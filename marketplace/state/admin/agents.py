"""The Agents tab: every agent page by page with search, the details dialog, Approve (when not live) and delete."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar
from zoneinfo import ZoneInfo

from marketplace.models import User
from marketplace.services import images, money
from marketplace.services.admin import catalog as admin_catalog
from marketplace.services.admin import deletion, moderation
from marketplace.state.admin.listing import Action, AdminList
from marketplace.state.admin.page import AdminState
from marketplace.state.display import format_day

STATUS_LABELS = {"approved": "Approved", "rejected": "Rejected"}  # anything else waits: Pending
# The moderation service's approve: the agent goes live (409 without files -> the spec's failure).
APPROVE_AGENT = Action(moderation.approve, "agent_id",
                       ("Agent approved", "The agent has been approved and is now live."), "Failed to approve agent.")
# Soft: the agent leaves the catalogue, buyers keep their downloads.
DELETE_AGENT = Action(deletion.delete_agent, "agent_id", ("Agent deleted", "The agent has been successfully deleted."),
                      "Failed to delete agent.", title="Delete agent", confirm="This action cannot be undone.",
                      label="Delete")


@dataclass
class AgentView:
    id: str = ""
    name: str = ""
    vendor: str = ""
    price: str = ""
    status: str = ""
    status_label: str = ""
    approved: bool = False
    rating: str = "0.0"
    review_count: int = 0
    created: str = ""
    category: str = ""
    description: str = ""
    demo_url: str = ""
    image_url: str = ""
    tags: list[str] = field(default_factory=list)


def agent_view(row: admin_catalog.AdminAgentRow, zone: ZoneInfo) -> AgentView:
    return AgentView(
        id=row.id, name=row.name, vendor=row.vendor_username or "Unknown",
        price=money.price_label(row.price_cents, pricing_model=row.pricing_model),
        status=row.status, status_label=STATUS_LABELS.get(row.status, "Pending"), approved=bool(row.is_approved),
        rating=f"{row.avg_rating or 0:.1f}", review_count=row.review_count or 0,
        created=format_day(row.created_at, zone), category=row.category_name or "Uncategorized",
        description=row.description or row.short_description or "", demo_url=row.demo_url or "",
        image_url=images.displayable_image_url(row.image_url), tags=list(row.tags or []),
    )


class AgentsState(AdminList, AdminState):
    rows: list[AgentView] = []
    viewing: AgentView = AgentView()
    _actions: ClassVar = {"approve": APPROVE_AGENT, "delete": DELETE_AGENT}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[AgentView], int]:
        found, total = admin_catalog.list_agents(actor=user, limit=limit, offset=offset, search=search or None)
        return [agent_view(row, zone) for row in found], total
