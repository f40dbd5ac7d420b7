"""Admins move customer reports along: pending -> reviewed -> resolved (or pending -> resolved), audit-logged."""

from __future__ import annotations

from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Agent, Report, ReportStatus, User
from marketplace.services.admin import audit
from marketplace.services.admin.analytics import ReportRow, report_row
from marketplace.services.errors import Invalid, InvalidParameter, NotFound
from marketplace.services.permissions import require_admin

MOVES: dict[str, set[str]] = {
    ReportStatus.PENDING: {ReportStatus.REVIEWED, ReportStatus.RESOLVED},
    ReportStatus.REVIEWED: {ReportStatus.RESOLVED},
    ReportStatus.RESOLVED: set(),
}


def set_report_status(*, actor: User | None, report_id: str, status: object) -> ReportRow:
    """Move a report to `status` (reviewed or resolved); a move backwards or in place is refused (400).

    The report row is locked (FOR UPDATE on PostgreSQL), so two admins cannot both move it from the same
    status; the audit entry is written in the same transaction.
    """
    admin = require_admin(actor)
    if not isinstance(status, str) or status.strip().lower() not in (ReportStatus.REVIEWED, ReportStatus.RESOLVED):
        raise InvalidParameter("status must be reviewed or resolved", field="status")
    wanted = status.strip().lower()
    with session_scope() as session:
        report = session.exec(select(Report).where(Report.id == report_id).with_for_update()).first()
        if report is None:
            raise NotFound("Report not found")
        before = report.status
        if wanted not in MOVES.get(before, set()):
            raise Invalid(f"A {before} report cannot be marked {wanted}", field="status")
        report.status = wanted
        session.add(report)
        audit.record(session, actor=admin, action="report.status", target_type="report", target_id=report.id,
                     details={"from": before, "to": wanted, "agentId": report.agent_id})
        agent_name = session.exec(select(Agent.name).where(Agent.id == report.agent_id)).first() or ""
    return report_row(report, agent_name)
