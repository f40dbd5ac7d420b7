"""The Customers and Vendors tabs: people page by page with search, the details dialog and delete (confirmed);
vendors also Approve Now."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar
from zoneinfo import ZoneInfo

from marketplace.models import User
from marketplace.services import images, names
from marketplace.services.admin import applications, deletion, people
from marketplace.state.admin.listing import Action, AdminList
from marketplace.state.admin.page import AdminState
from marketplace.state.display import format_day

DELETE_USER = Action(deletion.delete_user, "user_id", ("User deleted", "The user has been successfully deleted."),
                     "Failed to delete user.", title="Delete customer", label="Delete",
                     confirm="Are you sure you want to delete this customer? This action cannot be undone.")
DELETE_VENDOR = Action(deletion.delete_user, "user_id", DELETE_USER.success, DELETE_USER.failure,
                       title="Delete vendor", label="Delete",
                       confirm="This action cannot be undone and will remove all their agents.")
APPROVE_VENDOR = Action(applications.approve, "user_id",
                        ("Vendor approved", "The vendor application has been approved."), "Failed to approve vendor.")


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
    agent_count: int = 0  # every agent of the vendor (the table's Agents column)
    published_count: int = 0  # the live ones (the details' Agents published)
    plan: str = ""  # a vendor's plan's name


def person_view(row: people.PersonRow, zone: ZoneInfo) -> PersonView:
    name = names.display_name(first_name=row.first_name, last_name=row.last_name, username=row.username)
    return PersonView(id=row.id, name=name, email=row.email or "", username=row.username,
                      role=row.role, joined=format_day(row.created_at, zone),
                      image_url=images.displayable_image_url(row.profile_image_url),
                      approved=bool(row.is_vendor_approved), agent_count=row.agent_count,
                      published_count=row.published_count, plan=row.plan_name or "")


class CustomersState(AdminList, AdminState):
    rows: list[PersonView] = []
    viewing: PersonView = PersonView()
    _actions: ClassVar = {"delete": DELETE_USER}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[PersonView], int]:
        found, total = people.list_customers(actor=user, limit=limit, offset=offset, search=search or None)
        return [person_view(row, zone) for row in found], total


class VendorsState(AdminList, AdminState):
    rows: list[PersonView] = []
    viewing: PersonView = PersonView()
    _actions: ClassVar = {"delete": DELETE_VENDOR, "approve": APPROVE_VENDOR}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[PersonView], int]:
        found, total = people.list_vendors(actor=user, limit=limit, offset=offset, search=search or None)
        return [person_view(row, zone) for row in found], total
