"""Invoices of the stand-in's subscriptions: lines, pending prorations, finalization, PaymentIntents, payments.

An invoice is created as a draft (`invoice.created`), finalized (`invoice.finalized`: its number, the customer's
balance applied, a PaymentIntent for `amount_due` whose client secret is the includable `confirmation_secret`,
and an InvoicePayment that `payments` and `/v1/invoice_payments` list), then paid (`invoice.paid`,
`invoice.payment_succeeded`) or not (`invoice.payment_failed`; the dunning schedule below). A subscription
invoice's PaymentIntent is a destination charge when its subscription has `transfer_data`, with
`application_fee_amount = round(amount_due * application_fee_percent / 100)` (half up). See subscriptions.py
for what creates invoices and renewals.py for what happens to them over time.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import context, coupons
from dev.stripe_standin.catalog import Price
from dev.stripe_standin.compat import CardError, InvalidRequest
from dev.stripe_standin.customers import at_customer, attached_card, retrieve_customer
from dev.stripe_standin.delivery import emit
from dev.stripe_standin.shapes import Resource, as_bool, reject_unknown

if TYPE_CHECKING:
    from dev.stripe_standin.subscriptions import Subscription

DAY = 24 * 3600
FINALIZE_DELAY = 3600  # Stripe finalizes and charges a renewal invoice one hour after creating it
ENDED = ("canceled", "incomplete_expired")  # subscription statuses after which nothing is billed
DESCRIPTIONS = {"subscription_create": "Subscription creation", "subscription_cycle": "Subscription update",
                "subscription_update": "Subscription update"}


@dataclass
class Dunning:
    """What happens after a failed automatic payment (Stripe's "Manage failed payments" settings)."""

    retry_days: tuple[int, ...] = (1, 3, 7)  # days after the first failure
    after_retries: str = "canceled"  # canceled | unpaid | past_due


dunning = Dunning()


def round_money(value: Decimal) -> int:
    return int(value.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def newest_first(rows: list[Any]) -> list[Any]:
    return sorted(rows, key=lambda r: (r.created, getattr(r, "_seq", 0)), reverse=True)


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
        return line_item(amount=self.amount, currency=self.currency, description=self.description,
                         period=(self.period["start"], self.period["end"]), price=self.price, product=self.product,
                         quantity=1, subscription=self.subscription, subscription_item=self.subscription_item,
                         invoice_item=self.id, proration=self.proration)


def line_item(*, amount: int, currency: str, description: str, period: tuple[int, int], price: str, product: str,
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
        # The subscription's live discounts (coupons.py), taken off the lines now, as Stripe does on creation.
        self.discounts: list[str] = []
        self.total_discount_amounts: list[dict[str, Any]] = []
        if subscription is not None and subscription._discounts:
            self.discounts, self.total_discount_amounts = coupons.apply(self.lines, subscription._discounts,
                                                                        at=context.now())
            if store:
                subscription._discount_used(self)
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
        self.last_finalization_error: dict[str, Any] | None = None
        self._first_failure_at: int | None = None
        self._attempting: str | None = None  # "automatic" while the stand-in charges it on its own
        self.webhooks_delivered_at = self.created
        if subscription is not None and store:
            subscription.latest_invoice = self.id

    def _subtotal(self) -> int:
        return sum(line["amount"] for line in self.lines)

    def _total(self) -> int:
        return self._subtotal() - sum(d["amount"] for d in self.total_discount_amounts)

    # -- the invoice's life

    def _finalize(self) -> None:
        """draft -> open (or paid when nothing is due): number, balance applied, PaymentIntent created.

        When the PaymentIntent cannot be made (the vendor's account can no longer receive transfers) nothing
        changes and the UserError propagates (run by the stand-in itself: `invoice.finalization_failed`)."""
        customer = retrieve_customer(self.customer)
        combined = self._total() + customer.balance
        amount_due = max(0, combined)
        intent = self._create_intent(amount_due) if amount_due > 0 else None
        self.starting_balance = customer.balance
        self.amount_due = amount_due
        self.ending_balance = min(0, combined)
        self.last_finalization_error = None
        customer.balance = self.ending_balance
        self.number = f"{customer.invoice_prefix}-{customer.next_invoice_sequence:04d}"
        customer.next_invoice_sequence += 1
        self.status = "open"
        self.automatically_finalizes_at = None
        self.status_transitions["finalized_at"] = context.now()
        if intent is not None:
            intent.invoice = self.id  # localstripe calls back _on_payment_success / _on_payment_failure_*
            self.payment_intent = intent.id
            self.payment = InvoicePayment(invoice=self, intent=intent).id
        emit("invoice.finalized", self)
        if self.amount_due == 0:
            self._mark_paid()

    def _create_intent(self, amount: int) -> Any:
        sub = self._subscription()
        params: dict[str, Any] = {"amount": amount, "currency": self.currency, "customer": self.customer,
                                  "description": DESCRIPTIONS.get(self.billing_reason)}  # card: the default
        if sub is not None:
            if sub.payment_settings.get("save_default_payment_method") == "on_subscription":
                params["setup_future_usage"] = "off_session"
            if sub.transfer_data:
                transfer: dict[str, Any] = {"destination": sub.transfer_data["destination"]}
                if sub.transfer_data.get("amount_percent") is not None:
                    transfer["amount"] = round_money(Decimal(amount)
                                                     * Decimal(str(sub.transfer_data["amount_percent"])) / 100)
                params["transfer_data"] = transfer
            if sub.application_fee_percent is not None and sub.transfer_data:
                params["application_fee_amount"] = round_money(
                    Decimal(amount) * Decimal(str(sub.application_fee_percent)) / 100)
            if sub.on_behalf_of:
                params["on_behalf_of"] = sub.on_behalf_of
        return ls.PaymentIntent(**params)

    def _finalization_failed(self, error: UserError) -> None:
        """The stand-in could not finalize it on its own: it stays a draft, no longer advanced automatically."""
        self.last_finalization_error = {"message": error.body["error"].get("message"),
                                        "type": error.body["error"].get("type"),
                                        "code": error.body["error"].get("code")}
        self.auto_advance = False
        self.automatically_finalizes_at = None
        emit("invoice.finalization_failed", self)

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
        total, subtotal = self._total(), self._subtotal()
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
            "default_tax_rates": [], "description": self.description, "discounts": list(self.discounts),
            "due_date": None,
            "effective_at": self.status_transitions["finalized_at"], "ending_balance": self.ending_balance,
            "footer": None, "from_invoice": None, "hosted_invoice_url": None, "invoice_pdf": None,
            "issuer": {"type": "self"}, "last_finalization_error": self.last_finalization_error,
            "latest_revision": None,
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
            "status_details": None, "status_transitions": dict(self.status_transitions), "subtotal": subtotal,
            "subtotal_excluding_tax": subtotal, "test_clock": self.test_clock, "threshold_reason": None,
            "total": total, "total_discount_amounts": [dict(d) for d in self.total_discount_amounts],
            "total_excluding_tax": total,
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


def list_invoices(params: dict[str, Any]) -> list[Invoice]:
    reject_unknown(params, {"customer", "subscription", "status", "limit", "starting_after", "ending_before",
                            "expand", "created", "collection_method", "due_date"})
    rows = [i for i in ls.store.of("invoice") if isinstance(i, Invoice)]
    for name in ("customer", "subscription", "status"):
        if params.get(name) is not None:
            rows = [i for i in rows if getattr(i, name) == params[name]]
    return newest_first(rows)


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



def pending_items(customer_id: str, subscription_id: str | None) -> list[InvoiceItem]:
    rows = [i for i in ls.store.of("invoiceitem") if isinstance(i, InvoiceItem) and i.customer == customer_id
            and i.invoice is None and i.subscription in (subscription_id, None)]
    return sorted(rows, key=lambda i: i._seq)


def pending_lines(customer_id: str, subscription_id: str | None) -> list[dict[str, Any]]:
    return [item._line() for item in pending_items(customer_id, subscription_id)]


def claim_pending(customer_id: str, subscription_id: str | None, invoice: Invoice) -> None:
    for item in pending_items(customer_id, subscription_id):
        item.invoice = invoice.id
