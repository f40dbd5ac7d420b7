"""A plan's agent limit, checked when a vendor submits a new agent.

Counted as the architecture's counted limits are: the vendor's plan row is locked first (a conditional
UPDATE: SQLite's write lock, PostgreSQL's row lock, held to the commit), the new agent is inserted, then the
vendor's live plus pending agents are counted, this one included, and the submission is refused (rolled back)
if that is over the limit. Two submissions at the same moment are thus counted one after the other and never
go over. A downgrade never hides an agent: it only refuses new ones while the count is at or over the limit.
"""

from __future__ import annotations

from sqlalchemy import func, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, select

from marketplace.db import is_postgres, session_scope
from marketplace.models import Agent, AgentStatus, Role, User, VendorPlan
from marketplace.services.errors import Forbidden
from marketplace.services.permissions import require_vendor
from marketplace.services.plans.catalog import PlanView, vendor_plan_in

COUNTED = (AgentStatus.PENDING, AgentStatus.APPROVED)


def limit_message(plan: PlanView) -> str:
    """'Your Free plan allows 3 agents. Upgrade to list more.'"""
    noun = "agent" if plan.agent_limit == 1 else "agents"
    return f"Your {plan.name} plan allows {plan.agent_limit} {noun}. Upgrade to list more."


def agents_used_in(session: Session, vendor_id: str) -> int:
    """Live plus pending agents of the vendor (deleted and rejected ones do not count)."""
    return session.exec(select(func.count()).select_from(Agent).where(
        Agent.vendor_id == vendor_id, Agent.deleted_at.is_(None), Agent.status.in_(COUNTED))).one()


def _limited(vendor: User) -> bool:
    """Admins acting as vendors list the platform's own agents: no plan limits them."""
    return vendor.role != Role.ADMIN


def _over(session: Session, vendor: User) -> str | None:
    plan = vendor_plan_in(session, vendor.id)
    if plan.agent_limit is None or agents_used_in(session, vendor.id) <= plan.agent_limit:
        return None
    return limit_message(plan)


def room_refusal(*, actor: User | None) -> str | None:
    """Why the vendor cannot submit another agent now (the limit message), or None: the wizard says it before
    step 1. Advisory only: the submission itself is counted under the lock (`lock_submissions`, `check_room`)."""
    vendor = require_vendor(actor)
    if not _limited(vendor):
        return None
    with session_scope() as session:
        plan = vendor_plan_in(session, vendor.id)
        if plan.agent_limit is None or agents_used_in(session, vendor.id) < plan.agent_limit:
            return None
        return limit_message(plan)


def lock_submissions(session: Session, vendor: User) -> None:
    """The first write of a submission's transaction: take the vendor's plan row (made if missing)."""
    if not _limited(vendor):
        return
    dialect = postgresql if is_postgres() else sqlite
    session.execute(dialect.insert(VendorPlan).values(user_id=vendor.id).on_conflict_do_nothing())
    session.execute(update(VendorPlan).where(VendorPlan.user_id == vendor.id)
                    .values(plan_id=VendorPlan.plan_id))


def check_room(session: Session, vendor: User) -> None:
    """After the new agent is inserted (under `lock_submissions`): over the plan's limit -> 403, rolled back."""
    if not _limited(vendor):
        return
    refusal = _over(session, vendor)
    if refusal is not None:
        raise Forbidden(refusal, code="plan_limit")
