"""The Agents tab: every agent page by page with search, the details dialog, Approve (when not live) and delete."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.models import User
from marketplace.services import images, money
from marketplace.services.admin import catalog as admin_catalog
from marketplace.services.admin import deletion, moderation
from marketplace.state.admin.page import AdminState, admin_failed
from marketplace.state.admin.paging import PagedTable
from marketplace.state.display import format_day

STATUS_LABELS = {"approved": "Approved", "rejected": "Rejected"}  # anything else waits: Pending


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
        price=money.price_label(row.price_cents),
        status=row.status, status_label=STATUS_LABELS.get(row.status, "Pending"), approved=bool(row.is_approved),
        rating=f"{row.avg_rating or 0:.1f}", review_count=row.review_count or 0,
        created=format_day(row.created_at, zone), category=row.category_name or "Uncategorized",
        description=row.description or row.short_description or "", demo_url=row.demo_url or "",
        image_url=images.displayable_image_url(row.image_url), tags=list(row.tags or []),
    )


class AgentsState(PagedTable, AdminState):
    rows: list[AgentView] = []
    viewing: AgentView = AgentView()
    view_open: bool = False
    confirm_id: str = ""
    confirm_name: str = ""
    busy: str = ""  # id of the agent being approved or deleted

    def _fetch(self, user: User | None, *, limit: int, offset: int, search: str) -> tuple[int, int]:
        found, total = admin_catalog.list_agents(actor=user, limit=limit, offset=offset, search=search or None)
        self.rows = [agent_view(row, self._zone()) for row in found]
        return len(found), total

    def _find(self, agent_id: str) -> AgentView | None:
        return next((row for row in self.rows if row.id == agent_id), None)

    @rx.event
    def view(self, agent_id: str) -> None:
        found = self._find(agent_id)
        if found is not None:
            self.viewing = found
            self.view_open = True

    @rx.event
    def set_view_open(self, value: bool) -> None:
        self.view_open = value

    @rx.event
    def ask_delete(self, agent_id: str) -> None:
        found = self._find(agent_id)
        if found is not None:
            self.confirm_id, self.confirm_name = found.id, found.name

    @rx.event
    def cancel_delete(self) -> None:
        if not self.busy:
            self.confirm_id = self.confirm_name = ""

    @rx.event
    def approve(self, agent_id: str) -> Iterator[Any]:
        """The moderation service's approve: the agent goes live (409 without files -> the spec's failure)."""
        if self.busy:
            return
        self.busy = agent_id
        yield
        try:
            moderation.approve(actor=self.current_user(), agent_id=agent_id)
        except Exception as error:
            self.busy = ""
            yield admin_failed(error, "Failed to approve agent.")
            return
        self.busy = ""
        self.view_open = False
        yield rx.toast.success("Agent approved", description="The agent has been approved and is now live.")
        self.refresh_counts_quietly()
        yield self._read()

    @rx.event
    def delete(self) -> Iterator[Any]:
        """DELETE the agent (soft: it leaves the catalogue, buyers keep their downloads)."""
        if self.busy or not self.confirm_id:
            return
        self.busy = self.confirm_id
        yield
        try:
            deletion.delete_agent(actor=self.current_user(), agent_id=self.confirm_id)
        except Exception as error:
            self.busy = ""
            self.confirm_id = self.confirm_name = ""
            yield admin_failed(error, "Failed to delete agent.")
            return
        self.busy = ""
        self.confirm_id = self.confirm_name = ""
        self.view_open = False
        yield rx.toast.success("Agent deleted", description="The agent has been successfully deleted.")
        self.refresh_counts_quietly()
        yield self._read()
