"""The Applications tab: pending vendor applications, their details, approve and (confirmed) reject.

Decisions go per applicant (services/admin/applications.py decides on the user's pending application);
after each one the list is read again, so a decision made meanwhile in another tab shows too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import reflex as rx

from marketplace.services import names
from marketplace.services.admin import applications
from marketplace.services.errors import DomainError
from marketplace.state.admin.page import AdminState, admin_failed
from marketplace.state.display import format_day, format_day_time, time_zone

LOG = logging.getLogger(__name__)
PAGE = 20
APPROVE_FAILED = "Failed to approve vendor."
REJECT_FAILED = "Failed to reject vendor."


@dataclass
class ApplicationCard:
    user_id: str
    business_name: str
    business_description: str
    website: str
    applied: str
    applied_at: str  # with the time, for the details dialog
    status: str
    email: str
    applicant: str  # first and last name, else the username
    username: str


def _card(record: applications.ApplicationRecord, zone_name: str) -> ApplicationCard:
    application, zone = record.application, time_zone(zone_name)
    applicant = names.display_name(first_name=record.first_name, last_name=record.last_name, username=record.username)
    return ApplicationCard(
        user_id=application.user_id, business_name=application.business_name,
        business_description=application.business_description or "", website=application.website or "",
        applied=format_day(application.created_at, zone), applied_at=format_day_time(application.created_at, zone),
        status=str(application.status), email=record.email, applicant=applicant,
        username=record.username,
    )


class ApplicationsState(AdminState):
    loading: bool = True
    items: list[ApplicationCard] = []
    total: int = 0
    details_id: str = ""  # applicant whose details dialog is open
    confirm_id: str = ""  # applicant whose rejection waits for confirmation
    busy: str = ""  # applicant being decided

    @rx.var
    def confirm_name(self) -> str:
        return next((card.business_name for card in self.items if card.user_id == self.confirm_id), "")

    @rx.var
    def more(self) -> bool:
        return len(self.items) < self.total

    @rx.event
    def on_open(self) -> Iterator[Any]:
        """The tab opened: read the pending applications."""
        self.loading = True
        yield
        yield self._refresh()

    def _refresh(self) -> Any:
        """The first page again (after a decision too); the failure toast, if any, to send."""
        try:
            records, total = applications.list_applications(actor=self.current_user(), limit=PAGE)
        except DomainError as error:
            self.loading = False
            return admin_failed(error)
        self.items = [_card(r, self.time_zone) for r in records]
        self.total = total
        self.loading = False
        return None

    @rx.event
    def load_more(self) -> Iterator[Any]:
        try:
            records, total = applications.list_applications(actor=self.current_user(), limit=PAGE,
                                                            offset=len(self.items))
        except DomainError as error:
            yield admin_failed(error)
            return
        known = {card.user_id for card in self.items}
        self.items = self.items + [_card(r, self.time_zone) for r in records if r.application.user_id not in known]
        self.total = total

    @rx.event
    def show_details(self, user_id: str) -> None:
        self.details_id = user_id

    @rx.event
    def details_open_change(self, is_open: bool) -> None:
        if not is_open:
            self.details_id = ""

    @rx.event
    def ask_reject(self, user_id: str) -> None:
        self.confirm_id = user_id

    @rx.event
    def confirm_open_change(self, is_open: bool) -> None:
        if not is_open:
            self.confirm_id = ""

    @rx.event
    def approve(self, user_id: str) -> Iterator[Any]:
        if self.busy:
            return
        self.busy = user_id
        yield
        try:
            applications.approve(actor=self.current_user(), user_id=user_id)
        except Exception as error:  # a refusal shows its reason; anything else is logged
            if not isinstance(error, DomainError):
                LOG.exception("approve vendor failed")
            yield from self._after(admin_failed(error, APPROVE_FAILED))
            return
        self.details_id = ""
        yield from self._after(rx.toast("Vendor approved",
                                       description="The vendor application has been approved."))

    @rx.event
    def reject(self) -> Iterator[Any]:
        """The confirmation's Reject button: decide on the applicant it was opened for."""
        user_id = self.confirm_id
        if self.busy or not user_id:
            return
        self.busy = user_id
        yield
        try:
            applications.reject(actor=self.current_user(), user_id=user_id)
        except Exception as error:  # a refusal shows its reason; anything else is logged
            if not isinstance(error, DomainError):
                LOG.exception("reject vendor failed")
            self.confirm_id = ""
            yield from self._after(admin_failed(error, REJECT_FAILED))
            return
        self.confirm_id = self.details_id = ""
        yield from self._after(rx.toast("Vendor rejected",
                                       description="The vendor application has been rejected."))

    def _after(self, feedback: Any) -> Iterator[Any]:
        """Both outcomes refresh the list (spec section 4): a failed decision usually means it changed."""
        self.busy = ""
        self.refresh_counts_quietly()  # the shell's tab labels and summary cards
        yield feedback
        yield self._refresh()
