"""Reports of problem agents: one per user per agent, for the admins to review."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.models import Report, ReportedStatus, ReportPublic, ReportType, User
from marketplace.services import ratelimit
from marketplace.services.catalog import has_mark, live_agent
from marketplace.services.errors import Conflict, Forbidden, InvalidParameter
from marketplace.services.permissions import require_user
from marketplace.services.text import check_text

MAX_REASON = 1000
MAX_DESCRIPTION = 2000
ALREADY_REPORTED = "You have already reported this agent"
REPORT_TYPES = tuple(t.value for t in ReportType)


def _text(name: str, value: object, *, limit: int, required: bool) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InvalidParameter(f"{name} must be text", field=name)
    value = check_text(value, field=name, multiline=True).strip()
    if not value:
        if required:
            raise InvalidParameter(f"{name} must not be blank", field=name)
        return None
    if len(value) > limit:
        raise InvalidParameter(f"{name} must be at most {limit} characters", field=name)
    return value


def report_agent(
    *, actor: User | None, agent_id: str, report_type: object, reason: object, description: object = None,
    address: str | None = None,
) -> ReportPublic:
    """Record a report; blank descriptions are stored as null; a second report by the same user is refused.
    Rate-limited per client `address`."""
    user = require_user(actor)
    if not isinstance(report_type, str) or report_type.strip().lower() not in REPORT_TYPES:
        raise InvalidParameter(f"reportType must be one of {', '.join(REPORT_TYPES)}", field="reportType")
    kind = report_type.strip().lower()
    reason_text = _text("reason", reason, limit=MAX_REASON, required=True) or ""
    details = _text("description", description, limit=MAX_DESCRIPTION, required=False)
    ratelimit.hit_per_address(action="report", address=address, limit=settings.rate_limit_reports)
    try:
        with session_scope() as session:
            agent = live_agent(session, agent_id=agent_id)
            if agent.vendor_id == user.id:
                raise Forbidden("You cannot report your own agent")
            taken = session.execute(
                select(Report.id).where(Report.user_id == user.id, Report.agent_id == agent.id)
            ).first()
            if taken:
                raise Conflict(ALREADY_REPORTED)
            report = Report(user_id=user.id, agent_id=agent.id, report_type=kind, reason=reason_text,
                            description=details)
            session.add(report)
            session.flush()
    except IntegrityError:
        raise Conflict(ALREADY_REPORTED) from None  # a simultaneous report by the same user won
    return ReportPublic.model_validate(report)


def has_reported(*, actor: User | None, agent_id: str) -> ReportedStatus:
    return ReportedStatus(has_reported=has_mark(Report, actor=actor, agent_id=agent_id))
