"""The Vendors tab: vendors page by page with search, the details dialog with Approve Now, and delete."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import reflex as rx

from marketplace.models import User
from marketplace.services.admin import applications, people
from marketplace.state.admin.customers import PeopleTable, person_view
from marketplace.state.admin.page import AdminState, admin_failed


class VendorsState(PeopleTable, AdminState):
    approving: bool = False

    def _fetch(self, user: User | None, *, limit: int, offset: int, search: str) -> tuple[int, int]:
        found, total = people.list_vendors(actor=user, limit=limit, offset=offset, search=search or None)
        self.rows = [person_view(row, self._zone()) for row in found]
        return len(found), total

    @rx.event
    def approve(self) -> Iterator[Any]:
        """Approve Now: the vendor's pending application is approved (the application service's rule)."""
        if self.approving or not self.viewing.id:
            return
        self.approving = True
        yield
        try:
            applications.approve(actor=self.current_user(), user_id=self.viewing.id)
        except Exception as error:  # no pending application, or the database: the spec's message
            self.approving = False
            yield admin_failed(error, "Failed to approve vendor.")
            return
        self.approving = False
        self.view_open = False
        yield rx.toast.success("Vendor approved", description="The vendor application has been approved.")
        self.refresh_counts_quietly()
        yield self._read()
