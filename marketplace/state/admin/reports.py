"""The Reports tab: customer reports of one status at a time (pending, reviewed, resolved), page by page, with
the moves the service allows from that status (Mark Reviewed, Resolve), each a claim in services/admin/reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.models import User
from marketplace.services.admin import reports
from marketplace.services.admin.analytics import ReportRow
from marketplace.state.admin.listing import Action, AdminList
from marketplace.state.admin.page import AdminState
from marketplace.state.display import format_day

FAILED = "Failed to update report."
REVIEW = Action(partial(reports.set_report_status, status="reviewed"), "report_id",
                ("Report updated", "The report has been marked as reviewed."), FAILED, plain_toast=True)
RESOLVE = Action(partial(reports.set_report_status, status="resolved"), "report_id",
                 ("Report updated", "The report has been resolved."), FAILED, plain_toast=True)
STATUS_LABELS = {"pending": "Pending", "reviewed": "Reviewed", "resolved": "Resolved"}
EMPTY = {"pending": "No reports waiting for review", "reviewed": "No reviewed reports",
         "resolved": "No resolved reports"}


def report_type(kind: str) -> str:
    return kind.replace("_", " ").capitalize() if kind else "Report"


@dataclass
class ReportView:
    id: str = ""
    type: str = ""
    reason: str = ""
    description: str = ""
    status: str = ""
    status_label: str = ""
    date: str = ""
    agent_id: str = ""
    agent_name: str = ""
    moves: list[str] = field(default_factory=list)  # the service's next statuses: reviewed, resolved


def report_view(row: ReportRow, zone: ZoneInfo) -> ReportView:
    return ReportView(id=row.id, type=report_type(row.report_type), reason=row.reason,
                      description=row.description or "", status=row.status,
                      status_label=STATUS_LABELS.get(row.status, row.status), date=format_day(row.created_at, zone),
                      agent_id=row.agent_id, agent_name=row.agent_name, moves=reports.moves(row.status))


class ReportsState(AdminList, AdminState):
    rows: list[ReportView] = []
    viewing: ReportView = ReportView()
    status: str = "pending"
    _actions: ClassVar = {"reviewed": REVIEW, "resolved": RESOLVE}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str, zone: ZoneInfo,
               status: str = "pending") -> tuple[list[ReportView], int]:
        found, total = reports.list_reports(actor=user, status=status, limit=limit, offset=offset)
        return [report_view(row, zone) for row in found], total

    def _filters(self) -> dict[str, Any]:
        return {"status": self.status}

    @rx.var
    def empty_title(self) -> str:
        return EMPTY.get(self.status, "No reports")

    @rx.event
    async def set_status(self, value: str | list[str]) -> Any:
        """The status filter (a segmented control: one value): its first page."""
        if not isinstance(value, str) or value not in STATUS_LABELS or value == self.status:
            return None
        self.status, self.offset, self.loading = value, 0, True
        return await self._read()
