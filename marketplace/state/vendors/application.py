"""The Become a Vendor form, on /vendor for non-vendors and on /vendor/apply: the service validates it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar

import reflex as rx

from marketplace.services.vendors import applications
from marketplace.state.forms import FormState, focus_first_error, take_submitted
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.vendors.page import VendorState

# form field name (the spec's, also the service's `field`) -> state attribute
FIELDS = {"businessName": "business_name", "businessDescription": "business_description", "website": "website"}
FAILED = "Failed to submit application. Please try again."


class VendorApplicationState(FormState, VendorState):
    FORM_FIELDS: ClassVar[dict[str, str]] = {attribute: name for name, attribute in FIELDS.items()}
    business_name: str = ""
    business_description: str = ""
    website: str = ""
    submitting: bool = False

    @rx.event
    async def submit(self, form: dict | None = None) -> AsyncIterator[Any]:
        take_submitted(self, form, FIELDS)
        if self.submitting:
            return
        self.errors = {}
        self.submitting = True
        yield
        user = await self.viewer()
        # whatever else broke: logged, and the user is told to try again
        done = await attempt(Toast(fallback=FAILED, unexpected=True, log="vendor application failed"),
                             applications.apply, actor=user, business_name=self.business_name,
                             business_description=self.business_description, website=self.website)
        if done.failed:
            self.submitting = False
            if (refusal := done.refusal) and refusal.field in FIELDS:
                self.errors = {refusal.field: refusal.message}
                yield focus_first_error()
                return
            yield done.events
            return
        self.submitting = False
        self.business_name = self.business_description = self.website = ""
        self.show_application(done.value)
        yield rx.toast("Application submitted", description="We will review your application within 24 hours.")
