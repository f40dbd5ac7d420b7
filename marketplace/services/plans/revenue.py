"""The platform's plan revenue: what vendors paid for their plans (every paid plan invoice, in USD)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import Session, select

from marketplace.models import FREE_PLAN_ID, PlanPayment, VendorPlan
from marketplace.services.plans.catalog import plans_in


@dataclass(frozen=True)
class PlanRevenue:
    plan_id: str
    plan_name: str
    revenue_cents: int  # every paid invoice of the plan: first payments, upgrades' prorations, renewals
    vendors: int  # vendors on the plan now


def revenue_in(session: Session) -> list[PlanRevenue]:
    """Each paid plan's revenue and vendors, in the plans' order (the Free plan earns through its fee only)."""
    paid = dict(session.exec(select(PlanPayment.plan_id, func.sum(PlanPayment.amount_cents))
                             .group_by(PlanPayment.plan_id)).all())
    on = dict(session.exec(select(VendorPlan.plan_id, func.count()).group_by(VendorPlan.plan_id)).all())
    return [PlanRevenue(plan_id=plan.id, plan_name=plan.name, revenue_cents=int(paid.get(plan.id) or 0),
                        vendors=int(on.get(plan.id) or 0))
            for plan in plans_in(session) if plan.id != FREE_PLAN_ID]
