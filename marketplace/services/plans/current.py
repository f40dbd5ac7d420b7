"""A vendor's plan as the vendor dashboard, `/vendor/plans`, `GET /api/vendor/plan` and the admin's Vendors
table show it: the plan, its status, when it renews or ends, what comes at the period end, agents used."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import FREE_PLAN_ID, User, VendorPlan, VendorPlanStatus
from marketplace.services import access
from marketplace.services.permissions import require_vendor
from marketplace.services.plans.catalog import PlanView, plan_in, plans_in
from marketplace.services.plans.limits import agents_used_in


@dataclass(frozen=True)
class CurrentPlan:
    plan: PlanView
    status: str  # active | past_due
    current_period_end: datetime | None  # a paid plan renews (or, with `pending_plan`, ends) then
    pending_plan: PlanView | None  # taken at the period end: a cheaper plan, or Free (cancelled)
    grace_ends_at: datetime | None  # past due: back to Free then, unless the renewal is paid
    agents_used: int

    @property
    def agent_limit(self) -> int | None:
        return self.plan.agent_limit

    @property
    def at_limit(self) -> bool:
        return self.plan.agent_limit is not None and self.agents_used >= self.plan.agent_limit

    @property
    def cancelled(self) -> bool:
        """A paid plan that ends at the period end (back to Free)."""
        return self.pending_plan is not None and self.pending_plan.is_free


def current_in(session: Session, vendor_id: str) -> CurrentPlan:
    row = session.get(VendorPlan, vendor_id)
    plan = plan_in(session, row.plan_id if row is not None else FREE_PLAN_ID)
    pending = plan_in(session, row.pending_plan_id) if row is not None and row.pending_plan_id else None
    grace_ends_at = (row.past_due_since + access.GRACE if row is not None and row.past_due_since is not None
                     and row.status == VendorPlanStatus.PAST_DUE else None)
    return CurrentPlan(
        plan=plan, status=row.status if row is not None else VendorPlanStatus.ACTIVE,
        current_period_end=row.current_period_end if row is not None and not plan.is_free else None,
        pending_plan=pending, grace_ends_at=grace_ends_at,
        agents_used=agents_used_in(session, vendor_id))


def current_plan(*, actor: User | None) -> CurrentPlan:
    """The signed-in vendor's plan now, with its agents used of the limit."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        return current_in(session, vendor.id)


def plans_of(session: Session, vendor_ids: list[str]) -> dict[str, PlanView]:
    """Each vendor's plan (Free without a row), for admin tables: one query for the page."""
    plans = {plan.id: plan for plan in plans_in(session)}
    chosen = dict(session.exec(select(VendorPlan.user_id, VendorPlan.plan_id)
                               .where(VendorPlan.user_id.in_(vendor_ids))).all()) if vendor_ids else {}
    free = plans[FREE_PLAN_ID]
    return {vendor_id: plans.get(chosen.get(vendor_id, FREE_PLAN_ID), free) for vendor_id in vendor_ids}
