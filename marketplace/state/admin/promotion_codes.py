"""The admin panel's Promotion Codes tab: every code; codes for any agents or for all (services/promotions)."""

from __future__ import annotations

from typing import ClassVar

from marketplace.state.admin.page import AdminState
from marketplace.state.promotion_codes import PromotionCodesMixin


class AdminCodesState(PromotionCodesMixin, AdminState):
    """Loaded when the tab mounts."""

    ADMIN: ClassVar[bool] = True
