"""The dashboard's Payment tab: the saved cards (from Stripe, through services/billing/payment_methods), adding
one with the Payment Element (a SetupIntent confirmed by `confirmSetup`), making one the default, removing one,
and the payment history (services/purchases). Loaded when the tab opens; the rules and their refusals are the
services'; this only shows them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import reflex as rx

from marketplace.models import User
from marketplace.services import money, payment_errors, purchases, receipts
from marketplace.services.billing import payment_methods
from marketplace.state.dashboard import DashboardState
from marketplace.state.display import format_day, time_zone
from marketplace.state.service_calls import QUIET, Toast, attempt

BRANDS = {"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express", "discover": "Discover",
          "diners": "Diners Club", "jcb": "JCB", "unionpay": "UnionPay", "cartes_bancaires": "Cartes Bancaires"}
ADDED = ("Card added", "You can make it the default for your subscriptions.")
DEFAULT_SET = ("Default card changed", "Your subscriptions are charged to {card} from now on.")
REMOVED = ("Card removed", "{card} is no longer saved.")
NOT_SAVED = "The card could not be saved. Please try again."


@dataclass
class CardRow:
    id: str
    label: str  # 'Visa •••• 4242'
    expiry: str  # 'Expires 12/2034'
    is_default: bool


@dataclass
class HistoryRow:
    id: str
    kind: str  # 'charge' | 'refund'
    label: str  # 'Payment' | 'Refund'
    description: str
    day: str
    amount: str
    receipt_url: str  # the order's receipt, which also shows a refund's credit note


def _card_row(card: payment_methods.SavedCard) -> CardRow:
    brand = BRANDS.get(card.brand, card.brand.replace("_", " ").title() or "Card")
    return CardRow(id=card.id, label=f"{brand} •••• {card.last4}", expiry=f"Expires {card.exp_month:02d}/"
                   f"{card.exp_year}", is_default=card.is_default)


def _start(user: User | None) -> tuple[str, str, str]:
    """The publishable key and Stripe.js address the Payment Element needs, and the SetupIntent it confirms."""
    config = purchases.browser_config()
    return config.publishable_key, config.stripe_js_url, payment_methods.start_adding_card(actor=user)


class PaymentTabState(DashboardState):
    """The cards and the history; `adding` while the Payment Element is open; `busy_card` during a change."""

    cards: list[CardRow] = []
    history: list[HistoryRow] = []
    payment_loading: bool = True
    cards_error: str = ""  # Stripe could not be asked: said instead of 'No payment methods saved'
    busy_card: str = ""
    adding: bool = False
    starting: bool = False
    saving: bool = False
    card_error: str = ""
    client_secret: str = ""
    publishable_key: str = ""
    stripe_js_url: str = ""

    @rx.var
    def has_cards(self) -> bool:
        return bool(self.cards)

    @rx.var
    def has_history(self) -> bool:
        return bool(self.history)

    @rx.event
    async def load_payment(self) -> AsyncIterator[Any]:
        """The tab opened: its cards from Stripe and its history from the database (never an earlier visit's)."""
        self.payment_loading, self.adding, self.busy_card = True, False, ""
        yield
        user = await self.viewer()
        if user is None:
            self.payment_loading = False
            return
        zone = time_zone(self.time_zone)
        history = await attempt(QUIET, purchases.payment_history, actor=user)
        self.history = [] if history.failed else [
            HistoryRow(id=e.id, kind=e.kind, label="Refund" if e.kind == "refund" else "Payment",
                       description=e.description, day=format_day(e.at, zone),
                       amount=money.format_amount(e.amount_cents, e.currency),
                       receipt_url=receipts.receipt_path(e.order_id)) for e in history.value]
        await self._load_cards()
        self.payment_loading = False

    async def _load_cards(self) -> None:
        listed = await attempt(Toast(None, unexpected=True, fallback="Your cards could not be loaded."),
                               payment_methods.list_cards, actor=await self.viewer())
        self.cards_error = listed.message if listed.failed else ""
        self.cards = [] if listed.failed else [_card_row(card) for card in listed.value]

    # --- adding a card ---------------------------------------------------------------------------------

    @rx.event
    async def start_adding(self) -> AsyncIterator[Any]:
        if self.starting or self.adding:
            return
        self.starting, self.card_error = True, ""
        yield
        started = await attempt(Toast("Card not added"), _start, await self.viewer())
        self.starting = False
        if started.failed:
            yield started.events
            return
        self.publishable_key, self.stripe_js_url, self.client_secret = started.value
        self.adding, self.saving = True, False

    @rx.event
    def cancel_adding(self) -> None:
        if not self.saving:
            self.adding, self.client_secret, self.card_error = False, "", ""

    # The Payment Element's reports (components/stripe_payment.payment_element's names).

    @rx.event
    def payment_started(self) -> None:
        self.card_error, self.saving = "", True

    @rx.event
    def payment_failed(self, message: str, code: str = "") -> None:
        self.saving = False
        self.card_error = payment_errors.buyer_message(code=code, message=message) or NOT_SAVED

    @rx.event
    def payment_incomplete(self, _status: str) -> None:
        self.payment_failed("")

    @rx.event
    def stripe_unavailable(self, message: str) -> None:
        self.payment_failed(message)

    @rx.event
    async def payment_succeeded(self, _setup_intent_id: str) -> AsyncIterator[Any]:
        """Stripe attached the card; the list is read again from Stripe (nothing the browser says is kept)."""
        self.adding, self.saving, self.client_secret = False, False, ""
        yield
        await self._load_cards()
        yield rx.toast.success(ADDED[0], description=ADDED[1])

    # --- default and remove ------------------------------------------------------------------------------

    @rx.event
    async def make_default(self, card_id: str) -> AsyncIterator[Any]:
        async for update in self._card_action(card_id, payment_methods.make_default, "Default not changed",
                                              DEFAULT_SET):
            yield update

    @rx.event
    async def remove_card(self, card_id: str) -> AsyncIterator[Any]:
        async for update in self._card_action(card_id, payment_methods.remove_card, "Card not removed", REMOVED):
            yield update

    async def _card_action(self, card_id: str, call: Callable[..., list[payment_methods.SavedCard]], failure: str,
                           success: tuple[str, str]) -> AsyncIterator[Any]:
        """One card's button: busy while the service works; the list it answers, or its refusal as a toast."""
        card = next((c for c in self.cards if c.id == card_id), None)
        if card is None or self.busy_card:
            return
        self.busy_card = card_id
        yield
        done = await attempt(Toast(failure), call, actor=await self.viewer(), payment_method_id=card_id)
        self.busy_card = ""
        if done.failed:
            yield done.events
            return
        self.cards = [_card_row(c) for c in done.value]
        yield rx.toast.success(success[0], description=success[1].format(card=card.label))
