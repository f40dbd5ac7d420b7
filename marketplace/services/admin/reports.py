"""Admins list customer reports by status and move them along: pending -> reviewed -> resolved (or pending ->
resolved), audit-logged.

Each move is a claim (services/decisions.py) on the status it was read in, so of simultaneous moves one wins."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Agent, Report, ReportStatus, User
from marketplace.services import audit, decisions
from marketplace.services.admin.analytics import ReportRow, report_row
from marketplace.services.errors import Conflict, InvalidParameter, NotFound
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin

MOVES: dict[str, set[str]] = {
    ReportStatus.PENDING: {ReportStatus.REVIEWED, ReportStatus.RESOLVED},
    ReportStatus.REVIEWED: {ReportStatus.RESOLVED},
    ReportStatus.RESOLVED: set(),
}
STATUSES = (ReportStatus.PENDING, ReportStatus.REVIEWED, ReportStatus.RESOLVED)
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


def list_reports(*, actor: User | None, status: str, limit: int = 20, offset: int = 0) -> tuple[list[ReportRow], int]:
    """The reports in one status (pending, reviewed or resolved), newest first, with their number on all pages."""
    require_admin(actor)
    check_page(limit=limit, offset=offset)
    if status not in STATUSES:
        raise InvalidParameter("status must be pending, reviewed or resolved", field="status")
    with session_scope() as session:
        total = session.exec(select(func.count()).select_from(Report).where(Report.status == status)).one()
        rows = session.exec(select(Report, Agent.name).join(Agent, Agent.id == Report.agent_id)
                            .where(Report.status == status).order_by(Report.created_at.desc(), Report.id.desc())
                            .limit(limit).offset(offset)).all()
    return [report_row(report, name) for report, name in rows], int(total)


def moves(status: str) -> list[str]:
    """Where a report in `status` may go next (none once resolved)."""
    return sorted(MOVES.get(status, set()), key=STATUSES.index)
