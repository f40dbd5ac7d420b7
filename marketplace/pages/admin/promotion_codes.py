"""The Promotion Codes tab of /admin: codes for any agents or for all, the list of every code, Deactivate."""

from __future__ import annotations

import reflex as rx

from marketplace.components.promotion_codes import promotion_codes_section
from marketplace.state.admin.promotion_codes import AdminCodesState


def promotion_codes_tab() -> rx.Component:
    return promotion_codes_section(AdminCodesState, admin=True, element_id="admin-promotion-codes")
