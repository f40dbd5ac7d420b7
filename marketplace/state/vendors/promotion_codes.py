"""The vendor dashboard's Promotion codes: codes for the vendor's own agents (services/promotions)."""

from __future__ import annotations

from marketplace.state.promotion_codes import PromotionCodesMixin
from marketplace.state.vendors.page import VendorState


class VendorCodesState(PromotionCodesMixin, VendorState):
    """Loaded when the dashboard tab mounts."""
