"""The Profile tab's receipt details (business name, billing address, tax ID): their own small form, loaded when
the card mounts, so the dashboard's state does not carry them. Receipts numbered afterwards show them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

import reflex as rx

from marketplace.models import User
from marketplace.services import users
from marketplace.services.receipts import buyer_details
from marketplace.state.forms import FormState, focus_first_error, take_submitted
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.session import ViewerMixin

# API field name -> this form's field
_FIELDS = {"businessName": "business_name", "billingAddress": "billing_address", "taxId": "tax_id"}


class ReceiptDetailsState(ViewerMixin, FormState, rx.State):
    FORM_FIELDS: ClassVar[dict[str, str]] = {f"form_{name}": name for name in _FIELDS.values()}

    editing: bool = False
    saving: bool = False
    business_name: str = ""
    billing_address: str = ""
    tax_id: str = ""
    form_business_name: str = ""
    form_billing_address: str = ""
    form_tax_id: str = ""

    def _show(self, user: User | None) -> None:
        self.business_name = (user.business_name or "") if user else ""
        self.billing_address = (user.billing_address or "") if user else ""
        self.tax_id = (user.tax_id or "") if user else ""

    @rx.var
    def changed(self) -> bool:
        return (self.form_business_name, self.form_billing_address, self.form_tax_id) != (
            self.business_name, self.billing_address, self.tax_id)

    # Each field's error line (the page reads these: a Var's dict has no typed `.get`).
    @rx.var
    def business_name_error(self) -> str:
        return self.errors.get("business_name", "")

    @rx.var
    def billing_address_error(self) -> str:
        return self.errors.get("billing_address", "")

    @rx.var
    def tax_id_error(self) -> str:
        return self.errors.get("tax_id", "")

    @rx.event
    async def load(self) -> None:
        self.editing = self.saving = False
        self.errors = {}
        self._show(await self.viewer())

    @rx.event
    def start_editing(self) -> None:
        self.form_business_name, self.form_billing_address, self.form_tax_id = (
            self.business_name, self.billing_address, self.tax_id)
        self.errors = {}
        self.editing = True

    @rx.event
    def cancel_editing(self) -> None:
        self.errors = {}
        self.editing = False

    @rx.event
    async def save(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, {name: f"form_{name}" for name in _FIELDS.values()})
        if self.saving:
            return
        found = buyer_details.errors(business_name=self.form_business_name,
                                     billing_address=self.form_billing_address, tax_id=self.form_tax_id)
        self.errors = {_FIELDS[field]: message for field, message in found.items()}
        if self.errors:
            yield focus_first_error()
            return
        self.saving = True
        yield
        done = await attempt(Toast("Update Failed", "Failed to update receipt details"),
                             users.update_receipt_details, actor=await self.viewer(),
                             business_name=self.form_business_name, billing_address=self.form_billing_address,
                             tax_id=self.form_tax_id)
        self.saving = False
        if done.failed:
            if (refusal := done.refusal) and (field := _FIELDS.get(refusal.field or "")):
                self.errors = {field: refusal.message}
                yield focus_first_error()
            yield done.events
            return
        self._show(done.value)
        self.editing = False
        yield rx.toast("Receipt Details Updated", description="Receipts of your next orders will show them.")
