"""Platform settings for admins: commission rate, checkout currency, the USD to EUR rate, guest checkout; vendor
plans."""

from __future__ import annotations

from fastapi import APIRouter

from marketplace.api.deps import OptionalUser
from marketplace.api.plans import plan_public
from marketplace.models.plans import PlanPublic, PlanUpdateIn
from marketplace.models.platform import PlatformSettingPublic, SettingIn
from marketplace.services import plans, platform

router = APIRouter(prefix="/api", tags=["admin"])


@router.get("/admin/settings", response_model=list[PlatformSettingPublic])
def list_settings(user: OptionalUser) -> list[PlatformSettingPublic]:
    return [PlatformSettingPublic.model_validate(row) for row in platform.list_settings(actor=user)]


@router.put("/admin/settings/{key}", response_model=PlatformSettingPublic)
def update_setting(key: str, body: SettingIn, user: OptionalUser) -> PlatformSettingPublic:
    """`commissionRate` ("25%"), `checkoutCurrency` ("usd" | "eur"), `usdToEurRate` ("0.9200") or
    `allowGuestCheckout` ("true" | "false")."""
    row = platform.update_setting(actor=user, key=key, value=body.value, description=body.description)
    return PlatformSettingPublic.model_validate(row)


@router.put("/admin/plans/{plan_id}", response_model=PlanPublic)
def update_plan(plan_id: str, body: PlanUpdateIn, user: OptionalUser) -> PlanPublic:
    """Edit a vendor plan: only the fields sent change; `agentLimit` null means unlimited; the Free plan's
    `feePercent` is the commission rate setting (one number)."""
    limit = None
    if "agent_limit" in body.model_fields_set:
        limit = "" if body.agent_limit is None else body.agent_limit
    plan = plans.update_plan(actor=user, plan_id=plan_id, name=body.name, monthly_price=body.monthly_price,
                             agent_limit=limit, fee_percent=body.fee_percent)
    return plan_public(plan)
