"""Server-side paging and search shared by the admin tables: the page's offset, the total and the search term.

A table state mixes this in and implements `_fetch` (one page from its service); the mixin keeps the window.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import reflex as rx

from marketplace.models import User
from marketplace.services.errors import DomainError
from marketplace.state.admin.page import admin_failed
from marketplace.state.display import time_zone

PAGE_SIZE = 20


class PagedTable(rx.State, mixin=True):
    loading: bool = True
    offset: int = 0
    total: int = 0
    shown: int = 0  # rows on this page
    search: str = ""

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

    def _fetch(self, user: User | None, *, limit: int, offset: int, search: str) -> tuple[int, int]:
        """Put one page in the state's rows; return (rows on the page, total on all pages)."""
        raise NotImplementedError

    def _zone(self) -> Any:
        return time_zone(getattr(self, "time_zone", "UTC"))

    def _read(self) -> rx.event.EventSpec | list[rx.event.EventSpec] | None:
        try:
            self.shown, self.total = self._fetch(self.current_user(), limit=PAGE_SIZE, offset=self.offset,
                                                 search=self.search.strip())
        except DomainError as error:
            self.loading = False
            return admin_failed(error, error.message)
        if self.shown == 0 and self.offset > 0 and self.total > 0:  # the page emptied (rows deleted): step back
            self.offset = max(0, (self.total - 1) // PAGE_SIZE * PAGE_SIZE)
            return self._read()
        self.loading = False
        return None

    @rx.event
    def on_open(self) -> Iterator[Any]:
        """Runs when the tab's panel mounts: the first page, no search."""
        self.loading = True
        self.offset = 0
        self.search = ""
        yield
        yield self._read()

    @rx.event
    def set_search(self, value: str) -> rx.event.EventSpec | list[rx.event.EventSpec] | None:
        self.search = value[:200]
        self.offset = 0
        return self._read()

    @rx.event
    def next_page(self) -> rx.event.EventSpec | list[rx.event.EventSpec] | None:
        if self.offset + self.shown >= self.total:
            return None
        self.offset += PAGE_SIZE
        return self._read()

    @rx.event
    def previous_page(self) -> rx.event.EventSpec | list[rx.event.EventSpec] | None:
        if self.offset == 0:
            return None
        self.offset = max(0, self.offset - PAGE_SIZE)
        return self._read()
