"""The one list state of the admin tabs: a page of rows from a service, search, paging, the details dialog and
row actions declared as data (service, confirmation or reason prompt, toasts).

A tab's state mixes `AdminList` into `AdminState`, declares `rows` and `viewing` with its row view, reads a page
in `_fetch` (with the tab's filters from `_filters`, if it has any) and names its actions in `_actions`; every
action follows the same steps: busy, the service on a worker thread, the toast, the counts, the list again
(after a failure too: it usually means the row changed).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.models import User
from marketplace.services.errors import Invalid
from marketplace.state.admin.page import AdminToast
from marketplace.state.display import time_zone
from marketplace.state.paging import Paged
from marketplace.state.service_calls import attempt

PAGE_SIZE = 20


@dataclass(frozen=True)
class Action:
    """One row action: `service(actor=admin, **{key: row id})`, and what the admin reads before and after.

    `confirm` is the question a confirmation dialog asks first; `reason` is the keyword a typed reason is sent
    as (trimmed, absent when empty), asked for in a reason dialog. A refusal of the reason itself keeps that
    dialog open, so it can be shortened."""

    service: Callable[..., object]
    key: str
    success: tuple[str, str]
    failure: str
    title: str = ""  # of the confirmation or reason dialog
    confirm: str = ""
    label: str = ""  # the dialog's confirming button
    reason: str = ""
    plain_toast: bool = False  # a neutral toast rather than a success one (the moderation tabs)


class AdminList(Paged, mixin=True):
    """Rows of one service page by page; the state declares `rows`, `viewing`, `_fetch` and `_actions`."""

    page_size: ClassVar[int] = PAGE_SIZE
    loading: bool = True
    search: str = ""
    details_open: bool = False
    asking: str = ""  # the action whose dialog is open
    asking_id: str = ""
    asking_name: str = ""
    reason: str = ""
    busy: str = ""  # the row an action runs on

    if TYPE_CHECKING:  # given by the admin page state (AdminState) the list is mixed into

        async def viewer(self) -> User | None: ...

        async def refresh_counts_quietly(self) -> None: ...

    _actions: ClassVar[dict[str, Action]] = {}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str, zone: ZoneInfo) -> tuple[list[Any], int]:
        """One page of row views and the total on all pages (runs on a worker thread)."""
        raise NotImplementedError

    def _filters(self) -> dict[str, Any]:
        """More keywords for `_fetch`: the tab's filters (Reports: the status shown)."""
        return {}

    def _followers(self) -> list[Any]:
        """Events of other lists that an action here changes (Approvals: the decided agent moves sub-tab)."""
        return []

    async def _read(self) -> Any:
        """The current page again; the failure toast, if any, to send."""
        zone = time_zone(getattr(self, "time_zone", "UTC"))
        done = await attempt(AdminToast(), self._fetch, await self.viewer(), limit=PAGE_SIZE, offset=self.offset,
                             search=self.search.strip(), zone=zone, **self._filters())
        if done.failed:
            self.loading = False
            return done.events
        rows, self.total = done.value
        if not rows and self.offset > 0 and self.total > 0:  # the page emptied (rows decided): step back
            self.offset = max(0, (self.total - 1) // PAGE_SIZE * PAGE_SIZE)
            return await self._read()
        self.rows, self.shown, self.loading = rows, len(rows), False
        return None

    @rx.event
    async def on_open(self) -> AsyncIterator[Any]:
        """The tab's panel mounted: the first page, no search."""
        self.loading, self.offset, self.search = True, 0, ""
        self.details_open = False
        yield
        yield await self._read()

    @rx.event
    async def reload(self) -> Any:
        return await self._read()

    @rx.event
    async def set_search(self, value: str) -> Any:
        self.search, self.offset = value[:200], 0
        return await self._read()

    @rx.event
    def view(self, row_id: str) -> None:
        found = next((row for row in self.rows if row.id == row_id), None)
        if found is not None:
            self.viewing, self.details_open = found, True

    @rx.event
    def set_details_open(self, value: bool) -> None:
        self.details_open = value

    @rx.event
    def ask(self, action: str, row_id: str, name: str) -> None:
        """Open the action's confirmation or reason dialog for the row."""
        if not self.busy and action in self._actions:
            self.asking, self.asking_id, self.asking_name, self.reason = action, row_id, name, ""

    @rx.event
    def set_asking_open(self, is_open: bool) -> None:
        """Closed by Cancel, Escape or the overlay: the typed reason goes with it."""
        if not is_open and not self.busy:
            self.asking = self.asking_id = self.asking_name = self.reason = ""

    @rx.event
    def set_reason(self, value: str) -> None:
        self.reason = value

    @rx.event
    async def act(self, action: str, row_id: str) -> AsyncIterator[Any]:
        """An action without a question (Approve)."""
        async for event in self._run(action, row_id):
            yield event

    @rx.event
    async def answer(self, form: dict | None = None) -> AsyncIterator[Any]:
        """The dialog's confirming button: the asked action on the row it was opened for."""
        if form and isinstance(form.get("reason"), str):
            self.reason = form["reason"]  # what the box held, even if its last change event is still on its way
        async for event in self._run(self.asking, self.asking_id):
            yield event

    async def _run(self, name: str, row_id: str) -> AsyncIterator[Any]:
        action = self._actions.get(name)
        if self.busy or action is None or not row_id:
            return
        self.busy = row_id
        yield
        arguments: dict[str, Any] = {action.key: row_id}
        if action.reason:
            arguments[action.reason] = self.reason.strip() or None
        # a refusal shows its reason; anything else is logged
        done = await attempt(AdminToast(action.failure, unexpected=True), action.service, actor=await self.viewer(),
                             **arguments)
        if done.failed:
            self.busy = ""
            yield done.events
            if isinstance(done.error, Invalid) and action.reason:
                return  # the reason was refused: the dialog stays open with it
        else:
            self.busy, self.details_open = "", False
            toast = rx.toast if action.plain_toast else rx.toast.success
            yield toast(action.success[0], description=action.success[1])
        self.asking = self.asking_id = self.asking_name = self.reason = ""
        await self.refresh_counts_quietly()
        failed = await self._read()
        yield [*(failed if isinstance(failed, list) else [failed] if failed else []), *self._followers()]
