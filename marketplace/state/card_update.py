"""/dashboard/billing/[subscription_id]: a new card for a subscription (the payment-failed mail links here).

A SetupIntent from the server, confirmed by the Payment Element (`confirmSetup`); the server then makes the card
the subscription's default and pays a past-due invoice with it. Nothing the browser reports is trusted: the
service retrieves the SetupIntent from Stripe and checks it belongs to this subscription."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import reflex as rx

from marketplace.models import User
from marketplace.services import billing, payment_errors, purchases
from marketplace.state.service_calls import QUIET, Toast, attempt
from marketplace.state.session import SessionState, toast_on_load

DONE_PATH = "/dashboard"


def _start(user: User, subscription_id: str) -> tuple[str, str, billing.CardUpdate]:
    """The publishable key and Stripe.js address the Payment Element needs, and the SetupIntent it confirms."""
    config = purchases.browser_config()
    return config.publishable_key, config.stripe_js_url, billing.start_card_update(actor=user,
                                                                                   subscription_id=subscription_id)


class CardUpdateState(rx.State):
    """loading -> ready | failed; then saving the card."""

    loading: bool = True
    failed: bool = False
    error_message: str = ""
    agent_name: str = ""
    past_due: bool = False
    client_secret: str = ""
    publishable_key: str = ""
    stripe_js_url: str = ""
    saving: bool = False
    card_error: str = ""

    def _subscription_id(self) -> str:
        return str(getattr(self, "subscription_id", "") or "").strip()

    @rx.event
    async def on_load(self) -> AsyncIterator[Any]:
        self.reset()
        yield
        session = await self.get_state(SessionState)
        user = await session.viewer()
        if user is None:
            self.loading = False
            yield [toast_on_load("Login Required", "Please log in to update your card", error=True),
                   rx.redirect("/login")]
            return
        done = await attempt(QUIET, _start, user, self._subscription_id())
        if done.failed:
            self.loading, self.failed, self.error_message = False, True, done.message
            return
        self.publishable_key, self.stripe_js_url, update = done.value
        self.client_secret = update.client_secret
        self.agent_name = update.subscription.agent_name
        self.past_due = update.subscription.past_due
        self.loading = False

    # The Payment Element's reports (components/stripe_payment.payment_element's names).

    @rx.event
    def payment_started(self) -> None:
        self.card_error = ""
        self.saving = True

    @rx.event
    def payment_failed(self, message: str, code: str = "") -> None:
        self.saving = False
        self.card_error = payment_errors.buyer_message(code=code, message=message) or \
            "The card could not be saved. Please try again."

    @rx.event
    def payment_incomplete(self, _status: str) -> None:
        self.payment_failed("")

    @rx.event
    async def payment_succeeded(self, setup_intent_id: str) -> AsyncIterator[Any]:
        session = await self.get_state(SessionState)
        user = await session.viewer()
        done = await attempt(Toast(None), billing.finish_card_update, actor=user,
                             subscription_id=self._subscription_id(), setup_intent_id=setup_intent_id)
        if done.failed:
            self.saving = False
            self.card_error = done.message
            yield done.events
            return
        view = done.value
        self.past_due = view.past_due
        yield [toast_on_load("Card updated", f"Your subscription to {view.agent_name} uses the new card."),
               rx.redirect(f"{DONE_PATH}?tab=purchases")]
