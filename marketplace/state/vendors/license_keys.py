"""The License keys dialog of the vendor's agent list: one own agent's keys (masked), page by page, with Disable
(with the reason the buyer reads) / Enable. Every rule (whose keys, which change is allowed, that a reason is
given) is services/licenses'; this shows its answers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

import reflex as rx

from marketplace.services import licenses
from marketplace.services.errors import Invalid
from marketplace.state.display import time_zone
from marketplace.state.license_rows import KeyRow, key_row
from marketplace.state.paging import Paged
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.vendors.page import VendorState

PAGE_SIZE = 10
LOAD_FAILED = "Could not load the license keys."
# A refusal's reason, or (logged) LOAD_FAILED, in the dialog; it offers Try again.
READ_FAILED = Toast(None, LOAD_FAILED, unexpected=True, log="license keys unavailable")
DONE = {True: ("License key disabled", "The buyer's agent can no longer activate or validate it."),
        False: ("License key enabled", "The key works again.")}
FAILED = {True: "Failed to disable license key", False: "Failed to enable license key"}


class VendorKeysState(Paged, VendorState):
    page_size: ClassVar[int] = PAGE_SIZE
    is_open: bool = False
    agent_id: str = ""
    agent_name: str = ""
    loading: bool = False
    error: str = ""
    rows: list[KeyRow] = []
    busy: str = ""  # the key a Disable / Enable runs on
    asking: str = ""  # the key whose Disable asks for the reason the buyer reads
    asking_key: str = ""  # that key, masked
    reason: str = ""

    async def _read(self) -> Any:
        """The current page; the error state (and a sign-in again when the session ended) on a refusal."""
        done = await attempt(READ_FAILED, licenses.vendor_keys, actor=await self.viewer(), agent_id=self.agent_id,
                             limit=PAGE_SIZE, offset=self.offset)
        if done.signed_out:
            self.loading = False
            return done.events
        if done.failed:
            self.loading, self.error, self.rows, self.shown = False, done.message, [], 0
            return None
        views, self.total = done.value
        zone = time_zone(self.time_zone)
        self.rows, self.error, self.loading = [key_row(view, zone) for view in views], "", False
        self.shown = len(self.rows)
        return None

    @rx.event
    async def open_for(self, agent_id: str, agent_name: str) -> AsyncIterator[Any]:
        """The agent row's License keys button: the dialog opens on its first page."""
        self.is_open, self.agent_id, self.agent_name = True, agent_id, agent_name
        self.loading, self.error, self.rows, self.total, self.offset, self.busy = True, "", [], 0, 0, ""
        self.asking = self.asking_key = self.reason = ""
        self.shown = 0
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
        # unexpected failures are logged; the vendor is told it did not work
        done = await attempt(Toast(FAILED[disabled], "Please try again.", unexpected=True,
                                   log="license key change failed"),
                             licenses.set_disabled, actor=await self.viewer(), key_id=key_id, disabled=disabled,
                             reason=(self.reason.strip() or None) if disabled else None)
        self.busy = ""
        if done.signed_out:
            yield done.events
            return
        if isinstance(done.error, Invalid):
            yield done.events  # the reason was refused: its form stays open with it
            return
        yield done.events if done.failed else rx.toast.success(DONE[disabled][0], description=DONE[disabled][1])
        self.asking = self.asking_key = self.reason = ""
        yield await self._read()
