"""Promotion codes on /admin (a section of Sales & Commissions): codes for any agents or for all, the list of
every code, Deactivate."""

from __future__ import annotations

import reflex as rx

from marketplace.components.promotion_codes import promotion_codes_section
from marketplace.state.admin.promotion_codes import AdminCodesState


def admin_promotion_codes() -> rx.Component:
    return promotion_codes_section(AdminCodesState, admin=True, element_id="admin-promotion-codes")
