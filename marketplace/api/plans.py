"""Vendor plans: the public offer, the vendor's plan, choosing and cancelling one."""

from __future__ import annotations

from fastapi import APIRouter

from marketplace.api.deps import OptionalUser
from marketplace.models.plans import PlanChangePublic, PlanChoiceIn, PlanPublic, VendorPlanPublic
from marketplace.services import money, plans

router = APIRouter(prefix="/api", tags=["plans"])


def plan_public(plan: plans.PlanView) -> PlanPublic:
    return PlanPublic(id=plan.id, name=plan.name, monthly_price=money.format_cents(plan.monthly_price_cents),
                      agent_limit=plan.agent_limit, fee_percent=money.format_percent(plan.fee_percent))


def _current(current: plans.CurrentPlan) -> VendorPlanPublic:
    pending = current.pending_plan
    return VendorPlanPublic(plan=plan_public(current.plan), status=current.status,
                            current_period_end=current.current_period_end,
                            pending_plan_id=pending.id if pending else None,
                            pending_plan_name=pending.name if pending else None,
                            grace_ends_at=current.grace_ends_at, agents_used=current.agents_used,
                            agent_limit=current.agent_limit)


def _change(change: plans.PlanChange) -> PlanChangePublic:
    return PlanChangePublic(client_secret=change.client_secret, message=change.message,
                            plan=_current(change.current))


@router.get("/plans", response_model=list[PlanPublic])
def list_plans() -> list[PlanPublic]:
    """The vendor plans on offer, in order (public)."""
    return [plan_public(plan) for plan in plans.list_plans()]


@router.get("/vendor/plan", response_model=VendorPlanPublic)
def vendor_plan(user: OptionalUser) -> VendorPlanPublic:
    """The signed-in vendor's plan: status, period end, the change waiting for it, agents used of the limit."""
    return _current(plans.current_plan(actor=user))


@router.post("/vendor/plan", response_model=PlanChangePublic)
def choose_plan(body: PlanChoiceIn, user: OptionalUser) -> PlanChangePublic:
    """Choose a plan: from Free, `clientSecret` for the Payment Element (the plan starts once paid); a dearer
    plan at once (prorated, charged to the card on file); a cheaper plan or Free at the period end; 409 when
    already on it."""
    return _change(plans.choose_plan(actor=user, plan_id=body.plan_id))


@router.post("/vendor/plan/cancel", response_model=PlanChangePublic)
def cancel_plan(user: OptionalUser) -> PlanChangePublic:
    """Back to Free at the end of the paid period; 409 on Free or when already cancelled."""
    return _change(plans.cancel_plan(actor=user))
