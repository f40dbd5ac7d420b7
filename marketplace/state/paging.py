"""The one paging model of the lists read a page at a time (the admin tabs, a vendor's license keys dialog).

Where the list is (`offset` of its first row, `shown` rows on this page, `total` on all pages), the words and
buttons of the pager (components/pager.py), and Previous / Next. The state reads its page in `_read` and sets
`shown` and `total` from what the service answered.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx


class Paged(rx.State, mixin=True):
    page_size: ClassVar[int] = 20
    offset: int = 0
    total: int = 0
    shown: int = 0  # rows on this page

    async def _read(self) -> Any:
        """Read the page at `offset`; the events to send (a failure's toast), if any."""
        raise NotImplementedError

    @rx.var
    def range_text(self) -> str:
        if self.total == 0 or self.shown == 0:
            return f"Showing 0 of {self.total}"
        return f"Showing {self.offset + 1}-{self.offset + self.shown} of {self.total}"

    @rx.var
    def has_previous(self) -> bool:
        return self.offset > 0

    @rx.var
    def has_next(self) -> bool:
        return self.offset + self.shown < self.total

    @rx.event
    async def next_page(self) -> Any:
        if self.offset + self.shown >= self.total:
            return None
        self.offset += self.page_size
        return await self._read()

    @rx.event
    async def previous_page(self) -> Any:
        if self.offset == 0:
            return None
        self.offset = max(0, self.offset - self.page_size)
        return await self._read()
