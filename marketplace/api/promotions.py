"""Promotion codes: a vendor's for its own agents (`/api/vendor/promotion-codes`) and an admin's for any or all
agents (`/api/admin/promotion-codes`): list, create, deactivate. Thin adapters over services/promotions, which
check every permission."""

from __future__ import annotations

from fastapi import APIRouter, Query

from marketplace.api.deps import OptionalUser
from marketplace.models import User
from marketplace.models.promotions import PromotionCodeIn, PromotionCodePublic
from marketplace.services import promotions

router = APIRouter(prefix="/api", tags=["promotions"])


def code_public(view: promotions.CodeView) -> PromotionCodePublic:
    c = view.code
    return PromotionCodePublic(
        id=c.id,
        code=c.code,
        percent_off=c.percent_off,
        amount_off_cents=c.amount_off_cents,
        agent_ids=view.agent_ids,
        all_agents=c.all_agents,
        expires_at=c.expires_at,
        max_redemptions=c.max_redemptions,
        redemptions=view.redemptions,
        first_purchase_only=c.first_purchase_only,
        duration=c.duration,
        duration_months=c.duration_months,
        active=c.active,
        created_at=c.created_at,
    )


def _create(body: PromotionCodeIn, user: User | None, *, admin: bool = False) -> PromotionCodePublic:
    return code_public(
        promotions.create_code(
            actor=user,
            admin=admin,
            code=body.code,
            percent_off=body.percent_off,
            amount_off_cents=body.amount_off_cents,
            agent_ids=body.agent_ids,
            all_agents=body.all_agents,
            expires_at=body.expires_at,
            max_redemptions=body.max_redemptions,
            first_purchase_only=body.first_purchase_only,
            duration=body.duration,
            duration_months=body.duration_months,
        )
    )


@router.get("/vendor/promotion-codes", response_model=list[PromotionCodePublic])
def vendor_codes(
    user: OptionalUser, limit: int = Query(100, ge=1, le=500), offset: int = Query(0, ge=0, le=1_000_000)
) -> list[PromotionCodePublic]:
    """The vendor's own codes, newest first."""
    return [code_public(v) for v in promotions.list_codes(actor=user, limit=limit, offset=offset)]


@router.post("/vendor/promotion-codes", response_model=PromotionCodePublic, status_code=201)
def vendor_create(body: PromotionCodeIn, user: OptionalUser) -> PromotionCodePublic:
    """A code for the vendor's own agents (403 for another vendor's agent or for all agents)."""
    return _create(body, user)


@router.post("/vendor/promotion-codes/{code_id}/deactivate", response_model=PromotionCodePublic)
def vendor_deactivate(code_id: str, user: OptionalUser) -> PromotionCodePublic:
    """404 for another vendor's code, 409 when already deactivated."""
    return code_public(promotions.deactivate_code(actor=user, code_id=code_id))


@router.get("/admin/promotion-codes", response_model=list[PromotionCodePublic])
def admin_codes(
    user: OptionalUser, limit: int = Query(100, ge=1, le=500), offset: int = Query(0, ge=0, le=1_000_000)
) -> list[PromotionCodePublic]:
    """Every code, newest first."""
    return [code_public(v) for v in promotions.list_codes(actor=user, admin=True, limit=limit, offset=offset)]


@router.post("/admin/promotion-codes", response_model=PromotionCodePublic, status_code=201)
def admin_create(body: PromotionCodeIn, user: OptionalUser) -> PromotionCodePublic:
    """A code for any agents, or for all (`allAgents`)."""
    return _create(body, user, admin=True)


@router.post("/admin/promotion-codes/{code_id}/deactivate", response_model=PromotionCodePublic)
def admin_deactivate(code_id: str, user: OptionalUser) -> PromotionCodePublic:
    return code_public(promotions.deactivate_code(actor=user, code_id=code_id, admin=True))
