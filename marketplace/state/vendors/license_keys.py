"""The License keys dialog of the vendor's agent list: one own agent's keys (masked), page by page, with Disable
(with the reason the buyer reads) / Enable. Every rule (whose keys, which change is allowed, that a reason is
given) is services/licenses'; this shows its answers."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import reflex as rx

from marketplace.services import licenses
from marketplace.services.errors import DomainError, Invalid, Unauthorized
from marketplace.state import blocking
from marketplace.state.display import logged_out_again, time_zone
from marketplace.state.license_rows import KeyRow, key_row
from marketplace.state.vendors.page import VendorState

LOG = logging.getLogger(__name__)
PAGE_SIZE = 10
LOAD_FAILED = "Could not load the license keys."
DONE = {True: ("License key disabled", "The buyer's agent can no longer activate or validate it."),
        False: ("License key enabled", "The key works again.")}
FAILED = {True: "Failed to disable license key", False: "Failed to enable license key"}


class VendorKeysState(VendorState):
    is_open: bool = False
    agent_id: str = ""
    agent_name: str = ""
    loading: bool = False
    error: str = ""
    rows: list[KeyRow] = []
    total: int = 0
    offset: int = 0
    busy: str = ""  # the key a Disable / Enable runs on
    asking: str = ""  # the key whose Disable asks for the reason the buyer reads
    asking_key: str = ""  # that key, masked
    reason: str = ""

    @rx.var
    def range_text(self) -> str:
        if not self.rows:
            return f"Showing 0 of {self.total}"
        return f"Showing {self.offset + 1}-{self.offset + len(self.rows)} of {self.total}"

    @rx.var
    def has_previous(self) -> bool:
        return self.offset > 0

    @rx.var
    def has_next(self) -> bool:
        return self.offset + len(self.rows) < self.total

    async def _read(self) -> Any:
        """The current page; the error state (and a sign-in again when the session ended) on a refusal."""
        try:
            views, self.total = await blocking.run(licenses.vendor_keys, actor=await self.viewer(),
                                                   agent_id=self.agent_id, limit=PAGE_SIZE, offset=self.offset)
        except Unauthorized:
            self.loading = False
            return logged_out_again()
        except DomainError as error:
            self.loading, self.error, self.rows = False, error.message, []
            return None
        except Exception:  # logged; the dialog says so and offers Try again
            LOG.exception("license keys unavailable")
            self.loading, self.error, self.rows = False, LOAD_FAILED, []
            return None
        zone = time_zone(self.time_zone)
        self.rows, self.error, self.loading = [key_row(view, zone) for view in views], "", False
        return None

    @rx.event
    async def open_for(self, agent_id: str, agent_name: str) -> AsyncIterator[Any]:
        """The agent row's License keys button: the dialog opens on its first page."""
        self.is_open, self.agent_id, self.agent_name = True, agent_id, agent_name
        self.loading, self.error, self.rows, self.total, self.offset, self.busy = True, "", [], 0, 0, ""
        self.asking = self.asking_key = self.reason = ""
        yield
        yield await self._read()

    @rx.event
    def set_is_open(self, value: bool) -> None:
        if not value and not self.busy:
            self.is_open = False

    @rx.event
    async def retry(self) -> AsyncIterator[Any]:
        self.loading, self.error = True, ""
        yield
        yield await self._read()

    @rx.event
    async def next_page(self) -> Any:
        if self.offset + len(self.rows) >= self.total:
            return None
        self.offset += PAGE_SIZE
        return await self._read()

    @rx.event
    async def previous_page(self) -> Any:
        if self.offset == 0:
            return None
        self.offset = max(0, self.offset - PAGE_SIZE)
        return await self._read()

    @rx.event
    def ask_disable(self, key_id: str, key: str) -> None:
        """Disable asks first for the reason the buyer reads (in My Agents and a mail)."""
        if not self.busy:
            self.asking, self.asking_key, self.reason = key_id, key, ""

    @rx.event
    def cancel_disable(self) -> None:
        if not self.busy:
            self.asking = self.asking_key = self.reason = ""

    @rx.event
    def set_reason(self, value: str) -> None:
        self.reason = value[:2000]

    @rx.event
    async def confirm_disable(self, form: dict | None = None) -> AsyncIterator[Any]:
        """The reason form's Disable: what the box held, even if its last change event is still on its way."""
        if form and isinstance(form.get("reason"), str):
            self.reason = form["reason"][:2000]
        async for event in self._change(self.asking, True):
            yield event

    @rx.event
    async def set_disabled(self, key_id: str, disabled: bool) -> AsyncIterator[Any]:
        """Enable (a Disable goes through `ask_disable` and `confirm_disable`, with its reason)."""
        async for event in self._change(key_id, bool(disabled)):
            yield event

    async def _change(self, key_id: str, disabled: bool) -> AsyncIterator[Any]:
        """Disable or Enable: the toast says what happened; the page is read again either way (a refusal
        usually means the key changed meanwhile), but a refused reason keeps its form open."""
        if self.busy or not key_id:
            return
        self.busy = key_id
        yield
        try:
            await blocking.run(licenses.set_disabled, actor=await self.viewer(), key_id=key_id, disabled=disabled,
                               reason=(self.reason.strip() or None) if disabled else None)
        except Unauthorized:
            self.busy = ""
            yield logged_out_again()
            return
        except Invalid as error:
            self.busy = ""
            yield rx.toast.error(FAILED[disabled], description=error.message)
            return
        except DomainError as error:
            self.busy = ""
            yield rx.toast.error(FAILED[disabled], description=error.message)
        except Exception:  # logged; the vendor is told it did not work
            LOG.exception("license key change failed")
            self.busy = ""
            yield rx.toast.error(FAILED[disabled], description="Please try again.")
        else:
            self.busy = ""
            yield rx.toast.success(DONE[disabled][0], description=DONE[disabled][1])
        self.asking = self.asking_key = self.reason = ""
        yield await self._read()
