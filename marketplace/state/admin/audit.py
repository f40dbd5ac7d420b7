"""The Audit Log tab: every admin write, newest first, page by page (time, the entry in words, action, target)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from marketplace.models import User
from marketplace.services import audit
from marketplace.state.admin.listing import AdminList
from marketplace.state.admin.page import AdminState
from marketplace.state.display import format_day_time


@dataclass
class AuditView:
    id: str = ""
    time: str = ""
    actor: str = ""
    action: str = ""
    target: str = ""
    details: str = ""
    summary: str = ""  # the entry in words


def _details(details: dict[str, Any]) -> str:
    """'status: rejected · reason: too vague': the recorded values, read as text."""
    return " · ".join(f"{key}: {value}" for key, value in details.items() if value not in (None, ""))


class AuditState(AdminList, AdminState):
    rows: list[AuditView] = []

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[AuditView], int]:
        found, total = audit.list_entries(actor=user, limit=limit, offset=offset)
        return [AuditView(id=e.id, time=format_day_time(e.created_at, zone), actor=e.actor_username, action=e.action,
                          target=f"{e.target_type} {e.target_id}".strip(), details=_details(e.details),
                          summary=e.summary)
                for e in found], total
