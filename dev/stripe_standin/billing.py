"""Stripe Billing in the stand-in: Subscriptions, their Invoices and PaymentIntents, prorations, renewals, dunning.

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

import contextlib
import copy
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from dateutil.relativedelta import relativedelta
from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import compat, context
from dev.stripe_standin.catalog import Price
from dev.stripe_standin.compat import CardError, InvalidRequest
from dev.stripe_standin.customers import at_customer, attach, attached_card, retrieve_customer
from dev.stripe_standin.delivery import emit
from dev.stripe_standin.shapes import (
    Resource,
    as_bool,
    as_int,
    as_metadata,
    merge_metadata,
    one_of,
    page,
    reject_unknown,
    required,
)

DAY = 24 * 3600
FINALIZE_DELAY = 3600  # Stripe finalizes and charges a renewal invoice one hour after creating it
INCOMPLETE_EXPIRY = 23 * 3600
ENDED = ("canceled", "incomplete_expired")
DESCRIPTIONS = {"subscription_create": "Subscription creation", "subscription_cycle": "Subscription update",
                "subscription_update": "Subscription update"}


@dataclass
class Dunning:
    """What happens after a failed automatic payment (Stripe's "Manage failed payments" settings)."""

    retry_days: tuple[int, ...] = (1, 3, 7)  # days after the first failure
    after_retries: str = "canceled"  # canceled | unpaid | past_due


dunning = Dunning()


def _money(value: Decimal) -> int:
    return int(value.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


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


# --- invoice items (pending prorations) ---------------------------------------------------------------------


class InvoiceItem(Resource):
    object = "invoiceitem"
    _id_prefix = "ii_"

    def __init__(self, *, customer: str, subscription: str | None, subscription_item: str | None, price: Price,
                 amount: int, description: str, period: tuple[int, int], proration: bool) -> None:
        super().__init__()
        self._seq = time.perf_counter_ns()
        self.customer = customer
        self.subscription = subscription
        self.subscription_item = subscription_item
        self.price = price.id
        self.product = price.product
        self.amount = amount
        self.currency = price.currency
        self.description = description
        self.period = {"start": period[0], "end": period[1]}
        self.proration = proration
        self.invoice: str | None = None
        self.metadata: dict[str, str] = {}
        emit("invoiceitem.created", self)

    def _fields(self) -> dict[str, Any]:
        customer = ls.store.get(f"customer:{self.customer}")
        return {"id": self.id, "object": "invoiceitem", "amount": self.amount, "currency": self.currency,
                "customer": self.customer, "date": self.created, "description": self.description,
                "discountable": False, "discounts": [], "invoice": self.invoice, "livemode": False,
                "metadata": dict(self.metadata), "net_amount": self.amount,
                "parent": {"type": "subscription_details",
                           "subscription_details": {"subscription": self.subscription,
                                                    "subscription_item": self.subscription_item}},
                "period": dict(self.period),
                "pricing": {"price_details": {"price": self.price, "product": self.product},
                            "type": "price_details", "unit_amount_decimal": str(self.amount)},
                "proration": self.proration, "proration_details": {"credited_items": None}, "quantity": 1,
                "tax_rates": [], "test_clock": getattr(customer, "test_clock", None)}

    def _line(self) -> dict[str, Any]:
        return _line(amount=self.amount, currency=self.currency, description=self.description,
                     period=(self.period["start"], self.period["end"]), price=self.price, product=self.product,
                     quantity=1, subscription=self.subscription, subscription_item=self.subscription_item,
                     invoice_item=self.id, proration=self.proration)


def _line(*, amount: int, currency: str, description: str, period: tuple[int, int], price: str, product: str,
          quantity: int, subscription: str | None, subscription_item: str | None, invoice_item: str | None = None,
          proration: bool = False) -> dict[str, Any]:
    """An invoice line item, as `lines.data[]` shows it."""
    return {"id": "il_" + ls.random_id(24), "object": "line_item", "amount": amount, "currency": currency,
            "description": description, "discount_amounts": [], "discountable": not proration, "discounts": [],
            "invoice": None, "livemode": False, "metadata": {},
            "parent": {"type": "subscription_item_details", "invoice_item_details": None,
                       "subscription_item_details": {"invoice_item": invoice_item, "proration": proration,
                                                     "proration_details": {"credited_items": None},
                                                     "subscription": subscription,
                                                     "subscription_item": subscription_item}},
            "period": {"start": period[0], "end": period[1]}, "pretax_credit_amounts": [],
            "pricing": {"price_details": {"price": price, "product": product}, "type": "price_details",
                        "unit_amount_decimal": str(amount // max(quantity, 1))},
            "quantity": quantity, "subscription": subscription, "subtotal": amount, "taxes": []}


def _legacy_line(line: dict[str, Any]) -> dict[str, Any]:
    details = line["parent"]["subscription_item_details"]
    price = Price._api_retrieve(line["pricing"]["price_details"]["price"])
    return {**line, "price": price._fields(), "plan": price._plan(), "proration": details["proration"],
            "subscription_item": details["subscription_item"], "invoice_item": details["invoice_item"],
            "type": "invoiceitem" if details["invoice_item"] else "subscription"}


# --- invoice payments ----------------------------------------------------------------------------------------


class InvoicePayment(Resource):
    object = "invoice_payment"
    _id_prefix = "inpay_"

    def __init__(self, *, invoice: Invoice, intent: Any) -> None:
        super().__init__()
        self.invoice = invoice.id
        self.payment_intent = intent.id
        self.amount_requested = intent.amount
        self.amount_paid: int | None = None
        self.currency = intent.currency
        self.status = "open"
        self.status_transitions = {"canceled_at": None, "paid_at": None}

    def _fields(self) -> dict[str, Any]:
        return {"id": self.id, "object": "invoice_payment", "amount_paid": self.amount_paid,
                "amount_requested": self.amount_requested, "created": self.created, "currency": self.currency,
                "invoice": self.invoice, "is_default": True, "livemode": False,
                "payment": {"type": "payment_intent", "payment_intent": self.payment_intent},
                "status": self.status, "status_transitions": dict(self.status_transitions)}


def list_invoice_payments(params: dict[str, Any]) -> list[InvoicePayment]:
    reject_unknown(params, {"invoice", "payment", "status", "limit", "starting_after", "ending_before", "expand",
                            "created"})
    rows = [p for p in ls.store.of("invoice_payment") if isinstance(p, InvoicePayment)]
    if params.get("invoice") is not None:
        rows = [p for p in rows if p.invoice == params["invoice"]]
    payment = params.get("payment")
    if isinstance(payment, dict) and payment.get("payment_intent"):
        rows = [p for p in rows if p.payment_intent == payment["payment_intent"]]
    if params.get("status") is not None:
        rows = [p for p in rows if p.status == params["status"]]
    return sorted(rows, key=lambda p: p.created, reverse=True)


# --- invoices ------------------------------------------------------------------------------------------------


class Invoice(Resource):
    object = "invoice"
    _id_prefix = "in_"
    _includable = ("confirmation_secret", "payments")

    def __init__(self, *, customer: Any, subscription: Subscription | None, billing_reason: str,
                 lines: list[dict[str, Any]], period: tuple[int, int], store: bool = True) -> None:
        if store:
            super().__init__()
        else:  # a preview: same shape, never stored
            self.id = "upcoming_in_" + ls.random_id(14)
            self.created = context.now()
            self.livemode = False
        self._seq = time.perf_counter_ns()
        self.customer = customer.id
        self._customer_snapshot = {"email": customer.email, "name": customer.name, "phone": customer.phone,
                                   "address": customer.address}
        self.subscription = subscription.id if subscription is not None else None
        self._subscription_metadata = dict(subscription.metadata) if subscription is not None else None
        self.billing_reason = billing_reason
        self.lines = [{**line, "invoice": self.id} for line in lines]
        self.currency = lines[0]["currency"] if lines else (customer.currency or "usd")
        self.period_start, self.period_end = period
        self.status = "draft"
        self.number: str | None = None
        self.auto_advance = True
        self.automatically_finalizes_at: int | None = self.created + FINALIZE_DELAY
        self.attempt_count = 0
        self.attempted = False
        self.next_payment_attempt: int | None = None
        self.starting_balance = 0
        self.ending_balance: int | None = None
        self.amount_due = self._total()
        self.amount_paid = 0
        self.metadata: dict[str, str] = {}
        self.description: str | None = None
        self.status_transitions: dict[str, int | None] = {"finalized_at": None, "marked_uncollectible_at": None,
                                                          "paid_at": None, "voided_at": None}
        self.test_clock = customer.test_clock
        self.payment_intent: str | None = None
        self.payment: str | None = None
        self._first_failure_at: int | None = None
        self._attempting: str | None = None  # "automatic" while the stand-in charges it on its own
        self.webhooks_delivered_at = self.created
        if subscription is not None and store:
            subscription.latest_invoice = self.id

    def _total(self) -> int:
        return sum(line["amount"] for line in self.lines)

    # -- the invoice's life

    def _finalize(self) -> None:
        """draft -> open (or paid when nothing is due): number, balance applied, PaymentIntent created."""
        customer = retrieve_customer(self.customer)
        total = self._total()
        self.starting_balance = customer.balance
        combined = total + customer.balance
        self.amount_due = max(0, combined)
        self.ending_balance = min(0, combined)
        customer.balance = self.ending_balance
        self.number = f"{customer.invoice_prefix}-{customer.next_invoice_sequence:04d}"
        customer.next_invoice_sequence += 1
        self.status = "open"
        self.automatically_finalizes_at = None
        self.status_transitions["finalized_at"] = context.now()
        if self.amount_due > 0:
            self._create_intent()
        emit("invoice.finalized", self)
        if self.amount_due == 0:
            self._mark_paid()

    def _create_intent(self) -> None:
        sub = self._subscription()
        params: dict[str, Any] = {"amount": self.amount_due, "currency": self.currency, "customer": self.customer,
                                  "payment_method_types": ["card"], "description": DESCRIPTIONS.get(
                                      self.billing_reason)}
        if sub is not None:
            if sub.payment_settings.get("save_default_payment_method") == "on_subscription":
                params["setup_future_usage"] = "off_session"
            if sub.transfer_data:
                transfer: dict[str, Any] = {"destination": sub.transfer_data["destination"]}
                if sub.transfer_data.get("amount_percent") is not None:
                    transfer["amount"] = _money(Decimal(self.amount_due)
                                                * Decimal(str(sub.transfer_data["amount_percent"])) / 100)
                params["transfer_data"] = transfer
            if sub.application_fee_percent is not None and sub.transfer_data:
                params["application_fee_amount"] = _money(
                    Decimal(self.amount_due) * Decimal(str(sub.application_fee_percent)) / 100)
            if sub.on_behalf_of:
                params["on_behalf_of"] = sub.on_behalf_of
        intent = ls.PaymentIntent(**params)
        intent.invoice = self.id  # localstripe calls back _on_payment_success / _on_payment_failure_*
        self.payment_intent = intent.id
        self.payment = InvoicePayment(invoice=self, intent=intent).id

    def _intent(self) -> Any:
        return ls.store.get(f"payment_intent:{self.payment_intent}") if self.payment_intent else None

    def _subscription(self) -> Subscription | None:
        return ls.store.get(f"subscription:{self.subscription}") if self.subscription else None

    def _charge_method(self) -> str | None:
        """The card an automatic payment uses: the subscription's default, else the customer's."""
        sub = self._subscription()
        if sub is not None and sub.default_payment_method:
            return sub.default_payment_method
        customer = retrieve_customer(self.customer)
        return customer.invoice_settings.get("default_payment_method")

    def _attempt(self, method_id: str | None, *, automatic: bool) -> bool:
        """Charge the invoice's PaymentIntent with a saved card; failures are recorded, never raised."""
        intent = self._intent()
        if intent is None or intent.status == "succeeded":
            return intent is not None
        self._attempting = "automatic" if automatic else "manual"
        try:
            if method_id is None:
                self._record_failure(None)
                return False
            method = ls.PaymentMethod._api_retrieve(method_id)
            intent.payment_method = method.id
            intent.latest_charge = None
            intent.next_action = None
            intent._authentication_failed = False
            intent._canceled = False
            if method._requires_authentication() and getattr(method, "_card_number", "") != "4000002500003155":
                # Off-session, a card that always asks for 3-D Secure cannot be charged without the customer.
                intent.next_action = {"type": "use_stripe_sdk",
                                      "use_stripe_sdk": {"type": "three_d_secure_redirect", "stripe_js": ""}}
                self._record_failure("invoice.payment_action_required")
                return False
            with contextlib.suppress(UserError):  # a decline is recorded by _on_payment_failure_now
                intent._create_charge(on_failure_now=intent._report_failure)
            return intent.status == "succeeded"
        finally:
            self._attempting = None

    # localstripe's PaymentIntent calls these three
    def _on_payment_success(self) -> None:
        self._mark_paid()

    def _on_payment_failure_now(self) -> None:
        self._record_failure(None)

    def _on_payment_failure_later(self) -> None:
        self._record_failure(None)

    def _mark_paid(self) -> None:
        if self.status == "paid":
            return
        now = context.now()
        self.status = "paid"
        self.amount_paid = self.amount_due
        self.attempted = True
        self.attempt_count = max(self.attempt_count, 1 if self.amount_due else 0)
        self.next_payment_attempt = None
        self.status_transitions["paid_at"] = now
        payment = ls.store.get(f"invoice_payment:{self.payment}") if self.payment else None
        if payment is not None:
            payment.status = "paid"
            payment.amount_paid = self.amount_due
            payment.status_transitions["paid_at"] = now
        customer = retrieve_customer(self.customer)
        customer.delinquent = any(i.status == "open" and i.attempt_count > 0 for i in invoices_of(self.customer))
        emit("invoice.paid", self)
        emit("invoice.payment_succeeded", self)
        sub = self._subscription()
        if sub is not None:
            sub._invoice_paid(self)

    def _record_failure(self, event_type: str | None) -> None:
        """A failed attempt: count it, schedule the next retry (or the final action), tell the subscription."""
        now = context.now()
        automatic = self._attempting == "automatic"
        first = self.attempt_count == 0
        self.attempted = True
        if automatic or first:
            self.attempt_count += 1
        sub = self._subscription()
        retrying = (sub is not None and sub.status not in ENDED and self.billing_reason != "subscription_create"
                    and (automatic or first))
        final = False
        if retrying:
            if self._first_failure_at is None:
                self._first_failure_at = now
            done = self.attempt_count - 1  # retries already made
            if done < len(dunning.retry_days):
                self.next_payment_attempt = self._first_failure_at + dunning.retry_days[done] * DAY
            else:
                self.next_payment_attempt = None
                final = True
        if automatic or first:
            retrieve_customer(self.customer).delinquent = True
        emit(event_type or "invoice.payment_failed", self)
        if sub is not None and retrying:
            sub._invoice_failed(self, final=final)

    def _void(self) -> None:
        if self.status not in ("draft", "open"):
            raise InvalidRequest(f"You can only void draft or open invoices; this one is {self.status}.",
                                 code="invoice_not_editable")
        self.status = "void"
        self.next_payment_attempt = None
        self.status_transitions["voided_at"] = context.now()
        intent = self._intent()
        if intent is not None and intent.status != "succeeded":
            intent._canceled = True
            intent.cancellation_reason = "void_invoice"
            payment = ls.store.get(f"invoice_payment:{self.payment}")
            if payment is not None:
                payment.status = "canceled"
                payment.status_transitions["canceled_at"] = context.now()
            emit("payment_intent.canceled", intent)
        emit("invoice.voided", self)

    def _mark_uncollectible(self) -> None:
        if self.status != "open":
            raise InvalidRequest(f"You can only mark open invoices uncollectible; this one is {self.status}.",
                                 code="invoice_not_open")
        self.status = "uncollectible"
        self.next_payment_attempt = None
        self.status_transitions["marked_uncollectible_at"] = context.now()
        retrieve_customer(self.customer).delinquent = False
        emit("invoice.marked_uncollectible", self)

    # -- shape

    def _fields(self) -> dict[str, Any]:
        total = self._total()
        customer = self._customer_snapshot
        parent = None
        if self.subscription:
            parent = {"type": "subscription_details", "quote_details": None,
                      "subscription_details": {"metadata": dict(self._subscription_metadata or {}),
                                               "subscription": self.subscription,
                                               "subscription_proration_date": None}}
        legacy = context.legacy_shape()
        lines = [_legacy_line(line) for line in self.lines] if legacy else [dict(line) for line in self.lines]
        data = {
            "id": self.id, "object": "invoice", "account_country": "US", "account_name": "Stand-in platform",
            "account_tax_ids": None, "amount_due": self.amount_due, "amount_overpaid": 0,
            "amount_paid": self.amount_paid, "amount_remaining": self.amount_due - self.amount_paid,
            "amount_shipping": 0, "application": None, "attempt_count": self.attempt_count,
            "attempted": self.attempted, "auto_advance": self.auto_advance,
            "automatic_tax": {"disabled_reason": None, "enabled": False, "liability": None, "provider": None,
                              "status": None},
            "automatically_finalizes_at": self.automatically_finalizes_at, "billing_reason": self.billing_reason,
            "collection_method": "charge_automatically", "created": self.created, "currency": self.currency,
            "custom_fields": None, "customer": self.customer, "customer_address": customer["address"],
            "customer_email": customer["email"], "customer_name": customer["name"],
            "customer_phone": customer["phone"], "customer_shipping": None, "customer_tax_exempt": "none",
            "customer_tax_ids": [], "default_payment_method": None, "default_source": None,
            "default_tax_rates": [], "description": self.description, "discounts": [], "due_date": None,
            "effective_at": self.status_transitions["finalized_at"], "ending_balance": self.ending_balance,
            "footer": None, "from_invoice": None, "hosted_invoice_url": None, "invoice_pdf": None,
            "issuer": {"type": "self"}, "last_finalization_error": None, "latest_revision": None,
            "lines": {"object": "list", "data": lines, "has_more": False, "total_count": len(lines),
                      "url": f"/v1/invoices/{self.id}/lines"},
            "livemode": False, "metadata": dict(self.metadata), "next_payment_attempt": self.next_payment_attempt,
            "number": self.number, "on_behalf_of": None, "parent": parent,
            "payment_settings": {"default_mandate": None, "payment_method_options": None,
                                 "payment_method_types": None},
            "period_end": self.period_end, "period_start": self.period_start,
            "post_payment_credit_notes_amount": 0, "pre_payment_credit_notes_amount": 0, "receipt_number": None,
            "rendering": None, "shipping_cost": None, "shipping_details": None,
            "starting_balance": self.starting_balance, "statement_descriptor": None, "status": self.status,
            "status_details": None, "status_transitions": dict(self.status_transitions), "subtotal": total,
            "subtotal_excluding_tax": total, "test_clock": self.test_clock, "threshold_reason": None,
            "total": total, "total_discount_amounts": [], "total_excluding_tax": total,
            "total_pretax_credit_amounts": [], "total_taxes": [],
            "webhooks_delivered_at": self.webhooks_delivered_at,
        }
        if legacy:
            intent = self._intent()
            sub = self._subscription()
            data |= {"subscription": self.subscription, "payment_intent": self.payment_intent,
                     "charge": intent.latest_charge.id if intent is not None and intent.latest_charge else None,
                     "paid": self.status == "paid",
                     "application_fee_amount": getattr(intent, "application_fee_amount", None),
                     "transfer_data": dict(sub.transfer_data) if sub is not None and sub.transfer_data else None}
        return data

    def _include(self, name: str) -> Any:
        if name == "confirmation_secret":
            intent = self._intent()
            if intent is None or self.status != "open":
                return None
            return {"client_secret": intent.client_secret, "type": "payment_intent"}
        payments = [ls.store.get(f"invoice_payment:{self.payment}")] if self.payment else []
        return {"object": "list", "data": [p._fields() for p in payments if p is not None], "has_more": False,
                "total_count": len(payments), "url": f"/v1/invoice_payments?invoice={self.id}"}


def invoices_of(customer_id: str) -> list[Invoice]:
    return [i for i in ls.store.of("invoice") if isinstance(i, Invoice) and i.customer == customer_id]


def _newest(rows: list[Any]) -> list[Any]:
    return sorted(rows, key=lambda r: (r.created, getattr(r, "_seq", 0)), reverse=True)


def list_invoices(params: dict[str, Any]) -> list[Invoice]:
    reject_unknown(params, {"customer", "subscription", "status", "limit", "starting_after", "ending_before",
                            "expand", "created", "collection_method", "due_date"})
    rows = [i for i in ls.store.of("invoice") if isinstance(i, Invoice)]
    for name in ("customer", "subscription", "status"):
        if params.get(name) is not None:
            rows = [i for i in rows if getattr(i, name) == params[name]]
    return _newest(rows)


def retrieve_invoice(invoice_id: str) -> Invoice:
    invoice = ls.store.get(f"invoice:{invoice_id}") if isinstance(invoice_id, str) else None
    if not isinstance(invoice, Invoice):
        raise UserError(404, f"No such invoice: '{invoice_id}'", {"code": "resource_missing", "param": "id"})
    return invoice


def pay_invoice(invoice: Invoice, params: dict[str, Any]) -> Invoice:
    """`POST /v1/invoices/<id>/pay`: charge now (a given card, else the default one); 402 when declined."""
    reject_unknown(params, {"payment_method", "off_session", "forgive", "paid_out_of_band", "source", "mandate"})
    if invoice.status == "paid":
        raise InvalidRequest("Invoice is already paid", code="invoice_already_paid")
    if invoice.status not in ("draft", "open"):
        raise InvalidRequest(f"This invoice cannot be paid because it is {invoice.status}.", code="invoice_not_open")
    with at_customer(invoice.customer):
        customer = retrieve_customer(invoice.customer)
        method_id = params.get("payment_method")
        if method_id is not None:
            attached_card(customer, method_id, param="payment_method")
        if invoice.status == "draft":
            invoice._finalize()
            if invoice.status == "paid":
                return invoice
        if as_bool(params.get("paid_out_of_band", False), param="paid_out_of_band"):
            invoice._mark_paid()
            return invoice
        method_id = method_id or invoice._charge_method()
        if method_id is None:
            raise InvalidRequest("This customer has no attached payment source or default payment method. Please "
                                 "consider adding a default payment method.", code="invoice_no_payment_method")
        if not invoice._attempt(method_id, automatic=False):
            intent = invoice._intent()
            error = intent.last_payment_error or {"code": "card_declined", "message": "Your card was declined."}
            raise CardError(error.get("message", "Your card was declined."), code=error.get("code") or "card_declined",
                            decline_code=error.get("decline_code"), payment_intent=intent._export())
    return invoice


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
            "default_source": None, "default_tax_rates": [], "description": self.description, "discounts": [],
            "ended_at": self.ended_at, "invoice_settings": {"account_tax_ids": None, "issuer": {"type": "self"}},
            "items": {"object": "list", "data": items, "has_more": False, "total_count": len(items),
                      "url": f"/v1/subscription_items?subscription={self.id}"},
            "latest_invoice": self.latest_invoice, "livemode": False, "metadata": dict(self.metadata),
            "next_pending_invoice_item_invoice": None, "on_behalf_of": self.on_behalf_of, "pause_collection": None,
            "payment_settings": dict(self.payment_settings), "pending_invoice_item_interval": None,
            "pending_setup_intent": None, "pending_update": None, "schedule": None, "start_date": self.start_date,
            "status": self.status, "test_clock": self.test_clock,
            "transfer_data": dict(self.transfer_data) if self.transfer_data else None, "trial_end": None,
            "trial_settings": {"end_behavior": {"missing_payment_method": "create_invoice"}}, "trial_start": None,
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

    def _renew(self) -> Invoice | None:
        """The period ends: cancel if asked, else move to the next period and invoice it (draft)."""
        if self.cancel_at is not None and self.cancel_at <= self._period_end:
            cancel_now(self, reason=self.cancellation_details.get("reason") or "cancellation_requested",
                       at=self._period_end)
            return None
        before = self._fields()
        self._cycle += 1
        self._period_start = self._period_end
        self._period_end = add_interval(self.billing_cycle_anchor, self._interval, self._interval_count,
                                        self._cycle + 1)
        customer = retrieve_customer(self.customer)
        lines = _pending_lines(self.customer, self.id) + self._item_lines()
        invoice = Invoice(customer=customer, subscription=self, billing_reason="subscription_cycle", lines=lines,
                          period=(before["items"]["data"][0]["current_period_start"],
                                  before["items"]["data"][0]["current_period_end"]))
        _claim_pending(self.customer, self.id, invoice)
        emit("invoice.created", invoice)
        self._update_event(before)
        return invoice

    def _item_lines(self) -> list[dict[str, Any]]:
        lines = []
        for item in self._item_objects():
            price = item._price()
            lines.append(_line(
                amount=item._amount(), currency=price.currency, description=_describe(item.quantity, price),
                period=(self._period_start, self._period_end), price=price.id, product=price.product,
                quantity=item.quantity, subscription=self.id, subscription_item=item.id))
        return lines


def subscriptions_of(customer_id: str) -> list[Subscription]:
    return _newest([s for s in ls.store.of("subscription")
                    if isinstance(s, Subscription) and s.customer == customer_id])


def retrieve_subscription(subscription_id: str) -> Subscription:
    sub = ls.store.get(f"subscription:{subscription_id}") if isinstance(subscription_id, str) else None
    if not isinstance(sub, Subscription):
        raise UserError(404, f"No such subscription: '{subscription_id}'", {"code": "resource_missing", "param": "id"})
    return sub


def _pending_items(customer_id: str, subscription_id: str | None) -> list[InvoiceItem]:
    rows = [i for i in ls.store.of("invoiceitem") if isinstance(i, InvoiceItem) and i.customer == customer_id
            and i.invoice is None and i.subscription in (subscription_id, None)]
    return sorted(rows, key=lambda i: i._seq)


def _pending_lines(customer_id: str, subscription_id: str | None) -> list[dict[str, Any]]:
    return [item._line() for item in _pending_items(customer_id, subscription_id)]


def _claim_pending(customer_id: str, subscription_id: str | None, invoice: Invoice) -> None:
    for item in _pending_items(customer_id, subscription_id):
        item.invoice = invoice.id


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
    for item in _pending_items(sub.customer, sub.id):
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
                 "currency", "billing_mode"}
UPDATE_PARAMS = {"items", "proration_behavior", "proration_date", "payment_behavior", "cancel_at_period_end",
                 "cancel_at", "default_payment_method", "metadata", "description", "application_fee_percent",
                 "transfer_data", "payment_settings", "billing_cycle_anchor", "cancellation_details", "off_session",
                 "expand", "on_behalf_of", "collection_method"}
NOT_SUPPORTED = {"trial_period_days", "trial_end", "trial_from_plan", "backdate_start_date", "add_invoice_items",
                 "coupon", "discounts", "promotion_code", "automatic_tax", "pending_invoice_item_interval",
                 "days_until_due", "default_tax_rates", "billing_thresholds", "billing_cycle_anchor_config",
                 "pause_collection", "trial_settings", "default_source"}


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
    if behavior == "error_if_incomplete" and total + customer.balance > 0:
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
        emit("customer.subscription.created", sub)
        invoice = Invoice(customer=customer, subscription=sub, billing_reason="subscription_create",
                          lines=_pending_lines(customer.id, sub.id) + sub._item_lines(),
                          period=(sub.created, sub.created))
        _claim_pending(customer.id, sub.id, invoice)
        emit("invoice.created", invoice)
        invoice._finalize()
        if invoice.status == "open" and behavior != "default_incomplete" and charge_with:
            invoice._attempt(charge_with, automatic=False)
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
            credit = -_money(Decimal(old.unit_amount * item.quantity) * fraction)
            if credit:
                lines.append(_line(amount=credit, currency=old.currency, period=(at, end), price=old.id,
                                   product=old.product, quantity=item.quantity, subscription=sub.id,
                                   subscription_item=item.id, proration=True,
                                   description=f"Unused time on {item.quantity} {TIMES} {_product_name(old)} after "
                                               f"{_date(at)}"))
        if new_price is not None and new_quantity:
            charge = _money(Decimal(new_price.unit_amount * new_quantity) * fraction)
            if charge:
                lines.append(_line(amount=charge, currency=new_price.currency, period=(at, end), price=new_price.id,
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
            invoice_lines = _pending_lines(sub.customer, sub.id) + (sub._item_lines() if anchor == "now" else [])
            invoice = Invoice(customer=customer, subscription=sub, billing_reason="subscription_update",
                              lines=invoice_lines, period=(at, at))
            _claim_pending(sub.customer, sub.id, invoice)
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
        if invoice_now and _pending_items(sub.customer, None):
            customer = retrieve_customer(sub.customer)
            invoice = Invoice(customer=customer, subscription=None, billing_reason="subscription_update",
                              lines=_pending_lines(sub.customer, None), period=(at, at))
            _claim_pending(sub.customer, None, invoice)
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
    return _newest(rows)


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
                item_lines.append(_line(
                    amount=price.unit_amount * quantity, currency=price.currency, quantity=quantity,
                    description=_describe(quantity, price),
                    period=(next_start, next_end), price=price.id, product=price.product, subscription=sub.id,
                    subscription_item=item.id if item is not None else None))
            preview = Invoice(customer=customer, subscription=sub, billing_reason="upcoming",
                              lines=_pending_lines(sub.customer, sub.id) + lines + item_lines,
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


# --- automatic work: what falls due on a timeline (a test clock, or the wall clock) ---------------------------


def _due(customer_ids: set[str] | None, clock_id: str | None) -> list[tuple[int, int, str, Any]]:
    """Every pending automatic action of these customers: (time, order, kind, object)."""
    actions: list[tuple[int, int, str, Any]] = []
    for sub in ls.store.of("subscription"):
        if not isinstance(sub, Subscription) or sub.test_clock != clock_id or sub.status in ENDED:
            continue
        if customer_ids is not None and sub.customer not in customer_ids:
            continue
        if sub.status == "incomplete":
            actions.append((sub.created + INCOMPLETE_EXPIRY, 0, "expire", sub))
            continue
        if sub.cancel_at is not None and sub.cancel_at < sub._period_end:
            actions.append((sub.cancel_at, 0, "cancel", sub))
        actions.append((sub._period_end, 1, "period_end", sub))
    for invoice in ls.store.of("invoice"):
        if not isinstance(invoice, Invoice) or invoice.test_clock != clock_id:
            continue
        if customer_ids is not None and invoice.customer not in customer_ids:
            continue
        if invoice.status == "draft" and invoice.auto_advance and invoice.automatically_finalizes_at is not None:
            actions.append((invoice.automatically_finalizes_at, 2, "finalize", invoice))
        elif invoice.status == "open" and invoice.auto_advance and invoice.next_payment_attempt is not None:
            actions.append((invoice.next_payment_attempt, 3, "retry", invoice))
    return sorted(actions, key=lambda a: (a[0], a[1], a[3].created))


def next_due(clock_id: str | None, until: int) -> tuple[int, str, Any] | None:
    actions = [a for a in _due(None, clock_id) if a[0] <= until]
    return (actions[0][0], actions[0][2], actions[0][3]) if actions else None


def run_action(kind: str, obj: Any, at: int) -> None:
    """Do one automatic action at its time (the caller sets the clock's time)."""
    with context.at(at):
        if kind == "expire":
            before = obj._fields()
            obj.status = "incomplete_expired"
            obj.ended_at = at
            invoice = ls.store.get(f"invoice:{obj.latest_invoice}") if obj.latest_invoice else None
            if invoice is not None and invoice.status == "open":
                invoice._void()
            previous = {k: v for k, v in before.items() if obj._fields().get(k) != v}
            emit("customer.subscription.deleted", obj, previous=previous)
        elif kind == "cancel":
            cancel_now(obj, reason="cancellation_requested", at=at)
        elif kind == "period_end":
            obj._renew()
        elif kind == "finalize":
            obj._finalize()
            if obj.status == "open" and obj.auto_advance:
                sub = obj._subscription()
                if sub is None or sub.status != "unpaid":
                    obj._attempt(obj._charge_method(), automatic=True)
                else:
                    obj.auto_advance = False
        elif kind == "retry":
            obj._attempt(obj._charge_method(), automatic=True)


def max_advance(clock_id: str, frozen_time: int) -> int:
    """Stripe's limit: two intervals of the shortest subscription on the clock (two years without one)."""
    limits = [add_interval(frozen_time, s._interval, s._interval_count, 2) for s in ls.store.of("subscription")
              if isinstance(s, Subscription) and s.test_clock == clock_id and s.status not in ENDED]
    return min(limits) if limits else add_interval(frozen_time, "year", 1, 2)


def _save_card_after_payment(intent: Any) -> None:
    """A PaymentIntent with setup_future_usage attaches its card to the customer on success, as Stripe does."""
    if getattr(intent, "setup_future_usage", None) and intent.customer and intent.payment_method:
        method = ls.store.get(f"payment_method:{intent.payment_method}")
        if method is not None and method.customer is None:
            attach(method.id, retrieve_customer(intent.customer))


def install() -> None:
    if _save_card_after_payment not in compat.before_success:
        compat.before_success.append(_save_card_after_payment)


def page_of(rows: list[Any], params: dict[str, Any], url: str) -> dict[str, Any]:
    return page(rows, url=url, limit=params.get("limit"), starting_after=params.get("starting_after"),
                ending_before=params.get("ending_before"), expand=params.get("expand"))
