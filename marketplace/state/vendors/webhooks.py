"""The Webhooks tab of /vendor: add an endpoint (URL and events), its secret shown once, the list with Delete,
Rotate secret and Send test event, and one endpoint's delivery log with Resend. Every rule (URL, events, whose
endpoint, when Resend is allowed) is services/webhooks'; this shows its answers. While the open log has a
delivery still pending, it is read again every `WATCH_SECONDS` (a background task) until none is."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import reflex as rx

from marketplace.models import WebhookDelivery
from marketplace.services import webhooks
from marketplace.services.errors import DomainError
from marketplace.state import blocking
from marketplace.state.display import format_day_time, time_zone
from marketplace.state.service_calls import QUIET, Toast, attempt
from marketplace.state.vendors.page import VendorState

EVENTS: tuple[str, ...] = webhooks.events.EVENTS
WATCH_SECONDS = 1.0
WATCH_ROUNDS = 120  # two minutes of a pending log; Refresh reads it again after that
LOAD_FAILED = Toast(None, "Could not load your webhooks.", unexpected=True, log="webhooks unavailable")
ACTION_FAILED = {
    "delete": Toast("Failed to delete endpoint", "Please try again.", unexpected=True, log="webhook delete failed"),
    "rotate": Toast("Failed to rotate secret", "Please try again.", unexpected=True, log="webhook rotate failed"),
    "test": Toast("Failed to send test event", "Please try again.", unexpected=True, log="webhook test failed"),
    "resend": Toast("Failed to resend", "Please try again.", unexpected=True, log="webhook resend failed"),
}


@dataclass
class EndpointRow:
    id: str
    url: str
    events: str  # 'sale.completed, refund.completed'
    created: str


@dataclass
class DeliveryRow:
    id: str
    type: str
    status: str
    attempts: int
    response: str  # '200', or '—' without an answer
    duration: str  # '123 ms'
    created: str
    error: str
    can_resend: bool


class VendorWebhooksState(VendorState):
    loading: bool = True
    error: str = ""
    endpoints: list[EndpointRow] = []
    url: str = ""
    form_error: str = ""
    adding: bool = False
    secret: str = ""  # a new or rotated secret, shown once
    secret_url: str = ""
    busy: str = ""  # the endpoint or delivery an action runs on
    log_for: str = ""  # the endpoint whose delivery log is open
    log_url: str = ""
    log_loading: bool = False
    log_error: str = ""
    deliveries: list[DeliveryRow] = []

    def _endpoint_row(self, view: webhooks.EndpointView) -> EndpointRow:
        return EndpointRow(
            id=view.id,
            url=view.url,
            events=", ".join(view.events),
            created=format_day_time(view.created_at, time_zone(self.time_zone)),
        )

    def _delivery_row(self, row: WebhookDelivery) -> DeliveryRow:
        return DeliveryRow(
            id=row.id,
            type=row.type,
            status=row.status,
            attempts=row.attempts,
            response=str(row.last_response_code) if row.last_response_code is not None else "—",
            duration=f"{row.last_duration_ms} ms" if row.last_duration_ms is not None else "—",
            created=format_day_time(row.created_at, time_zone(self.time_zone)),
            error=row.last_error or "",
            can_resend=row.status != "pending",
        )

    @rx.event
    async def load(self) -> AsyncIterator[Any]:
        """Runs when the tab's panel mounts."""
        self.loading, self.error, self.endpoints = True, "", []
        self.url, self.form_error, self.secret, self.secret_url = "", "", "", ""
        self.log_for, self.deliveries, self.busy = "", [], ""
        yield
        yield await self._read()

    async def _read(self) -> Any:
        done = await attempt(LOAD_FAILED, webhooks.list_endpoints, actor=await self.viewer())
        self.loading = done.signed_out and done.failed  # signed out: the skeleton stays until the sign-in page
        if done.failed:
            self.error = done.message
            return done.events
        self.endpoints, self.error = [self._endpoint_row(v) for v in done.value], ""
        return None

    @rx.event
    def set_url(self, value: str) -> None:
        self.url, self.form_error = value[:2100], ""

    @rx.var
    def has_endpoints(self) -> bool:
        return bool(self.endpoints)

    @rx.var
    def has_deliveries(self) -> bool:
        return bool(self.deliveries)

    @rx.event
    async def add(self, form: dict | None = None) -> AsyncIterator[Any]:
        """Add Endpoint: the service says what is wrong with the URL or the events, under the form."""
        if self.adding:
            return
        form = form or {}
        if isinstance(form.get("url"), str):  # what the box held, even if its last change is on its way
            self.url = form["url"][:2100]
        chosen = [e for e in EVENTS if form.get(f"event:{e}")]  # the checkboxes, as sent with the form
        self.adding, self.form_error = True, ""
        yield
        done = await attempt(QUIET, webhooks.create_endpoint, actor=await self.viewer(), url=self.url, events=chosen)
        self.adding = False
        if done.failed:
            self.form_error = done.message
            yield done.events
            return
        made = done.value
        self.secret, self.secret_url, self.url = made.secret, made.endpoint.url, ""
        self.endpoints = [*self.endpoints, self._endpoint_row(made.endpoint)]
        yield rx.call_script("document.getElementById('webhook-form')?.reset()")  # the boxes unticked
        yield rx.toast.success("Endpoint added", description="Copy its signing secret now: it is shown only once.")

    @rx.event
    def copy_secret(self) -> list[Any]:
        return [rx.set_clipboard(self.secret), rx.toast("Secret copied", description="Keep it on your server.")]

    @rx.event
    def dismiss_secret(self) -> None:
        self.secret = self.secret_url = ""

    async def _act(self, key: str, target: str, fn: Any, **kwargs: Any) -> tuple[Any, list[Any] | None]:
        """Run one action on `target`; (value, None) or (None, the events that say why not)."""
        self.busy = target
        done = await attempt(ACTION_FAILED[key], fn, actor=await self.viewer(), **kwargs)
        self.busy = ""
        return (None, done.events) if done.failed else (done.value, None)

    @rx.event
    async def delete(self, endpoint_id: str) -> AsyncIterator[Any]:
        if self.busy:
            return
        yield
        _, failed = await self._act("delete", endpoint_id, webhooks.delete_endpoint, endpoint_id=endpoint_id)
        if failed is not None:
            yield failed
            yield await self._read()
            return
        self.endpoints = [e for e in self.endpoints if e.id != endpoint_id]
        if self.log_for == endpoint_id:
            self.log_for, self.deliveries = "", []
        yield rx.toast.success("Endpoint deleted")

    @rx.event
    async def rotate(self, endpoint_id: str) -> AsyncIterator[Any]:
        if self.busy:
            return
        yield
        made, failed = await self._act("rotate", endpoint_id, webhooks.rotate_secret, endpoint_id=endpoint_id)
        if failed is not None:
            yield failed
            return
        self.secret, self.secret_url = made.secret, made.endpoint.url
        yield rx.toast.success("Secret rotated", description="Deliveries are signed with the new secret from now on.")

    @rx.event
    async def send_test(self, endpoint_id: str) -> AsyncIterator[Any]:
        if self.busy:
            return
        yield
        _, failed = await self._act("test", endpoint_id, webhooks.send_test, endpoint_id=endpoint_id)
        if failed is not None:
            yield failed
            return
        yield rx.toast.success("Test event queued", description="It shows in the endpoint's delivery log.")
        async for event in self._open(endpoint_id):
            yield event

    @rx.event
    async def open_log(self, endpoint_id: str) -> AsyncIterator[Any]:
        """The endpoint's Delivery log button (again: close it)."""
        if self.log_for == endpoint_id:
            self.log_for, self.deliveries = "", []
            return
        async for event in self._open(endpoint_id):
            yield event

    async def _open(self, endpoint_id: str) -> AsyncIterator[Any]:
        self.log_for, self.log_loading, self.log_error = endpoint_id, True, ""
        self.log_url = next((e.url for e in self.endpoints if e.id == endpoint_id), "")
        yield
        yield await self._read_log()
        if any(d.status == "pending" for d in self.deliveries):
            yield VendorWebhooksState.watch_log(endpoint_id)

    async def _read_log(self) -> Any:
        done = await attempt(LOAD_FAILED, webhooks.list_deliveries, actor=await self.viewer(), endpoint_id=self.log_for)
        self.log_loading = False
        if done.failed:
            self.log_error, self.deliveries = done.message, []
            return done.events
        self.deliveries, self.log_error = [self._delivery_row(r) for r in done.value], ""
        return None

    @rx.event
    async def refresh_log(self) -> AsyncIterator[Any]:
        if not self.log_for:
            return
        yield await self._read_log()
        if any(d.status == "pending" for d in self.deliveries):
            yield VendorWebhooksState.watch_log(self.log_for)

    @rx.event(background=True)
    async def watch_log(self, endpoint_id: str) -> None:
        """Read the open log again while a delivery in it is pending (the vendor sees it succeed or fail)."""
        for _ in range(WATCH_ROUNDS):
            await asyncio.sleep(WATCH_SECONDS)
            async with self:
                if self.log_for != endpoint_id or not any(d.status == "pending" for d in self.deliveries):
                    return
                user = await self.viewer()
            try:
                rows = await blocking.run(webhooks.list_deliveries, actor=user, endpoint_id=endpoint_id)
            except DomainError:
                return
            async with self:
                if self.log_for != endpoint_id:
                    return
                self.deliveries = [self._delivery_row(r) for r in rows]

    @rx.event
    async def resend(self, delivery_id: str) -> AsyncIterator[Any]:
        if self.busy:
            return
        yield
        _, failed = await self._act("resend", delivery_id, webhooks.resend, delivery_id=delivery_id)
        if failed is not None:
            yield failed
        else:
            yield rx.toast.success("Delivery queued again")
        yield await self._read_log()
        if any(d.status == "pending" for d in self.deliveries):
            yield VendorWebhooksState.watch_log(self.log_for)
