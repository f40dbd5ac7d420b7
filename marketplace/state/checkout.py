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
from decimal import Decimal
from typing import Any, ClassVar
from urllib.parse import urlencode
from zoneinfo import ZoneInfo

import reflex as rx
from reflex.event import EventSpec

from marketplace.models import PricingModel, User
from marketplace.services import (
    billing,
    guest_checkout,
    images,
    money,
    payment_errors,
    pricing,
    purchases,
    return_paths,
)
from marketplace.services.errors import Conflict, DomainError, Forbidden, Unauthorized
from marketplace.state import blocking
from marketplace.state.display import format_day, time_zone
from marketplace.state.forms import FormState, focus_first_error, take_submitted
from marketplace.state.service_calls import QUIET, Toast, attempt
from marketplace.state.session import SessionState, toast_on_load

log = logging.getLogger(__name__)

UTC_ZONE = ZoneInfo("UTC")  # the checkout knows no browser zone; the renewal date is the server's day
SUCCESS_PATH = "/purchase-success"
TRIAL_STARTED_PATH = "/dashboard"  # My Agents, where the trial's end date is
ORDER_PARAM = "order"
TRIAL_PARAM = "trial"  # a guest's free trial, started by this tab's checkout
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


def _complete(user: User | None, payment_intent_id: str, agent_id: str | None, *, guest: bool) -> purchases.Completion:
    """Record a payment Stripe says succeeded: a guest's as the webhook would, else the signed-in buyer's."""
    if guest:
        return purchases.complete_guest_payment(payment_intent_id=payment_intent_id, agent_id=agent_id)
    return purchases.complete_payment(actor=user, payment_intent_id=payment_intent_id, agent_id=agent_id)


def _complete_trial(user: User | None, subscription_id: str, agent_id: str, *, guest: bool) -> Any:
    """Record a free trial whose card Stripe saved: a guest checkout's, else the signed-in buyer's."""
    if guest:
        return billing.complete_guest_trial(subscription_id=subscription_id, agent_id=agent_id)
    return billing.complete_trial(actor=user, subscription_id=subscription_id, agent_id=agent_id)


class CheckoutState(FormState, rx.State):
    """/checkout/[agent_id]: loading -> ready | failed; then the payment progress."""

    FORM_FIELDS: ClassVar[dict[str, str]] = {"guest_email": "email", "guest_name": "name"}  # a guest's details

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
    # Guest checkout (signed out, the admin allows it): e-mail and name first, then the payment.
    guest: bool = False
    guest_email: str = ""
    guest_name: str = ""
    guest_error: str = ""  # a refusal of the details as a whole (409: sign in; 429; 403)
    preparing: bool = False
    # A promotion code (signed-in buyers, and guests once their details opened the payment): what was typed,
    # the code the server applied, what it took off and the price before it; a refusal is shown under the field
    # and the rest of the checkout stays as it was.
    promo_input: str = ""
    promo_code: str = ""
    promo_discount: str = ""  # "-$7.50"
    promo_error: str = ""
    promo_applying: bool = False
    subtotal: str = ""
    _promo_free: bool = False  # the code takes the whole price: claimed free with the code
    # A free trial (issue 31): 'setup' when the Payment Element saves the card (confirmSetup) instead of paying;
    # what checkout promises, or why this subscription starts paid (the buyer had the agent's trial).
    intent_type: str = "payment"
    trial_line: str = ""
    trial_used_line: str = ""
    # A monthly agent: 'Due today' when nothing is paid now (a trial, a 100% code) and what is charged next; a
    # code's months ('First 3 months, then $29.99/month').
    total_label: str = pricing.TOTAL
    then_line: str = ""
    promo_months: str = ""
    # The order just recorded: the success page is opened with it and shows it only if the server agrees.
    _order_id: str = ""
    _pricing_model: str = ""
    _subscription_id: str = ""

    @rx.var
    def is_eur(self) -> bool:
        return self.currency == "eur"

    @rx.var
    def pay_label(self) -> str:
        if self.redirecting:
            return "Redirecting..."
        if self.processing:
            return "Processing..."
        if self.intent_type == "setup":
            return "Start Free Trial" if self.trial_line else "Subscribe • Nothing due today"
        return f"Complete Payment • {self.total}"

    @rx.var
    def claim_label(self) -> str:
        if self.redirecting:
            return "Redirecting..."
        return "Processing..." if self.processing else "Get it free"

    def _route_agent_id(self) -> str:
        return str(getattr(self, "agent_id", "") or "").strip()

    def _fail(self, message: str) -> EventSpec:
        self.loading, self.failed = False, True
        self.error_message = message or CHECKOUT_FAILED
        return toast_on_load("Checkout Error", self.error_message, error=True)

    @rx.event
    async def on_load(self) -> AsyncIterator[Any]:
        self.reset()  # the tab's state outlives page loads: never show the previous checkout
        yield
        user = await _signed_in_user(self)
        agent_id = self._route_agent_id()
        if user is None:
            # a signed-out visitor checks out as a guest while the admin allows it, else signs in
            as_guest = await attempt(QUIET, purchases.checkout_agent, actor=None, agent_id=agent_id, guest=True)
            if isinstance(as_guest.error, Forbidden | Unauthorized):
                self.loading = False
                yield [toast_on_load("Login Required", "Please log in to purchase agents", error=True),
                       rx.redirect(return_paths.with_next("/login", f"/checkout/{agent_id}"))]
                return
            if as_guest.failed:
                yield self._fail(as_guest.message)
                return
            agent = as_guest.value
            self.guest = True
        if not agent_id:
            self.loading, self.failed = False, True
            self.error_message = "Agent ID is required"
            yield toast_on_load("Invalid Request", "Agent ID is required", error=True)
            return
        if user is not None:
            self.billing_name = f"{user.first_name or ''} {user.last_name or ''}".strip() or "Customer"
            self.billing_email = user.email
        try:
            if user is not None:
                agent = await blocking.run(purchases.checkout_agent, actor=user, agent_id=agent_id)
            self.item_id, self.item_name = agent.id, agent.name
            self.item_image = images.displayable_image_url(agent.image_url)
            self.usd_price = money.format_amount(agent.price_usd_cents, "usd")
            renews_on = ""  # by the clock that will bill it (demo mode's may run ahead of the wall clock)
            if agent.pricing_model == PricingModel.MONTHLY and agent.price_usd_cents:
                now = await blocking.run(billing.billing_now, user=user)
                renews_on = format_day(pricing.one_month_after(now), UTC_ZONE)
            self.summary_line = pricing.order_summary_line(
                pricing_model=agent.pricing_model, price_cents=agent.price_usd_cents, renews_on=renews_on)
            if agent.is_free:
                self.is_free = True
                self.price_label = money.price_label(0, pricing_model=agent.pricing_model)
                self.total = self.fees = self.subtotal = money.format_amount(0, "usd")
            else:
                self._pricing_model = agent.pricing_model
                if self.guest:  # the payment opens once the guest's details are in
                    self._show_price(*await blocking.run(purchases.quote, price_usd_cents=agent.price_usd_cents))
                else:
                    self._show_intent(await blocking.run(purchases.create_payment_intent, actor=user,
                                                         agent_id=agent_id))
        except DomainError as error:
            yield self._fail(error.message)
            return
        except Exception:
            log.exception("checkout of agent %s could not be prepared", agent_id)
            yield self._fail("")
            return
        self.loading = False

    def _show_price(self, currency: str, rate: Decimal, amount: int, discount: int = 0) -> None:
        self.currency = currency
        self.total = money.format_amount(amount, currency)
        self.subtotal = money.format_amount(amount + discount, currency)
        self.price_label = money.price_label(amount, currency=currency, pricing_model=self._pricing_model)
        self.fees = money.format_amount(0, currency)
        self.exchange_rate = money.format_rate(rate)

    def _show_intent(self, intent: purchases.CheckoutIntent) -> None:
        config = purchases.browser_config()
        self.publishable_key, self.stripe_js_url = config.publishable_key, config.stripe_js_url
        self.client_secret = intent.client_secret
        self._show_price(intent.currency, intent.exchange_rate, intent.amount, intent.discount_amount)
        self.promo_code = intent.promotion_code or ""
        self.promo_discount = money.format_amount(-intent.discount_amount, intent.currency) if self.promo_code else ""
        self._promo_free = intent.mode == "free"
        self.is_free = self._promo_free
        self.intent_type, self._subscription_id = intent.intent_type, intent.subscription_id or ""
        self.trial_used_line = pricing.TRIAL_ALREADY_USED if intent.trial_used else ""
        if intent.mode == "subscription":
            self._show_subscription(intent)

    def _show_subscription(self, intent: purchases.CheckoutIntent) -> None:
        """The price per month before any code, the code's months, and what is due today and next (the
        server's figures and texts)."""
        currency = intent.currency
        self.price_label = money.price_label(intent.monthly_amount, currency=currency,
                                             pricing_model=PricingModel.MONTHLY)
        self.total = money.format_amount(intent.due_today, currency)
        self.total_label = pricing.DUE_TODAY if intent.intent_type == "setup" else pricing.TOTAL
        self.promo_months = pricing.code_months_line(
            months=intent.promotion_months, monthly=intent.monthly_amount, currency=currency,
            every_month=intent.code_every_month) if intent.promotion_months else ""
        self.then_line = ""
        first_charge_at = intent.trial_end or intent.renews_at
        if intent.intent_type == "setup" and first_charge_at is not None:
            starts_on = format_day(first_charge_at, UTC_ZONE)
            self.then_line = pricing.due_later_line(next_charge=intent.next_charge, monthly=intent.monthly_amount,
                                                    currency=currency, starts_on=starts_on,
                                                    every_month=intent.code_every_month)
            if intent.trial_days:
                self.trial_line = pricing.trial_checkout_line(trial_days=intent.trial_days, price=self.price_label,
                                                              starts_on=starts_on)
            self.summary_line = pricing.order_summary_line(pricing_model=PricingModel.MONTHLY,
                                                           price_cents=intent.monthly_amount, renews_on=starts_on)

    # --- promotion codes ---------------------------------------------------------------------------------------

    @rx.event
    def set_promo_input(self, value: str) -> None:
        """Typing a code clears its refusal."""
        self.promo_input, self.promo_error = value[:64], ""

    @rx.event
    async def apply_promo(self, form: dict | None = None) -> AsyncIterator[Any]:
        """Reprice the checkout with the code: a new PaymentIntent at the discounted amount (the Payment Element
        remounts on its client secret), or the server's refusal under the field."""
        take_submitted(self, form, {"promotionCode": "promo_input"})
        code = self.promo_input.strip()
        if self.processing or self.redirecting or self.promo_applying or not self.item_id or not self._can_reprice():
            return
        if not code:
            self.promo_error = "Enter a promotion code."
            return
        self.promo_applying, self.promo_error = True, ""
        yield
        async for event in self._reprice(code):
            yield event

    @rx.event
    async def remove_promo(self) -> AsyncIterator[Any]:
        """Back to the full price (the code's hold is given back when its PaymentIntent is cancelled or expires)."""
        if self.processing or self.redirecting or self.promo_applying or not self.promo_code or not self._can_reprice():
            return
        self.promo_applying, self.promo_error, self.promo_input = True, "", ""
        yield
        async for event in self._reprice(None):
            yield event

    def _can_reprice(self) -> bool:
        """A guest's code is checked for the account of their e-mail: only once their details are in."""
        return not self.guest or bool(self.client_secret)

    def _guest_details(self) -> guest_checkout.GuestDetails:
        return guest_checkout.GuestDetails(email=self.guest_email, name=self.guest_name,
                                           address=self.router.session.client_ip or "unknown")

    async def _reprice(self, code: str | None) -> AsyncIterator[Any]:
        user = None if self.guest else await _signed_in_user(self)
        done = await attempt(Toast("Checkout Error", CHECKOUT_FAILED, unexpected=True, signed_out=False,
                                   log=f"promotion code at checkout of agent {self.item_id}"),
                             purchases.create_payment_intent, actor=user, agent_id=self.item_id,
                             guest=self._guest_details() if self.guest else None, promotion_code=code)
        self.promo_applying = False
        if done.failed:
            refusal = done.refusal
            if refusal is not None and refusal.field == "promotionCode":
                self.promo_error = refusal.message
                return
            yield done.events
            return
        self._show_intent(done.value)

    # --- guest checkout ----------------------------------------------------------------------------------------

    @rx.event
    async def continue_as_guest(self, form: dict | None = None) -> AsyncIterator[Any]:
        """The guest's e-mail and name: the server picks the account and opens the payment (or says why not)."""
        take_submitted(self, form, {"guestEmail": "guest_email", "guestName": "guest_name"})
        if not self.guest or self.preparing or self.client_secret:
            return
        self.errors = guest_checkout.details_errors(email=self.guest_email, name=self.guest_name)
        self.guest_error = ""
        if self.errors:
            yield focus_first_error()
            return
        self.preparing = True
        yield
        details = self._guest_details()
        failed = Toast(None, CHECKOUT_FAILED, unexpected=True, signed_out=False,
                       log=f"guest checkout of agent {self.item_id} could not be prepared")
        done = await attempt(failed, purchases.create_payment_intent, actor=None, agent_id=self.item_id,
                             guest=details)
        self.preparing = False
        if done.failed:
            error = done.refusal
            if error and error.field in ("email", "name") and not isinstance(error, Conflict):
                self.errors = {error.field: error.message}
                yield focus_first_error()
            else:
                self.guest_error = done.message
            return
        self.billing_name, self.billing_email = self.guest_name.strip(), self.guest_email.strip().lower()
        self._show_intent(done.value)

    @rx.event
    def back_to_agent(self) -> EventSpec:
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
        user = None if self.guest else await _signed_in_user(self)
        if self.intent_type == "setup":  # a free trial: the card is saved, the server records the trial
            started = await attempt(Toast(None, unexpected=True, signed_out=False,
                                          log=f"trial {self._subscription_id} could not be recorded"),
                                    _complete_trial, user, self._subscription_id, self.item_id, guest=self.guest)
            if started.failed:
                self._payment_error(started.message)
                return
            self.progress, self.progress_label = STEP_DONE
            self.processing, self.redirecting = False, True
            # A guest has no dashboard yet: the success page says the trial started and where the link went.
            yield rx.redirect(f"{SUCCESS_PATH}?{urlencode({TRIAL_PARAM: self._subscription_id})}" if self.guest
                              else TRIAL_STARTED_PATH)
            return
        done = await attempt(Toast(None, unexpected=True, signed_out=False,
                                   log=f"payment {payment_intent_id} could not be recorded"),
                             _complete, user, payment_intent_id, self.item_id, guest=self.guest)
        if done.failed:
            self._payment_error(done.message)
            return
        self.progress, self.progress_label = STEP_COMPLETING
        yield
        yield self._succeeded(done.value.order.id)

    @rx.event
    def payment_incomplete(self, _status: str) -> None:
        self._payment_error(purchases.NOT_SUCCEEDED)

    @rx.event
    def payment_failed(self, message: str, code: str = "") -> None:
        self._payment_error(payment_errors.buyer_message(code=code, message=message))

    @rx.event
    def stripe_unavailable(self, message: str) -> EventSpec:
        self.loading, self.failed = False, True
        self.error_message = message or CHECKOUT_FAILED
        return rx.toast.error("Checkout Error", description=self.error_message)

    def _payment_error(self, message: str) -> None:
        self.processing = self.redirecting = False
        self.progress, self.progress_label = 0, ""
        self.payment_error = message or PAYMENT_FAILED

    def _succeeded(self, order_id: str) -> EventSpec:
        self._order_id = order_id
        self.progress, self.progress_label = STEP_DONE
        self.processing, self.redirecting = False, True
        return rx.call_script(f"new Promise((resolve) => setTimeout(resolve, {REDIRECT_DELAY_MS}))",
                              callback=CheckoutState.go_to_success)

    @rx.event
    def go_to_success(self, _done: Any = None) -> EventSpec:
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
        done = await attempt(Toast("Checkout Error", CHECKOUT_FAILED, signed_out=False), purchases.claim_free_agent,
                             actor=user, agent_id=self.item_id,
                             promotion_code=self.promo_code if self._promo_free else None)
        if done.failed:
            self.processing = False
            yield done.events
            return
        yield self._succeeded(done.value.order.id)


class PurchaseSuccessState(rx.State):
    """/purchase-success: opened by the checkout with `?order=` (its order just recorded), or by Stripe with
    `?payment_intent=` after a redirect-based payment method. Either is checked by a service for this user;
    opened any other way (directly, a bookmark, someone else's order) it sends the user to the dashboard.
    A guest (signed out) sees the order this tab's own checkout recorded, and is told to check their e-mail."""

    # The success content shows only once the server has confirmed a purchase (no confetti for nothing).
    confirmed: bool = False
    guest: bool = False
    order_number: str = ""
    order_agent: str = ""
    order_total: str = ""
    order_email: str = ""
    order_key: str = ""  # a signed-in buyer's license key
    order_renews: str = ""  # 'Renews on {date}' for a subscription
    trial: bool = False  # a guest's free trial started: nothing was bought or paid

    @rx.event
    async def on_load(self) -> AsyncIterator[Any]:
        self.reset()
        params = self.router.url.query_parameters
        intent_id = params.get("payment_intent", "")
        if intent_id and params.get("redirect_status") not in (None, "succeeded"):
            yield [toast_on_load("Payment Error", purchases.NOT_SUCCEEDED, error=True), rx.redirect("/")]
            return
        yield
        user = await _signed_in_user(self)
        checkout = await self.get_state(CheckoutState)
        guest = user is None and checkout.guest
        if guest and checkout._subscription_id and params.get(TRIAL_PARAM) == checkout._subscription_id:
            # this tab's checkout started the guest's trial on the server just now (no order: nothing was paid)
            self.guest, self.trial, self.order_number = True, True, checkout._subscription_id[-8:]
            self.order_agent, self.order_email = checkout.item_name, checkout.billing_email
            self.order_total = checkout.trial_line
            self.confirmed = True
            yield rx.call_script(f"window.history.replaceState(null, '', {SUCCESS_PATH!r})")
            return
        if not intent_id:
            if guest and checkout._order_id and params.get(ORDER_PARAM) == checkout._order_id:
                order_id = checkout._order_id  # this tab's checkout recorded it on the server just now
            else:
                order_id = params.get(ORDER_PARAM, "")
                found = await attempt(QUIET, purchases.recent_purchase, actor=user, order_id=order_id)
                if found.failed:
                    yield rx.redirect(NO_PURCHASE_PATH)
                    return
        else:
            recorded = await attempt(QUIET, _complete, user, intent_id, None, guest=guest)
            if recorded.failed:
                yield [toast_on_load("Payment Error", recorded.message or PAYMENT_FAILED, error=True),
                       rx.redirect("/")]
                return
            order_id = recorded.value.order.id
        if guest:
            self.guest, self.order_number = True, order_id[-8:]
            self.order_agent, self.order_total, self.order_email = (checkout.item_name, checkout.total,
                                                                    checkout.billing_email)
        else:
            await self._show_order(user, order_id)
        self.confirmed = True
        # Drop the order, or the intent id and its client secret, from the address bar.
        yield rx.call_script(f"window.history.replaceState(null, '', {SUCCESS_PATH!r})")

    async def _show_order(self, user: User | None, order_id: str) -> None:
        """A signed-in buyer's order: agent, amount, number, key and the next charge (the success still shows
        if this read fails: the purchase is recorded, and My Agents has it all)."""
        try:
            summary = await blocking.run(purchases.recent_purchase_summary, actor=user, order_id=order_id)
        except DomainError:
            log.warning("purchase summary unavailable for order %s", order_id)
            return
        zone = time_zone(getattr(await self.get_state(SessionState), "time_zone", "UTC"))
        self.order_number, self.order_agent = summary.order_id[-8:], summary.agent_name
        self.order_total = money.format_amount(summary.amount_cents, summary.currency)
        self.order_key = summary.license_key or ""
        self.order_renews = f"Renews on {format_day(summary.renews_at, zone)}" if summary.renews_at else ""
