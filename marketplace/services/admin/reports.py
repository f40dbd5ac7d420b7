"""Admins move customer reports along: pending -> reviewed -> resolved (or pending -> resolved), audit-logged.

Each move is a claim (services/decisions.py) on the status it was read in, so of simultaneous moves one wins."""

from __future__ import annotations

from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Agent, Report, ReportStatus, User
from marketplace.services import decisions
from marketplace.services.admin import audit
from marketplace.services.admin.analytics import ReportRow, report_row
from marketplace.services.errors import Conflict, InvalidParameter, NotFound
from marketplace.services.permissions import require_admin

MOVES: dict[str, set[str]] = {
    ReportStatus.PENDING: {ReportStatus.REVIEWED, ReportStatus.RESOLVED},
    ReportStatus.REVIEWED: {ReportStatus.RESOLVED},
    ReportStatus.RESOLVED: set(),
}
MOVED_MEANWHILE = "This report was moved by another request at the same moment. Reload to see its status."


def set_report_status(*, actor: User | None, report_id: str, status: object) -> ReportRow:
    """Move a report to `status` (reviewed or resolved). A move its current status does not allow (backwards,
    in place, or decided by someone else at the same moment) is a 409; the audit entry is written in the
    same transaction as the move (claimed with services/decisions.py)."""
    admin = require_admin(actor)
    if not isinstance(status, str) or status.strip().lower() not in (ReportStatus.REVIEWED, ReportStatus.RESOLVED):
        raise InvalidParameter("status must be reviewed or resolved", field="status")
    wanted = status.strip().lower()
    with session_scope() as session:
        before = session.exec(select(Report.status).where(Report.id == report_id)).first() \
            if report_id and len(report_id) <= 64 else None
        if before is None:
            raise NotFound("Report not found")
        if wanted not in MOVES.get(before, set()):
            raise Conflict(f"A {before} report cannot be marked {wanted}")
        decisions.claim(session, Report, Report.id == report_id, Report.status == before, values={"status": wanted},
                        conflict=MOVED_MEANWHILE)
        report = session.exec(select(Report).where(Report.id == report_id)).one()
        audit.record(session, actor=admin, action="report.status", target_type="report", target_id=report.id,
                     details={"from": before, "to": wanted, "agentId": report.agent_id})
        agent_name = session.exec(select(Agent.name).where(Agent.id == report.agent_id)).first() or ""
    return report_row(report, agent_name)
