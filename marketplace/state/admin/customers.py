"""The Customers tab: customers page by page with search, the details dialog, and delete (confirmed)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.models import User
from marketplace.services import images, names
from marketplace.services.admin import deletion, people
from marketplace.state.admin.page import AdminState, admin_failed
from marketplace.state.admin.paging import PagedTable
from marketplace.state.display import format_day


@dataclass
class PersonView:
    id: str = ""
    name: str = ""
    email: str = ""
    username: str = ""
    role: str = ""
    joined: str = ""
    image_url: str = ""
    approved: bool = False
    agent_count: int = 0


def person_view(row: people.PersonRow, zone: ZoneInfo) -> PersonView:
    name = names.display_name(first_name=row.first_name, last_name=row.last_name, username=row.username)
    return PersonView(id=row.id, name=name, email=row.email or "", username=row.username,
                      role=row.role, joined=format_day(row.created_at, zone),
                      image_url=images.displayable_image_url(row.profile_image_url),
                      approved=bool(row.is_vendor_approved), agent_count=row.agent_count)


class PeopleTable(PagedTable, mixin=True):
    """Customers and vendors: the rows, the one being viewed and the one waiting for a delete confirmation."""

    rows: list[PersonView] = []
    viewing: PersonView = PersonView()
    view_open: bool = False
    confirm_id: str = ""
    confirm_name: str = ""
    busy: bool = False

    @rx.event
    def view(self, person_id: str) -> None:
        found = next((row for row in self.rows if row.id == person_id), None)
        if found is not None:
            self.viewing = found
            self.view_open = True

    @rx.event
    def set_view_open(self, value: bool) -> None:
        self.view_open = value

    @rx.event
    def ask_delete(self, person_id: str) -> None:
        found = next((row for row in self.rows if row.id == person_id), None)
        if found is not None:
            self.confirm_id, self.confirm_name = found.id, found.name

    @rx.event
    def cancel_delete(self) -> None:
        if not self.busy:
            self.confirm_id = self.confirm_name = ""

    @rx.event
    def delete(self) -> Iterator[Any]:
        """DELETE the user (soft; orders and commissions stay), then the list and the counts follow."""
        if self.busy or not self.confirm_id:
            return
        self.busy = True
        yield
        try:
            deletion.delete_user(actor=self.current_user(), user_id=self.confirm_id)
        except Exception as error:  # refused, gone, or the database: the spec's message (cause logged)
            self.busy = False
            self.confirm_id = self.confirm_name = ""
            yield admin_failed(error, "Failed to delete user.")
            return
        self.busy = False
        self.confirm_id = self.confirm_name = ""
        self.view_open = False
        yield rx.toast.success("User deleted", description="The user has been successfully deleted.")
        self.refresh_counts_quietly()
        yield self._read()


class CustomersState(PeopleTable, AdminState):
    def _fetch(self, user: User | None, *, limit: int, offset: int, search: str) -> tuple[int, int]:
        found, total = people.list_customers(actor=user, limit=limit, offset=offset, search=search or None)
        self.rows = [person_view(row, self._zone()) for row in found]
        return len(found), total
