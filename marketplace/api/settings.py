"""Platform settings for admins: commission rate, checkout currency and the USD to EUR rate."""

from __future__ import annotations

from fastapi import APIRouter

from marketplace.api.deps import OptionalUser
from marketplace.models.platform import PlatformSettingPublic, SettingIn
from marketplace.services import platform

router = APIRouter(prefix="/api", tags=["admin"])


@router.get("/admin/settings", response_model=list[PlatformSettingPublic])
def list_settings(user: OptionalUser) -> list[PlatformSettingPublic]:
    return [PlatformSettingPublic.model_validate(row) for row in platform.list_settings(actor=user)]


@router.put("/admin/settings/{key}", response_model=PlatformSettingPublic)
def update_setting(key: str, body: SettingIn, user: OptionalUser) -> PlatformSettingPublic:
    """`commissionRate` ("25%"), `checkoutCurrency` ("usd" | "eur") or `usdToEurRate` ("0.9200")."""
    row = platform.update_setting(actor=user, key=key, value=body.value, description=body.description)
    return PlatformSettingPublic.model_validate(row)
