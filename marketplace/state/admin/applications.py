"""The Applications tab: pending vendor applications, their details, approve and (confirmed) reject.

Decisions go per applicant (services/admin/applications.py decides on the user's pending application).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar
from zoneinfo import ZoneInfo

from marketplace.models import User
from marketplace.services import names
from marketplace.services.admin import applications
from marketplace.state.admin.listing import Action, AdminList
from marketplace.state.admin.page import AdminState
from marketplace.state.display import format_day, format_day_time

APPROVE = Action(applications.approve, "user_id", ("Vendor approved", "The vendor application has been approved."),
                 "Failed to approve vendor.", plain_toast=True)
REJECT = Action(applications.reject, "user_id", ("Vendor rejected", "The vendor application has been rejected."),
                "Failed to reject vendor.", title="Reject application", label="Reject", plain_toast=True,
                confirm="Are you sure you want to reject this vendor application?")


@dataclass
class ApplicationCard:
    id: str = ""  # the applicant's user id
    business_name: str = ""
    business_description: str = ""
    website: str = ""
    applied: str = ""
    applied_at: str = ""  # with the time, for the details dialog
    status: str = ""
    email: str = ""
    applicant: str = ""  # first and last name, else the username
    username: str = ""


def _card(record: applications.ApplicationRecord, zone: ZoneInfo) -> ApplicationCard:
    application = record.application
    applicant = names.display_name(first_name=record.first_name, last_name=record.last_name, username=record.username)
    return ApplicationCard(
        id=application.user_id, business_name=application.business_name,
        business_description=application.business_description or "", website=application.website or "",
        applied=format_day(application.created_at, zone), applied_at=format_day_time(application.created_at, zone),
        status=str(application.status), email=record.email, applicant=applicant, username=record.username,
    )


class ApplicationsState(AdminList, AdminState):
    rows: list[ApplicationCard] = []
    viewing: ApplicationCard = ApplicationCard()
    _actions: ClassVar = {"approve": APPROVE, "reject": REJECT}

    @staticmethod
    def _fetch(user: User | None, *, limit: int, offset: int, search: str,
               zone: ZoneInfo) -> tuple[list[ApplicationCard], int]:
        records, total = applications.list_applications(actor=user, limit=limit, offset=offset)
        return [_card(r, zone) for r in records], total
