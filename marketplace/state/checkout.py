"""Checkout and purchase confirmation: a server-priced PaymentIntent, then the purchase recorded on the server.

The Payment Element (components/stripe_payment.py) confirms the payment with Stripe and reports the outcome;
these handlers turn it into the spec's progress steps, and a refusal into the message above the button.
Nothing the browser reports is trusted: `purchases.complete_payment` retrieves the PaymentIntent from Stripe
and checks it before recording anything.
Service calls run on a worker thread (`blocking.run`) so the event loop keeps serving other tabs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import reflex as rx

from marketplace.models import User
from marketplace.services import images, money, pricing, purchases
from marketplace.services.errors import DomainError
from marketplace.state import blocking
from marketplace.state.display import format_day
from marketplace.state.session import SessionState, toast_on_load

log = logging.getLogger(__name__)

UTC_ZONE = ZoneInfo("UTC")  # the checkout knows no browser zone; the renewal date is the server's day
SUCCESS_PATH = "/purchase-success"
ORDER_PARAM = "order"
NO_PURCHASE_PATH = "/dashboard"  # where /purchase-success sends a visit that follows no purchase
REDIRECT_DELAY_MS = 1000
CHECKOUT_FAILED = "Failed to initialize checkout"
PAYMENT_FAILED = "An unexpected error occurred"
STEP_VALIDATING = (25, "Validating payment...")
STEP_PROCESSING = (50, "Processing payment...")
STEP_COMPLETING = (75, "Completing purchase...")
STEP_DONE = (100, "Purchase successful!")


async def _signed_in_user(state: rx.State) -> User | None:
    session = await state.get_state(SessionState)
    return await session.viewer()


class CheckoutState(rx.State):
    """/checkout/[agent_id]: loading -> ready | failed; then the payment progress."""

    loading: bool = True
    failed: bool = False
    error_message: str = ""
    # The agent (named so as not to shadow the route's own `agent_id` var).
    item_id: str = ""
    item_name: str = ""
    item_image: str = ""
    is_free: bool = False
    price_label: str = ""  # money.price_label: '$29.99/month', '€45.08 one-time', 'Free'
    summary_line: str = ""  # pricing.order_summary_line: what the buyer gets
    # Amounts as the server formatted them: "$29.99", "€27.59".
    currency: str = "usd"
    total: str = ""
    fees: str = ""
    usd_price: str = ""
    exchange_rate: str = ""
    # What the Payment Element needs.
    client_secret: str = ""
    publishable_key: str = ""
    stripe_js_url: str = ""
    billing_name: str = ""
    billing_email: str = ""
    # Payment progress.
    progress: int = 0
    progress_label: str = ""
    processing: bool = False
    redirecting: bool = False
    # The last payment's refusal, shown above the button (not a toast over it); a new attempt clears it.
    payment_error: str = ""
    # The order just recorded: the success page is opened with it and shows it only if the server agrees.
    _order_id: str = ""

    @rx.var
    def is_eur(self) -> bool:
        return self.currency == "eur"

    @rx.var
    def pay_label(self) -> str:
        if self.redirecting:
            return "Redirecting..."
        if self.processing:
            return "Processing..."
        return f"Complete Payment • {self.total}"

    @rx.var
    def claim_label(self) -> str:
        if self.redirecting:
            return "Redirecting..."
        return "Processing..." if self.processing else "Get it free"

    def _route_agent_id(self) -> str:
        return str(getattr(self, "agent_id", "") or "").strip()

    def _fail(self, message: str) -> rx.event.EventSpec:
        self.loading, self.failed = False, True
        self.error_message = message or CHECKOUT_FAILED
        return toast_on_load("Checkout Error", self.error_message, error=True)

    @rx.event
    async def on_load(self) -> AsyncIterator[Any]:
        self.reset()  # the tab's state outlives page loads: never show the previous checkout
        yield
        user = await _signed_in_user(self)
        if user is None:
            self.loading = False
            yield [toast_on_load("Login Required", "Please log in to purchase agents", error=True),
                   rx.redirect("/login")]
            return
        agent_id = self._route_agent_id()
        if not agent_id:
            self.loading, self.failed = False, True
            self.error_message = "Agent ID is required"
            yield toast_on_load("Invalid Request", "Agent ID is required", error=True)
            return
        self.billing_name = f"{user.first_name or ''} {user.last_name or ''}".strip() or "Customer"
        self.billing_email = user.email
        try:
            agent = await blocking.run(purchases.checkout_agent, actor=user, agent_id=agent_id)
            self.item_id, self.item_name = agent.id, agent.name
            self.item_image = images.displayable_image_url(agent.image_url)
            self.usd_price = money.format_amount(agent.price_usd_cents, "usd")
            self.summary_line = pricing.order_summary_line(
                pricing_model=agent.pricing_model, price_cents=agent.price_usd_cents,
                renews_on=format_day(pricing.one_month_after(datetime.now(UTC)), UTC_ZONE))
            if agent.is_free:
                self.is_free = True
                self.price_label = money.price_label(0, pricing_model=agent.pricing_model)
                self.total = self.fees = money.format_amount(0, "usd")
            else:
                config = purchases.browser_config()
                intent = await blocking.run(purchases.create_payment_intent, actor=user, agent_id=agent_id)
                self.publishable_key, self.stripe_js_url = config.publishable_key, config.stripe_js_url
                self.client_secret = intent.client_secret
                self.currency = intent.currency
                self.total = money.format_amount(intent.amount, intent.currency)
                self.price_label = money.price_label(intent.amount, currency=intent.currency,
                                                     pricing_model=agent.pricing_model)
                self.fees = money.format_amount(0, intent.currency)
                self.exchange_rate = money.format_rate(intent.exchange_rate)
        except DomainError as error:
            yield self._fail(error.message)
            return
        except Exception:
            log.exception("checkout of agent %s could not be prepared", agent_id)
            yield self._fail("")
            return
        self.loading = False

    @rx.event
    def back_to_agent(self) -> rx.event.EventSpec:
        """Browser back, when the previous page is ours; opened from elsewhere, the agent's page instead."""
        can_go_back = "(window.navigation ? window.navigation.canGoBack : window.history.length > 1)"
        return rx.call_script(f"{can_go_back} ? window.history.back()"
                              f" : window.location.assign({json.dumps('/agents/' + self.item_id)})")

    # --- the Payment Element's reports -------------------------------------------------------------------------

    @rx.event
    def payment_started(self) -> None:
        self.processing = True
        self.payment_error = ""
        self.progress, self.progress_label = STEP_VALIDATING

    @rx.event
    async def payment_succeeded(self, payment_intent_id: str) -> AsyncIterator[Any]:
        """Stripe says succeeded: have the server verify and record it, then move on to the success page."""
        if self.redirecting or not self.item_id:
            return
        self.processing = True
        self.progress, self.progress_label = STEP_PROCESSING
        yield
        user = await _signed_in_user(self)
        try:
            done = await blocking.run(purchases.complete_payment, actor=user,
                                     payment_intent_id=payment_intent_id, agent_id=self.item_id)
        except DomainError as error:
            self._payment_error(error.message)
            return
        except Exception:
            log.exception("payment %s could not be recorded", payment_intent_id)
            self._payment_error("")
            return
        self.progress, self.progress_label = STEP_COMPLETING
        yield
        yield self._succeeded(done.order.id)

    @rx.event
    def payment_incomplete(self, _status: str) -> None:
        self._payment_error(purchases.NOT_SUCCEEDED)

    @rx.event
    def payment_failed(self, message: str) -> None:
        self._payment_error(message)

    @rx.event
    def stripe_unavailable(self, message: str) -> rx.event.EventSpec:
        self.loading, self.failed = False, True
        self.error_message = message or CHECKOUT_FAILED
        return rx.toast.error("Checkout Error", description=self.error_message)

    def _payment_error(self, message: str) -> None:
        self.processing = self.redirecting = False
        self.progress, self.progress_label = 0, ""
        self.payment_error = message or PAYMENT_FAILED

    def _succeeded(self, order_id: str) -> rx.event.EventSpec:
        self._order_id = order_id
        self.progress, self.progress_label = STEP_DONE
        self.processing, self.redirecting = False, True
        return rx.call_script(f"new Promise((resolve) => setTimeout(resolve, {REDIRECT_DELAY_MS}))",
                              callback=CheckoutState.go_to_success)

    @rx.event
    def go_to_success(self, _done: Any = None) -> rx.event.EventSpec:
        return rx.redirect(f"{SUCCESS_PATH}?{urlencode({ORDER_PARAM: self._order_id})}")

    # --- free agents -----------------------------------------------------------------------------------------

    @rx.event
    async def claim_free(self) -> AsyncIterator[Any]:
        """Price 0: no payment, one order and one purchase recorded by the server."""
        if self.processing or self.redirecting or not self.is_free:
            return
        self.processing = True
        yield
        user = await _signed_in_user(self)
        try:
            done = await blocking.run(purchases.claim_free_agent, actor=user, agent_id=self.item_id)
        except DomainError as error:
            self.processing = False
            yield rx.toast.error("Checkout Error", description=error.message or CHECKOUT_FAILED)
            return
        yield self._succeeded(done.order.id)


class PurchaseSuccessState(rx.State):
    """/purchase-success: opened by the checkout with `?order=` (its order just recorded), or by Stripe with
    `?payment_intent=` after a redirect-based payment method. Either is checked by a service for this user;
    opened any other way (directly, a bookmark, someone else's order) it sends the user to the dashboard."""

    # The success content shows only once the server has confirmed a purchase (no confetti for nothing).
    confirmed: bool = False

    @rx.event
    async def on_load(self) -> AsyncIterator[Any]:
        self.confirmed = False
        params = self.router.url.query_parameters
        intent_id = params.get("payment_intent", "")
        if intent_id and params.get("redirect_status") not in (None, "succeeded"):
            yield [toast_on_load("Payment Error", purchases.NOT_SUCCEEDED, error=True), rx.redirect("/")]
            return
        yield
        user = await _signed_in_user(self)
        if not intent_id:
            try:
                await blocking.run(purchases.recent_purchase, actor=user, order_id=params.get(ORDER_PARAM, ""))
            except DomainError:
                yield rx.redirect(NO_PURCHASE_PATH)
                return
        else:
            try:
                await blocking.run(purchases.complete_payment, actor=user, payment_intent_id=intent_id)
            except DomainError as error:
                yield [toast_on_load("Payment Error", error.message or PAYMENT_FAILED, error=True),
                       rx.redirect("/")]
                return
        self.confirmed = True
        # Drop the order, or the intent id and its client secret, from the address bar.
        yield rx.call_script(f"window.history.replaceState(null, '', {SUCCESS_PATH!r})")
