"""The License Keys tab: every key, masked, page by page with search (a whole key too), and Disable (with the
reason the buyer reads) / Enable, each one conditional write in services/licenses."""

from __future__ import annotations

from functools import partial
from typing import ClassVar
from zoneinfo import ZoneInfo

from marketplace.models import User
from marketplace.services import license_admin, licenses
from marketplace.state.admin.listing import Action, AdminList
from marketplace.state.admin.page import AdminState
from marketplace.state.license_rows import KeyRow, key_row

DISABLE = Action(partial(license_admin.set_disabled, disabled=True), "key_id",
                 ("License key disabled", "The buyer's agent can no longer activate or validate it."),
                 "Failed to disable license key.", title="Disable license key", label="Disable",
                 confirm="The buyer's agent will stop validating this key until it is enabled again.",
                 reason="reason")
ENABLE = Action(partial(license_admin.set_disabled, disabled=False), "key_id",
                ("License key enabled", "The key works again."), "Failed to enable license key.")


class LicenseKeysState(AdminList, AdminState):
    rows: list[KeyRow] = []
    viewing: KeyRow = KeyRow()
    _actions: ClassVar = {"disable": DISABLE, "enable": ENABLE}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[KeyRow], int]:
        found, total = licenses.admin_keys(actor=user, limit=limit, offset=offset, search=search or None)
        return [key_row(view, zone) for view in found], total
