"""Subscriptions in the stand-in: creation, first payment, changes with prorations, cancellation.

What happens, as in Stripe (API version 2026-10-28.endive, the pinned SDK's; older versions see the pre-basil
fields too, see context.py):

- Create (`payment_behavior=default_incomplete`, `payment_settings[save_default_payment_method]=on_subscription`,
  `expand[]=latest_invoice.confirmation_secret`): the subscription starts `incomplete`; its first invoice
  (`billing_reason=subscription_create`) is finalized at once with a PaymentIntent whose client secret is
  `latest_invoice.confirmation_secret.client_secret`. Confirming that intent (Stripe.js `confirmPayment`, the
  same Payment Element as a one-off payment) pays the invoice (`invoice.paid`, `invoice.payment_succeeded`),
  saves the card as the subscription's `default_payment_method` and makes it `active`
  (`customer.subscription.updated`). Unpaid for 23 hours, it becomes `incomplete_expired`
  (`customer.subscription.deleted`, invoice voided). `allow_incomplete` / `error_if_incomplete` charge the
  default card at once instead.
- Connect: `transfer_data[destination]` (and `amount_percent`) and `application_fee_percent` are kept on the
  subscription; each invoice's PaymentIntent is a destination charge with
  `application_fee_amount = round(amount_due * percent / 100)` (half up), so the connected account's balance
  and the platform's fee move as for a one-off split payment. Changing `application_fee_percent` applies from
  the next invoice.
- Trials (`trial_period_days`, 1-730; `trial_settings[end_behavior][missing_payment_method]` `create_invoice`
  or `cancel`; `pause` is refused): the subscription starts `trialing` with `trial_start`/`trial_end`, its
  current period is the trial and its billing cycle is anchored at `trial_end`; the first invoice
  (`subscription_create`) is for the trial, $0 and paid at once. With `payment_behavior=default_incomplete`
  and nothing to pay now, a SetupIntent (`usage=off_session`) collects the card: `pending_setup_intent`, which
  Stripe.js confirms with `confirmSetup`; when it succeeds the card becomes the subscription's
  `default_payment_method` (`save_default_payment_method=on_subscription`) and `pending_setup_intent` is null
  again (`customer.subscription.updated`). Three days before `trial_end`: `customer.subscription.trial_will_end`.
  At `trial_end` the subscription is `active` and the first paid invoice (`subscription_cycle`) is made as a
  renewal's is (a failed one makes it `past_due`); without any card, `missing_payment_method=cancel` cancels it
  instead. `cancel_at_period_end` during the trial ends it at `trial_end`, unpaid.
- Renewal: at the period end the next invoice (`subscription_cycle`) is created as a draft with the items for
  the new period and any pending prorations; Stripe finalizes and charges it one hour later (the stand-in
  too), from the subscription's default card, else the customer's `invoice_settings.default_payment_method`.
  `invoice.period_start/end` is Stripe's "pending items" window (for a renewal: the period that just ended);
  the service period is `lines.data[].period` and the subscription item's `current_period_start/end`.
- Failed payments (Smart Retries, in the stand-in a fixed schedule): the invoice stays `open`,
  `invoice.payment_failed` (with `attempt_count`, `next_payment_attempt`), the subscription becomes
  `past_due`; retries 1, 3 and 7 days after the first failure (`--retry-days`); when the last one fails the
  subscription is canceled (`customer.subscription.deleted`, `cancellation_details.reason=payment_failed`) and
  the invoice marked `uncollectible` (`--after-retries unpaid` makes it `unpaid` instead and leaves the
  invoice open). A new card (SetupIntent, then `Customer.modify(invoice_settings=...)` or
  `Subscription.modify(default_payment_method=...)`) and `Invoice.pay` recover it: paid, `active` again.
- Changes: `items=[{id, price}]` with `proration_behavior` `create_prorations` (credit for the unused time of
  the old price, charge for the rest of the period at the new one, both pending until the next invoice),
  `always_invoice` (the same, invoiced and charged at once: `billing_reason=subscription_update`) or `none`
  (the new price from the next renewal: a downgrade at the period end). `cancel_at_period_end` true/false
  (cancel at the period end, or resume before it), `cancel_at`, `DELETE` (cancel now; `prorate` credits the
  unused time to the customer's balance, `invoice_now` invoices pending items at once).
"""

from __future__ import annotations

import copy
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from dateutil.relativedelta import relativedelta
from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import compat, context, coupons
from dev.stripe_standin.catalog import Price
from dev.stripe_standin.compat import CardError, InvalidRequest
from dev.stripe_standin.customers import SetupIntent, at_customer, attached_card, retrieve_customer
from dev.stripe_standin.delivery import emit
from dev.stripe_standin.invoices import (
    ENDED,
    Invoice,
    InvoiceItem,
    claim_pending,
    dunning,
    invoices_of,
    line_item,
    newest_first,
    pending_items,
    pending_lines,
    round_money,
)
from dev.stripe_standin.shapes import (
    Resource,
    as_bool,
    as_int,
    as_metadata,
    merge_metadata,
    one_of,
    reject_unknown,
    required,
)


def add_interval(anchor: int, interval: str, count: int, cycles: int) -> int:
    """The anchor moved by `cycles` intervals, keeping the anchor's day (Jan 31 -> Feb 28 -> Mar 31)."""
    start = datetime.fromtimestamp(anchor, UTC)
    if interval == "day":
        moved = start + timedelta(days=count * cycles)
    elif interval == "week":
        moved = start + timedelta(weeks=count * cycles)
    elif interval == "month":
        moved = start + relativedelta(months=count * cycles)
    else:
        moved = start + relativedelta(years=count * cycles)
    return int(moved.timestamp())


def _date(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%-d %b %Y")


SYMBOLS = {"usd": "$", "eur": "\u20ac", "gbp": "\u00a3"}
TIMES = "\u00d7"  # multiplication sign, as in Stripe's line descriptions


def _money_text(amount: int, currency: str) -> str:
    symbol = SYMBOLS.get(currency)
    return f"{symbol}{amount / 100:,.2f}" if symbol else f"{amount / 100:,.2f} {currency.upper()}"


def _describe(quantity: int, price: Price) -> str:
    """Stripe's subscription line: '1 x Pro (at $29.00 / month)' (with a multiplication sign)."""
    product = ls.store.get(f"product:{price.product}")
    every = price.recurring["interval"] if price.recurring else "month"
    return f"{quantity} {TIMES} {product.name} (at {_money_text(price.unit_amount, price.currency)} / {every})"


def _product_name(price: Price) -> str:
    return ls.store.get(f"product:{price.product}").name

# --- subscription items ------------------------------------------------------------------------------------


class SubscriptionItem(Resource):
    object = "subscription_item"
    _id_prefix = "si_"

    def __init__(self, *, subscription: str, price: Price, quantity: int, metadata: dict[str, str]) -> None:
        super().__init__()
        self.subscription = subscription
        self.price = price.id
        self.quantity = quantity
        self.metadata = metadata

    def _price(self) -> Price:
        return Price._api_retrieve(self.price)

    def _amount(self) -> int:
        return self._price().unit_amount * self.quantity

    def _fields(self) -> dict[str, Any]:
        sub = ls.store.get(f"subscription:{self.subscription}")
        price = self._price()
        return {"id": self.id, "object": "subscription_item", "billing_thresholds": None, "created": self.created,
                "current_period_end": sub._period_end, "current_period_start": sub._period_start, "discounts": [],
                "metadata": dict(self.metadata), "plan": price._plan(), "price": price._fields(),
                "quantity": self.quantity, "subscription": self.subscription, "tax_rates": []}


# --- subscriptions ---------------------------------------------------------------------------------------------


class Subscription(Resource):
    object = "subscription"
    _id_prefix = "sub_"

    def __init__(self, *, customer: Any, prices: list[tuple[Price, int, dict[str, str]]], params: dict[str, Any]
                 ) -> None:
        super().__init__()
        self._seq = time.perf_counter_ns()
        recurring = prices[0][0].recurring
        assert recurring is not None
        self.customer = customer.id
        self.test_clock = customer.test_clock
        self.currency = prices[0][0].currency
        self._interval = recurring["interval"]
        self._interval_count = recurring["interval_count"]
        self.billing_cycle_anchor = self.created
        self._cycle = 0
        self._period_start = self.created
        self._period_end = add_interval(self.created, self._interval, self._interval_count, 1)
        self.status = "incomplete"
        self.metadata = as_metadata(params.get("metadata"))
        self.description = params.get("description")
        self.default_payment_method: str | None = None
        self.payment_settings = {"payment_method_options": None, "payment_method_types": None,
                                 "save_default_payment_method": "off"}
        self.transfer_data: dict[str, Any] | None = None
        self.application_fee_percent: float | None = None
        self.on_behalf_of = params.get("on_behalf_of")
        self.cancel_at_period_end = False
        self.cancel_at: int | None = None
        self.canceled_at: int | None = None
        self.ended_at: int | None = None
        self.cancellation_details = {"comment": None, "feedback": None, "reason": None}
        self.latest_invoice: str | None = None
        self.start_date = self.created
        self.trial_start: int | None = None
        self.trial_end: int | None = None
        self.trial_will_end_sent = False
        self.missing_payment_method = "create_invoice"
        self.pending_setup_intent: str | None = None
        self._discounts: list[str] = []  # coupons.Discount ids
        self._items: list[str] = [
            SubscriptionItem(subscription=self.id, price=price, quantity=quantity, metadata=metadata).id
            for price, quantity, metadata in prices]

    def _item_objects(self) -> list[SubscriptionItem]:
        return [ls.store.get(f"subscription_item:{item_id}") for item_id in self._items]

    def _fields(self) -> dict[str, Any]:
        items = [item._fields() for item in self._item_objects()]
        data = {
            "id": self.id, "object": "subscription", "application": None,
            "application_fee_percent": self.application_fee_percent,
            "automatic_tax": {"disabled_reason": None, "enabled": False, "liability": None},
            "billing_cycle_anchor": self.billing_cycle_anchor, "billing_cycle_anchor_config": None,
            "billing_mode": {"flexible": None, "type": "classic", "updated_at": None}, "billing_thresholds": None,
            "cancel_at": self.cancel_at, "cancel_at_period_end": self.cancel_at_period_end,
            "canceled_at": self.canceled_at, "cancellation_details": dict(self.cancellation_details),
            "collection_method": "charge_automatically", "created": self.created, "currency": self.currency,
            "customer": self.customer, "days_until_due": None, "default_payment_method": self.default_payment_method,
            "default_source": None, "default_tax_rates": [], "description": self.description,
            "discounts": list(self._discounts),
            "ended_at": self.ended_at, "invoice_settings": {"account_tax_ids": None, "issuer": {"type": "self"}},
            "items": {"object": "list", "data": items, "has_more": False, "total_count": len(items),
                      "url": f"/v1/subscription_items?subscription={self.id}"},
            "latest_invoice": self.latest_invoice, "livemode": False, "metadata": dict(self.metadata),
            "next_pending_invoice_item_invoice": None, "on_behalf_of": self.on_behalf_of, "pause_collection": None,
            "payment_settings": dict(self.payment_settings), "pending_invoice_item_interval": None,
            "pending_setup_intent": self.pending_setup_intent,
            "pending_update": None, "schedule": None, "start_date": self.start_date,
            "status": self.status, "test_clock": self.test_clock,
            "transfer_data": dict(self.transfer_data) if self.transfer_data else None, "trial_end": self.trial_end,
            "trial_settings": {"end_behavior": {"missing_payment_method": self.missing_payment_method}},
            "trial_start": self.trial_start,
        }
        if context.legacy_shape():
            data |= {"current_period_start": self._period_start, "current_period_end": self._period_end,
                     "plan": items[0]["plan"] if len(items) == 1 else None,
                     "quantity": items[0]["quantity"] if len(items) == 1 else None}
        return data

    def _update_event(self, before: dict[str, Any]) -> None:
        """`customer.subscription.updated` with the top-level fields that changed as previous_attributes."""
        after = self._fields()
        previous = {key: value for key, value in before.items() if after.get(key) != value}
        if previous:
            emit("customer.subscription.updated", self, previous=previous)

    # -- payments

    def _invoice_paid(self, invoice: Invoice) -> None:
        before = self._fields()
        intent = invoice._intent()
        if (self.payment_settings.get("save_default_payment_method") == "on_subscription" and intent is not None
                and intent.payment_method):
            self.default_payment_method = intent.payment_method
        if self.status in ("incomplete", "past_due", "unpaid") and not self._unpaid_invoices():
            self.status = "active"
        self._update_event(before)

    def _unpaid_invoices(self) -> list[Invoice]:
        return [i for i in invoices_of(self.customer)
                if i.subscription == self.id and i.status == "open" and i.attempt_count > 0]

    def _invoice_failed(self, invoice: Invoice, *, final: bool) -> None:
        before = self._fields()
        if self.status in ("active", "trialing"):
            self.status = "past_due"
        self._update_event(before)
        if final:
            if dunning.after_retries == "canceled":
                invoice._mark_uncollectible()
                cancel_now(self, reason="payment_failed")
            elif dunning.after_retries == "unpaid":
                before = self._fields()
                self.status = "unpaid"
                self._update_event(before)

    # -- the period

    def _start_trial(self, days: int, missing_payment_method: str) -> None:
        """The current period is the trial; the billing cycle starts at its end."""
        self.status = "trialing"
        self.trial_start = self.created
        self.trial_end = self.created + days * 86400
        self.missing_payment_method = missing_payment_method
        self.billing_cycle_anchor = self.trial_end
        self._cycle = -1
        self._period_end = self.trial_end

    def _trial_will_end(self) -> None:
        self.trial_will_end_sent = True
        emit("customer.subscription.trial_will_end", self)

    def _setup_succeeded(self, intent: Any) -> None:
        """The pending SetupIntent succeeded: its card pays the invoices after the trial."""
        before = self._fields()
        if self.payment_settings.get("save_default_payment_method") == "on_subscription" and intent.payment_method:
            self.default_payment_method = intent.payment_method
        self.pending_setup_intent = None
        self._update_event(before)

    def _discount_used(self, invoice: Invoice) -> None:
        """A `once` discount is spent by the first invoice it took something off: the subscription drops it."""
        for discount_id in invoice.discounts:
            discount = ls.store.get(f"discount:{discount_id}")
            if isinstance(discount, coupons.Discount) and discount._coupon().duration == "once":
                self._discounts.remove(discount_id)

    def _drop_ended_discounts(self, at: int) -> None:
        """A repeating discount past its `end` is removed (at the first renewal after it)."""
        for discount_id in list(self._discounts):
            discount = ls.store.get(f"discount:{discount_id}")
            if not isinstance(discount, coupons.Discount) or not discount.live_at(at):
                self._discounts.remove(discount_id)

    def _has_card(self) -> bool:
        customer = retrieve_customer(self.customer)
        return bool(self.default_payment_method or customer.invoice_settings.get("default_payment_method"))

    def _renew(self) -> Invoice | None:
        """The period ends: cancel if asked, else move to the next period and invoice it (draft)."""
        if self.cancel_at is not None and self.cancel_at <= self._period_end:
            cancel_now(self, reason=self.cancellation_details.get("reason") or "cancellation_requested",
                       at=self._period_end)
            return None
        if self.status == "trialing" and not self._has_card() and self.missing_payment_method == "cancel":
            cancel_now(self, reason="cancellation_requested", at=self._period_end)
            return None
        before = self._fields()
        if self.status == "trialing":
            self.status = "active"
        self._cycle += 1
        self._period_start = self._period_end
        self._period_end = add_interval(self.billing_cycle_anchor, self._interval, self._interval_count,
                                        self._cycle + 1)
        customer = retrieve_customer(self.customer)
        self._drop_ended_discounts(context.now())
        lines = pending_lines(self.customer, self.id) + self._item_lines()
        invoice = Invoice(customer=customer, subscription=self, billing_reason="subscription_cycle", lines=lines,
                          period=(before["items"]["data"][0]["current_period_start"],
                                  before["items"]["data"][0]["current_period_end"]))
        claim_pending(self.customer, self.id, invoice)
        emit("invoice.created", invoice)
        self._update_event(before)
        return invoice

    def _trial_lines(self) -> list[dict[str, Any]]:
        """The trial's own invoice: each item for the trial period, at $0."""
        lines = []
        for item in self._item_objects():
            price = item._price()
            lines.append(line_item(
                amount=0, currency=price.currency, description=f"Trial period for {_product_name(price)}",
                period=(self._period_start, self._period_end), price=price.id, product=price.product,
                quantity=item.quantity, subscription=self.id, subscription_item=item.id))
        return lines

    def _item_lines(self) -> list[dict[str, Any]]:
        lines = []
        for item in self._item_objects():
            price = item._price()
            lines.append(line_item(
                amount=item._amount(), currency=price.currency, description=_describe(item.quantity, price),
                period=(self._period_start, self._period_end), price=price.id, product=price.product,
                quantity=item.quantity, subscription=self.id, subscription_item=item.id))
        return lines


def subscriptions_of(customer_id: str) -> list[Subscription]:
    return newest_first([s for s in ls.store.of("subscription")
                    if isinstance(s, Subscription) and s.customer == customer_id])


def retrieve_subscription(subscription_id: str) -> Subscription:
    sub = ls.store.get(f"subscription:{subscription_id}") if isinstance(subscription_id, str) else None
    if not isinstance(sub, Subscription):
        raise UserError(404, f"No such subscription: '{subscription_id}'", {"code": "resource_missing", "param": "id"})
    return sub


def cancel_now(sub: Subscription, *, reason: str, at: int | None = None) -> None:
    """End the subscription now: status canceled, pending prorations dropped, open invoices no longer retried."""
    before = sub._fields()
    now = at if at is not None else context.now()
    sub.status = "canceled"
    sub.ended_at = now
    if sub.canceled_at is None or reason == "payment_failed":
        sub.canceled_at = now
    sub.cancel_at = None if reason != "cancellation_requested" else sub.cancel_at
    sub.cancellation_details["reason"] = reason
    for item in pending_items(sub.customer, sub.id):
        if item.subscription == sub.id:
            del ls.store[f"invoiceitem:{item.id}"]
            emit("invoiceitem.deleted", item)
    for invoice in invoices_of(sub.customer):
        if invoice.subscription == sub.id and invoice.status in ("draft", "open"):
            invoice.auto_advance = False
            invoice.next_payment_attempt = None
            if invoice.status == "draft":
                invoice._void()
    previous = {k: v for k, v in before.items() if sub._fields().get(k) != v}
    emit("customer.subscription.deleted", sub, previous=previous or None)


# --- creating and changing subscriptions ------------------------------------------------------------------------

CREATE_PARAMS = {"customer", "items", "payment_behavior", "payment_settings", "default_payment_method",
                 "transfer_data", "application_fee_percent", "metadata", "description", "expand", "off_session",
                 "proration_behavior", "collection_method", "cancel_at_period_end", "cancel_at", "on_behalf_of",
                 "currency", "billing_mode", "trial_period_days", "trial_settings", "discounts"}
UPDATE_PARAMS = {"items", "proration_behavior", "proration_date", "payment_behavior", "cancel_at_period_end",
                 "cancel_at", "default_payment_method", "metadata", "description", "application_fee_percent",
                 "transfer_data", "payment_settings", "billing_cycle_anchor", "cancellation_details", "off_session",
                 "expand", "on_behalf_of", "collection_method"}
NOT_SUPPORTED = {"trial_end", "trial_from_plan", "backdate_start_date", "add_invoice_items",
                 "coupon", "promotion_code", "automatic_tax", "pending_invoice_item_interval",
                 "days_until_due", "default_tax_rates", "billing_thresholds", "billing_cycle_anchor_config",
                 "pause_collection", "default_source"}


def _not_supported(params: dict[str, Any]) -> None:
    unsupported = sorted(set(params) & NOT_SUPPORTED)
    if unsupported:
        raise InvalidRequest(f"The local Stripe stand-in does not support `{unsupported[0]}` on subscriptions.",
                             param=unsupported[0])


def _fee_percent(value: Any) -> float | None:
    if value in (None, ""):
        return None
    converted = ls.try_convert_to_float(value)
    if type(converted) is not float or not 0 <= converted <= 100 or round(converted, 2) != converted:
        raise InvalidRequest("application_fee_percent must be a decimal between 0 and 100 with at most two decimal "
                             "places.", param="application_fee_percent")
    return converted


def _transfer_data(value: Any) -> dict[str, Any] | None:
    if value in (None, ""):
        return None
    if not isinstance(value, dict):
        raise InvalidRequest("Invalid object", param="transfer_data")
    destination = compat._transfer_destination(value.get("destination"), param="transfer_data[destination]")
    data: dict[str, Any] = {"amount_percent": None, "destination": destination}
    if value.get("amount_percent") not in (None, ""):
        percent = ls.try_convert_to_float(value["amount_percent"])
        if type(percent) is not float or not 0 <= percent <= 100:
            raise InvalidRequest("Invalid amount_percent", param="transfer_data[amount_percent]")
        data["amount_percent"] = percent
    return data


def _fee_needs_connect(percent: float | None, transfer: dict[str, Any] | None, on_behalf_of: Any) -> None:
    if percent is not None and transfer is None and not on_behalf_of:
        raise InvalidRequest("You can only apply an application_fee_percent when the request is made on behalf of "
                             "another account (using an OAuth key, the Stripe-Account header, or the on_behalf_of "
                             "parameter), or when the subscription has a transfer_data[destination].",
                             param="application_fee_percent")


def _items_param(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not value or not all(isinstance(item, dict) for item in value):
        raise InvalidRequest("Invalid array", param="items")
    if len(value) > 20:
        raise InvalidRequest("You may pass up to 20 items.", param="items")
    return value


def _price_for_item(item: dict[str, Any], index: int) -> Price:
    if item.get("price_data") is not None:
        raise InvalidRequest("The local Stripe stand-in needs `price` (an id) on subscription items.",
                             param=f"items[{index}][price_data]")
    price = Price._api_retrieve(required(item, "price"))
    if price.recurring is None:
        raise InvalidRequest("The price specified is set to `type=one_time` but this field only accepts prices "
                             "with `type=recurring`.", param=f"items[{index}][price]")
    if not price.active:
        raise InvalidRequest("The price specified is inactive. This field only accepts active prices.",
                             param=f"items[{index}][price]")
    return price


def _same_cycle(prices: list[Price], *, interval: str | None = None, count: int | None = None,
                currency: str | None = None) -> None:
    first = prices[0].recurring or {}
    interval = interval or first.get("interval")
    count = count or first.get("interval_count")
    currency = currency or prices[0].currency
    for price in prices:
        recurring = price.recurring or {}
        if (recurring.get("interval"), recurring.get("interval_count")) != (interval, count):
            raise InvalidRequest("The local Stripe stand-in supports one billing interval per subscription; changing "
                                 "the interval is not supported.", param="items")
        if price.currency != currency:
            raise InvalidRequest("All prices on a subscription must have the same `currency`.", param="items")


def _check_currency(customer: Any, currency: str) -> None:
    """Stripe refuses to mix currencies on one customer."""
    busy = any(s.status not in ENDED and s.currency != currency for s in subscriptions_of(customer.id))
    if busy:
        raise InvalidRequest("You cannot combine currencies on a single customer. This customer has an active "
                             f"subscription, subscription schedule, discount, quote, or invoice item with currency "
                             f"{customer.currency}.", code="currency_mismatch")


def _payment_settings(value: Any, current: dict[str, Any]) -> dict[str, Any]:
    if value is None:
        return current
    if not isinstance(value, dict):
        raise InvalidRequest("Invalid object", param="payment_settings")
    reject_unknown(value, {"save_default_payment_method", "payment_method_types", "payment_method_options"})
    settings = dict(current)
    if "save_default_payment_method" in value:
        settings["save_default_payment_method"] = one_of(
            value["save_default_payment_method"], ("off", "on_subscription"),
            param="payment_settings[save_default_payment_method]")
    if value.get("payment_method_types") not in (None, ""):
        types = value["payment_method_types"]
        if not isinstance(types, list) or any(t != "card" for t in types):
            raise InvalidRequest("The local Stripe stand-in takes cards only.",
                                 param="payment_settings[payment_method_types]")
        settings["payment_method_types"] = types
    return settings


def _trial_days(value: Any) -> int:
    """`trial_period_days`: whole days, at most 730 (Stripe's limit); 0 or absent is no trial."""
    if value is None or value == "":
        return 0
    days = as_int(value, param="trial_period_days", minimum=0)
    if days > 730:
        raise InvalidRequest("Invalid integer: trial_period_days must be at most 730",
                             code="parameter_invalid_integer", param="trial_period_days")
    return days


def _trial_settings(value: Any) -> str:
    """`trial_settings[end_behavior][missing_payment_method]`: what happens at the trial's end without a card."""
    if value is None:
        return "create_invoice"
    if not isinstance(value, dict):
        raise InvalidRequest("Invalid object", param="trial_settings")
    reject_unknown(value, {"end_behavior"})
    behavior = value.get("end_behavior")
    if not isinstance(behavior, dict):
        raise InvalidRequest("Invalid object", param="trial_settings[end_behavior]")
    reject_unknown(behavior, {"missing_payment_method"})
    param = "trial_settings[end_behavior][missing_payment_method]"
    chosen = str(one_of(required(behavior, "missing_payment_method"), ("cancel", "create_invoice", "pause"),
                        param=param))
    if chosen == "pause":
        raise InvalidRequest("The local Stripe stand-in does not support pausing a subscription at its trial's end.",
                             param=param)
    return chosen


def pending_setup_succeeded(intent: Any) -> None:
    """A SetupIntent a trialing subscription was waiting for succeeded (registered by renewals.install)."""
    for sub in ls.store.of("subscription"):
        if isinstance(sub, Subscription) and sub.pending_setup_intent == intent.id:
            sub._setup_succeeded(intent)


def _will_decline(method_id: str | None) -> CardError | None:
    """What `error_if_incomplete` answers before anything changes, if the card cannot pay."""
    if method_id is None:
        return CardError("This customer has no attached payment source or default payment method.",
                         code="resource_missing")
    method = ls.PaymentMethod._api_retrieve(method_id)
    if method._charging_is_declined():
        code, decline_code, message = compat.card_decline(method)
        return CardError(message, code=code, decline_code=decline_code)
    return None


def create_subscription(params: dict[str, Any]) -> Subscription:
    _not_supported(params)
    reject_unknown(params, CREATE_PARAMS)
    customer = retrieve_customer(required(params, "customer"))
    behavior = one_of(params.get("payment_behavior", "allow_incomplete"),
                      ("allow_incomplete", "default_incomplete", "error_if_incomplete", "pending_if_incomplete"),
                      param="payment_behavior")
    if behavior == "pending_if_incomplete":
        raise InvalidRequest("pending_if_incomplete is only supported on subscription updates.",
                             param="payment_behavior")
    one_of(params.get("collection_method", "charge_automatically"), ("charge_automatically",),
           param="collection_method")
    items = _items_param(params.get("items"))
    prices = [_price_for_item(item, n) for n, item in enumerate(items)]
    _same_cycle(prices)
    _check_currency(customer, prices[0].currency)
    quantities = [as_int(item.get("quantity", 1), param=f"items[{n}][quantity]", minimum=1)
                  for n, item in enumerate(items)]
    transfer = _transfer_data(params.get("transfer_data"))
    percent = _fee_percent(params.get("application_fee_percent"))
    _fee_needs_connect(percent, transfer, params.get("on_behalf_of"))
    settings = _payment_settings(params.get("payment_settings"),
                                 {"payment_method_options": None, "payment_method_types": None,
                                  "save_default_payment_method": "off"})
    method_id = params.get("default_payment_method")
    if method_id is not None:
        attached_card(customer, method_id, param="default_payment_method")
    charge_with = method_id or customer.invoice_settings.get("default_payment_method")
    total = sum(p.unit_amount * q for p, q in zip(prices, quantities, strict=True))
    trial_days = _trial_days(params.get("trial_period_days"))
    end_behavior = _trial_settings(params.get("trial_settings"))
    chosen_coupons = coupons.discounts_param(params.get("discounts"), currency=prices[0].currency)
    if behavior == "error_if_incomplete" and total + customer.balance > 0 and not trial_days:
        refusal = _will_decline(charge_with)
        if refusal is not None:
            raise refusal
    with at_customer(customer.id):
        sub = Subscription(customer=customer, params=params, prices=[
            (p, q, as_metadata(item.get("metadata"), param=f"items[{n}][metadata]"))
            for n, (p, q, item) in enumerate(zip(prices, quantities, items, strict=True))])
        sub.default_payment_method = method_id
        sub.payment_settings = settings
        sub.transfer_data = transfer
        sub.application_fee_percent = percent
        if params.get("cancel_at_period_end") is not None and as_bool(params["cancel_at_period_end"],
                                                                     param="cancel_at_period_end"):
            sub.cancel_at_period_end = True
            sub.cancel_at = sub._period_end
        customer.currency = customer.currency or sub.currency
        sub._discounts = [coupons.Discount(coupon=coupon, customer=customer.id, subscription=sub.id,
                                           start=context.now()).id for coupon in chosen_coupons]
        if trial_days:
            sub._start_trial(trial_days, end_behavior)
            if behavior == "default_incomplete":
                setup = SetupIntent._api_create(customer=customer.id, usage="off_session",
                                                metadata={"subscription": sub.id})
                sub.pending_setup_intent = setup.id
        lines = sub._trial_lines() if trial_days else sub._item_lines()
        invoice = Invoice(customer=customer, subscription=sub, billing_reason="subscription_create",
                          lines=pending_lines(customer.id, sub.id) + lines, period=(sub.created, sub.created))
        claim_pending(customer.id, sub.id, invoice)
        emit("customer.subscription.created", sub)  # already naming its first invoice, as Stripe's does
        emit("invoice.created", invoice)
        invoice._finalize()
        if invoice.status == "open" and behavior != "default_incomplete" and charge_with:
            invoice._attempt(charge_with, automatic=False)
        if (behavior == "default_incomplete" and not trial_days and invoice.status == "paid"
                and not invoice.payment_intent):
            # Nothing to pay now (a 100% discount): active at once, and the card for the renewals is collected
            # by a SetupIntent, as for a trial.
            setup = SetupIntent._api_create(customer=customer.id, usage="off_session",
                                            metadata={"subscription": sub.id})
            sub.pending_setup_intent = setup.id
    return sub


def _proration_lines(sub: Subscription, changes: list[tuple[SubscriptionItem | None, Price | None, int]],
                     at: int) -> list[dict[str, Any]]:
    """Credit for the unused time of what changes, charge for the rest of the period at the new terms."""
    start, end = sub._period_start, sub._period_end
    fraction = Decimal(max(0, end - at)) / Decimal(end - start)
    lines: list[dict[str, Any]] = []
    for item, new_price, new_quantity in changes:
        if item is not None:
            old = item._price()
            credit = -round_money(Decimal(old.unit_amount * item.quantity) * fraction)
            if credit:
                lines.append(line_item(amount=credit, currency=old.currency, period=(at, end), price=old.id,
                                   product=old.product, quantity=item.quantity, subscription=sub.id,
                                   subscription_item=item.id, proration=True,
                                   description=f"Unused time on {item.quantity} {TIMES} {_product_name(old)} after "
                                               f"{_date(at)}"))
        if new_price is not None and new_quantity:
            charge = round_money(Decimal(new_price.unit_amount * new_quantity) * fraction)
            if charge:
                lines.append(line_item(amount=charge, currency=new_price.currency, period=(at, end), price=new_price.id,
                                   product=new_price.product, quantity=new_quantity, subscription=sub.id,
                                   subscription_item=item.id if item is not None else None, proration=True,
                                   description=f"Remaining time on {new_quantity} {TIMES} "
                                               f"{_product_name(new_price)} after {_date(at)}"))
    return lines


def _planned_changes(sub: Subscription, items: list[dict[str, Any]]
                     ) -> list[tuple[SubscriptionItem | None, Price | None, int, dict[str, Any]]]:
    """(item or None for a new one, its new price or None when deleted, new quantity, the request's entry)."""
    planned = []
    current = {item.id: item for item in sub._item_objects()}
    for n, entry in enumerate(items):
        item = current.get(entry["id"]) if entry.get("id") else None
        if entry.get("id") and item is None:
            raise InvalidRequest(f"No such subscription item: '{entry['id']}'", code="resource_missing",
                                 param=f"items[{n}][id]")
        if entry.get("deleted") is not None and as_bool(entry["deleted"], param=f"items[{n}][deleted]"):
            if item is None:
                raise InvalidRequest("An item to delete needs its `id`.", param=f"items[{n}][deleted]")
            planned.append((item, None, 0, entry))
            continue
        price = _price_for_item(entry, n) if entry.get("price") else (item._price() if item else None)
        if price is None:
            raise InvalidRequest(f"Missing required param: items[{n}][price].", code="parameter_missing",
                                 param=f"items[{n}][price]")
        default_quantity = item.quantity if item is not None else 1
        quantity = as_int(entry.get("quantity", default_quantity), param=f"items[{n}][quantity]", minimum=1)
        planned.append((item, price, quantity, entry))
    remaining = [i for i in current.values() if not any(p[0] is i and p[1] is None for p in planned)]
    if not remaining and not any(p[0] is None for p in planned):
        raise InvalidRequest("A subscription must keep at least one item.", param="items")
    new_prices = [p[1] for p in planned if p[1] is not None]
    if new_prices:
        _same_cycle(new_prices, interval=sub._interval, count=sub._interval_count, currency=sub.currency)
    return planned


def _proration_time(sub: Subscription, value: Any) -> int:
    if value is None:
        return context.now()
    at = as_int(value, param="proration_date")
    if not sub._period_start <= at <= sub._period_end:
        raise InvalidRequest("proration_date must be within the current period.", param="proration_date")
    return at


def update_subscription(sub: Subscription, params: dict[str, Any]) -> Subscription:
    _not_supported(params)
    reject_unknown(params, UPDATE_PARAMS)
    params = dict(params)
    params.pop("expand", None)
    if sub.status in ENDED:
        extra = set(params) - {"metadata", "cancellation_details"}
        if extra:
            raise InvalidRequest("A canceled subscription can only update its cancellation_details and metadata.",
                                 param=sorted(extra)[0])
    customer = retrieve_customer(sub.customer)
    behavior = one_of(params.pop("payment_behavior", "allow_incomplete"),
                      ("allow_incomplete", "default_incomplete", "error_if_incomplete", "pending_if_incomplete"),
                      param="payment_behavior")
    if behavior == "pending_if_incomplete":
        raise InvalidRequest("The local Stripe stand-in does not support pending updates (pending_if_incomplete).",
                             param="payment_behavior")
    proration = one_of(params.pop("proration_behavior", "create_prorations"),
                       ("create_prorations", "none", "always_invoice"), param="proration_behavior")
    anchor = params.pop("billing_cycle_anchor", "unchanged")
    one_of(anchor, ("unchanged", "now"), param="billing_cycle_anchor")
    with at_customer(sub.customer):
        at = _proration_time(sub, params.pop("proration_date", None))
        planned = _planned_changes(sub, _items_param(params.pop("items"))) if "items" in params else []
        if planned and sub.status == "incomplete":
            raise InvalidRequest("You cannot update a subscription in `incomplete` status in a way that results in "
                                 "new invoice or invoice items.", param="items")
        method_id = params.get("default_payment_method") or None
        if method_id is not None:
            attached_card(customer, method_id, param="default_payment_method")
        changes = [(item, price, qty) for item, price, qty, _ in planned
                   if item is None or price is None or price.id != item.price or qty != item.quantity]
        lines = _proration_lines(sub, changes, at) if changes and proration != "none" else []
        invoices_now = anchor == "now" or (proration == "always_invoice" and lines)
        if invoices_now and behavior == "error_if_incomplete":
            due = sum(line["amount"] for line in lines) + customer.balance
            if anchor == "now":
                due += sum(p.unit_amount * q for _, p, q, _ in planned if p is not None)
            if due > 0:
                refusal = _will_decline(method_id or sub.default_payment_method
                                        or customer.invoice_settings.get("default_payment_method"))
                if refusal is not None:
                    raise refusal
        before = sub._fields()
        saved = copy.deepcopy(vars(sub))
        try:
            _apply_simple_fields(sub, params)
        except UserError:
            vars(sub).update(saved)  # nothing changes when a field is refused
            raise
        _apply_items(sub, planned)
        for line in lines:
            details = line["parent"]["subscription_item_details"]
            price = Price._api_retrieve(line["pricing"]["price_details"]["price"])
            InvoiceItem(customer=sub.customer, subscription=sub.id,
                        subscription_item=details["subscription_item"] or _new_item_for(sub, price),
                        price=price, amount=line["amount"], description=line["description"],
                        period=(line["period"]["start"], line["period"]["end"]), proration=True)
        invoice = None
        if anchor == "now":
            sub.billing_cycle_anchor = at
            sub._cycle = 0
            sub._period_start = at
            sub._period_end = add_interval(at, sub._interval, sub._interval_count, 1)
        if invoices_now:
            invoice_lines = pending_lines(sub.customer, sub.id) + (sub._item_lines() if anchor == "now" else [])
            invoice = Invoice(customer=customer, subscription=sub, billing_reason="subscription_update",
                              lines=invoice_lines, period=(at, at))
            claim_pending(sub.customer, sub.id, invoice)
        sub._update_event(before)
        if invoice is not None:
            emit("invoice.created", invoice)
            invoice._finalize()
            if invoice.status == "open":
                if behavior == "default_incomplete":
                    _past_due_awaiting(sub)
                else:
                    invoice._attempt(invoice._charge_method(), automatic=True)
    return sub


def _new_item_for(sub: Subscription, price: Price) -> str | None:
    return next((item.id for item in sub._item_objects() if item.price == price.id), None)


def _past_due_awaiting(sub: Subscription) -> None:
    before = sub._fields()
    if sub.status == "active":
        sub.status = "past_due"
    sub._update_event(before)


def _apply_items(sub: Subscription, planned: list[tuple[SubscriptionItem | None, Price | None, int, dict[str, Any]]]
                 ) -> None:
    for item, price, quantity, entry in planned:
        if item is None:
            assert price is not None
            sub._items.append(SubscriptionItem(subscription=sub.id, price=price, quantity=quantity,
                                               metadata=as_metadata(entry.get("metadata"))).id)
        elif price is None:
            sub._items.remove(item.id)
            del ls.store[f"subscription_item:{item.id}"]
        else:
            item.price = price.id
            item.quantity = quantity
            if "metadata" in entry:
                item.metadata = merge_metadata(item.metadata, entry["metadata"])


def _apply_simple_fields(sub: Subscription, params: dict[str, Any]) -> None:
    if "metadata" in params:
        sub.metadata = merge_metadata(sub.metadata, params["metadata"])
    if "description" in params:
        sub.description = params["description"] or None
    if "default_payment_method" in params:
        sub.default_payment_method = params["default_payment_method"] or None
    if "application_fee_percent" in params:
        percent = _fee_percent(params["application_fee_percent"])
        _fee_needs_connect(percent, sub.transfer_data, sub.on_behalf_of)
        sub.application_fee_percent = percent
    if "transfer_data" in params:
        sub.transfer_data = _transfer_data(params["transfer_data"])
        if sub.transfer_data is None:
            sub.application_fee_percent = None
    if "on_behalf_of" in params:
        sub.on_behalf_of = params["on_behalf_of"] or None
    if "payment_settings" in params:
        sub.payment_settings = _payment_settings(params["payment_settings"], sub.payment_settings)
    details = params.get("cancellation_details")
    if details is not None:
        if not isinstance(details, dict):
            raise InvalidRequest("Invalid object", param="cancellation_details")
        reject_unknown(details, {"comment", "feedback"})
        sub.cancellation_details.update({k: (v or None) for k, v in details.items()})
    if "cancel_at_period_end" in params:
        if as_bool(params["cancel_at_period_end"], param="cancel_at_period_end"):
            sub.cancel_at_period_end = True
            sub.cancel_at = sub._period_end
            sub.canceled_at = context.now()
            sub.cancellation_details["reason"] = "cancellation_requested"
        else:
            _resume(sub)
    if "cancel_at" in params:
        value = params["cancel_at"]
        if value in ("", None):
            _resume(sub)
        else:
            if value in ("max_period_end", "min_period_end"):
                at = sub._period_end
            else:
                at = as_int(value, param="cancel_at")
                if at <= context.now():
                    raise InvalidRequest("cancel_at must be in the future.", param="cancel_at")
            sub.cancel_at = at
            sub.cancel_at_period_end = at == sub._period_end
            sub.canceled_at = context.now()
            sub.cancellation_details["reason"] = "cancellation_requested"


def _resume(sub: Subscription) -> None:
    sub.cancel_at_period_end = False
    sub.cancel_at = None
    sub.canceled_at = None
    sub.cancellation_details = {"comment": None, "feedback": None, "reason": None}


def cancel_subscription(sub: Subscription, params: dict[str, Any]) -> Subscription:
    """`DELETE /v1/subscriptions/<id>`: now; `prorate` credits the unused time, `invoice_now` invoices it now."""
    reject_unknown(params, {"invoice_now", "prorate", "cancellation_details", "expand"})
    if sub.status in ENDED:
        raise InvalidRequest("A canceled subscription can't be canceled again.", code="resource_missing")
    prorate = as_bool(params.get("prorate", False), param="prorate")
    invoice_now = as_bool(params.get("invoice_now", False), param="invoice_now")
    with at_customer(sub.customer):
        details = params.get("cancellation_details")
        if isinstance(details, dict):
            sub.cancellation_details.update({k: v for k, v in details.items() if k in ("comment", "feedback")})
        at = context.now()
        credit = _proration_lines(sub, [(item, None, 0) for item in sub._item_objects()], at) if prorate else []
        cancel_now(sub, reason="cancellation_requested")
        for line in credit:
            price = Price._api_retrieve(line["pricing"]["price_details"]["price"])
            InvoiceItem(customer=sub.customer, subscription=None,
                        subscription_item=line["parent"]["subscription_item_details"]["subscription_item"],
                        price=price, amount=line["amount"], description=line["description"],
                        period=(line["period"]["start"], line["period"]["end"]), proration=True)
        if invoice_now and pending_items(sub.customer, None):
            customer = retrieve_customer(sub.customer)
            invoice = Invoice(customer=customer, subscription=None, billing_reason="subscription_update",
                              lines=pending_lines(sub.customer, None), period=(at, at))
            claim_pending(sub.customer, None, invoice)
            invoice.subscription = sub.id
            emit("invoice.created", invoice)
            invoice._finalize()
            if invoice.status == "open":
                invoice._attempt(invoice._charge_method(), automatic=True)
    return sub


def list_subscriptions(params: dict[str, Any]) -> list[Subscription]:
    reject_unknown(params, {"customer", "status", "price", "test_clock", "limit", "starting_after",
                            "ending_before", "expand", "created", "collection_method", "current_period_end",
                            "current_period_start"})
    rows = [s for s in ls.store.of("subscription") if isinstance(s, Subscription)]
    status = params.get("status")
    if status is None:
        rows = [s for s in rows if s.status not in ENDED]
    elif status == "ended":
        rows = [s for s in rows if s.status in ENDED]
    elif status != "all":
        one_of(status, ("active", "past_due", "unpaid", "canceled", "incomplete", "incomplete_expired",
                        "trialing", "paused"), param="status")
        rows = [s for s in rows if s.status == status]
    if params.get("customer") is not None:
        rows = [s for s in rows if s.customer == params["customer"]]
    if params.get("test_clock") is not None:
        rows = [s for s in rows if s.test_clock == params["test_clock"]]
    if params.get("price") is not None:
        rows = [s for s in rows if any(i.price == params["price"] for i in s._item_objects())]
    return newest_first(rows)


def preview_invoice(params: dict[str, Any]) -> Invoice:
    """`POST /v1/invoices/create_preview`: the next invoice, or what a change would invoice at once."""
    reject_unknown(params, {"customer", "subscription", "subscription_details", "expand"})
    details = params.get("subscription_details") or {}
    if not isinstance(details, dict):
        raise InvalidRequest("Invalid object", param="subscription_details")
    reject_unknown(details, {"items", "proration_behavior", "proration_date", "cancel_at_period_end",
                             "billing_cycle_anchor"})
    if params.get("subscription") is None:
        raise InvalidRequest("The local Stripe stand-in previews invoices of existing subscriptions only.",
                             param="subscription")
    sub = retrieve_subscription(params["subscription"])
    customer = retrieve_customer(params.get("customer") or sub.customer)
    with at_customer(sub.customer):
        proration = one_of(details.get("proration_behavior", "create_prorations"),
                           ("create_prorations", "none", "always_invoice"),
                           param="subscription_details[proration_behavior]")
        at = _proration_time(sub, details.get("proration_date"))
        planned = _planned_changes(sub, _items_param(details["items"])) if details.get("items") else []
        changes = [(item, price, qty) for item, price, qty, _ in planned
                   if item is None or price is None or price.id != item.price or qty != item.quantity]
        lines = _proration_lines(sub, changes, at) if changes and proration != "none" else []
        if proration == "always_invoice" and lines:
            preview = Invoice(customer=customer, subscription=sub, billing_reason="subscription_update",
                              lines=lines, period=(at, at), store=False)
        else:
            next_start = sub._period_end
            next_end = add_interval(sub.billing_cycle_anchor, sub._interval, sub._interval_count, sub._cycle + 2)
            item_lines = []
            for item, price, quantity in _next_period_items(sub, planned):
                item_lines.append(line_item(
                    amount=price.unit_amount * quantity, currency=price.currency, quantity=quantity,
                    description=_describe(quantity, price),
                    period=(next_start, next_end), price=price.id, product=price.product, subscription=sub.id,
                    subscription_item=item.id if item is not None else None))
            preview = Invoice(customer=customer, subscription=sub, billing_reason="upcoming",
                              lines=pending_lines(sub.customer, sub.id) + lines + item_lines,
                              period=(sub._period_start, sub._period_end), store=False)
            preview.created = next_start
        total = preview._total()
        preview.starting_balance = customer.balance
        preview.amount_due = max(0, total + customer.balance)
        preview.ending_balance = min(0, total + customer.balance)
        preview.automatically_finalizes_at = None
        preview.next_payment_attempt = preview.created if preview.amount_due else None
    return preview


def _next_period_items(sub: Subscription, planned: list[tuple[SubscriptionItem | None, Price | None, int, Any]]
                       ) -> list[tuple[SubscriptionItem | None, Price, int]]:
    changed = {item.id: (price, qty) for item, price, qty, _ in planned if item is not None}
    rows: list[tuple[SubscriptionItem | None, Price, int]] = []
    for item in sub._item_objects():
        if item.id in changed:
            price, quantity = changed[item.id]
            if price is not None:
                rows.append((item, price, quantity))
        else:
            rows.append((item, item._price(), item.quantity))
    rows += [(None, price, qty) for item, price, qty, _ in planned if item is None and price is not None]
    return rows
