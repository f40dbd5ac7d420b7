"""The inline commission-rate editor of the Overview and Sales tabs: edit, confirm, cancel.

The platform service validates the value (its message is the spec's 'Invalid value' text); the editor only
appends the percent sign, as the spec sends it, and re-reads the sales summary after a change.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import reflex as rx

from marketplace.services import platform
from marketplace.services.errors import Forbidden, Invalid, Unauthorized
from marketplace.state.admin.page import admin_failed

RATE_DESCRIPTION = "Platform commission rate on each sale"
COMMISSION_SAVED = ("Commission rate updated", "The commission rate has been successfully updated.")
INVALID_VALUE = ("Invalid value", "Please enter a valid number for commission rate")
COMMISSION_FAILED = ("Error", "Failed to update commission rate.")
DEFAULT_RATE = "10%"  # shown when the server gives none (spec section 9)


class CommissionEditor(rx.State, mixin=True):
    commission_rate: str = DEFAULT_RATE
    editing_rate: bool = False
    rate_draft: str = ""
    saving_rate: bool = False

    def _reload_summary(self) -> None:
        """Read the sales summary again (the tab state's own)."""
        raise NotImplementedError

    @rx.event
    def start_rate_edit(self) -> None:
        self.rate_draft = self.commission_rate.strip().rstrip("%").strip()
        self.editing_rate = True

    @rx.event
    def cancel_rate_edit(self) -> None:
        if not self.saving_rate:
            self.editing_rate = False
            self.rate_draft = ""

    @rx.event
    def set_rate_draft(self, value: str) -> None:
        self.rate_draft = value[:20]

    @rx.event
    def save_rate(self, form: dict[str, Any] | None = None) -> Iterator[Any]:
        if self.saving_rate:
            return
        draft = str((form or {}).get("rate", self.rate_draft)).strip()
        self.rate_draft = draft
        self.saving_rate = True
        yield
        try:
            platform.set_commission_rate(actor=self.current_user(), value=f"{draft}%", description=RATE_DESCRIPTION)
        except (Unauthorized, Forbidden) as error:
            self.saving_rate = False
            yield admin_failed(error, "")
            return
        except Invalid as error:  # empty, not a number, out of bounds: the service's message
            self.saving_rate = False
            yield rx.toast.error(INVALID_VALUE[0], description=error.message)
            return
        except Exception as error:
            self.saving_rate = False
            yield admin_failed(error, COMMISSION_FAILED[1])
            return
        self.saving_rate = False
        self.editing_rate = False
        yield rx.toast.success(COMMISSION_SAVED[0], description=COMMISSION_SAVED[1])
        try:
            self._reload_summary()
        except Exception as error:
            yield admin_failed(error, "Failed to load the sales summary.")
