"""Refunds (with Connect's `reverse_transfer` / `refund_application_fee`) and disputes, as Stripe answers them.

Refunds: `POST /v1/refunds` with `payment_intent` or `charge`, optional `amount` (partial; never more than
what is left), `reason` (duplicate | fraudulent | requested_by_customer), `metadata`, `reverse_transfer`
(takes the refunded share of a destination charge's transfer back from the connected account: a transfer
reversal, `transfer.reversed`) and `refund_application_fee` (gives the refunded share of the platform's fee
back to the connected account: `application_fee.refunded`). Card refunds succeed at once; Stripe then sends
`charge.refunded` (the charge, with `amount_refunded`/`refunded`) and `refund.created`. A refund made "in
the dashboard" is the stand-in's dev route `POST /_standin/refund`, which goes through the same code and
sends the same events. A charged-back charge cannot be refunded (`charge_disputed`).

Disputes: cards 4000000000000259 (fraudulent), 4000000000002685 (product not received) and
4000000000001976 (an inquiry: `warning_needs_response`, no money moves) succeed and are disputed at once, as in
Stripe's test mode; `POST /_standin/disputes` opens one on any succeeded charge. A chargeback withdraws the
amount plus a 15.00 fee from the platform's balance (`charge.dispute.created`, `charge.dispute.funds_withdrawn`).
`POST /v1/disputes/<id>` with `evidence[uncategorized_text]=winning_evidence` wins it (funds reinstated,
`charge.dispute.closed`), `losing_evidence` loses it, other evidence leaves it `under_review`;
`POST /v1/disputes/<id>/close` accepts (loses) it.
"""

from __future__ import annotations

import time
from typing import Any

from localstripe import resources as ls
from localstripe.errors import UserError

from dev.stripe_standin import compat, context
from dev.stripe_standin.compat import ApplicationFee, InvalidRequest, Transfer
from dev.stripe_standin.customers import at_customer
from dev.stripe_standin.delivery import emit
from dev.stripe_standin.shapes import Resource, as_bool, as_int, as_metadata, merge_metadata, one_of, reject_unknown

REASONS = ("duplicate", "fraudulent", "requested_by_customer")
DISPUTE_FEE = 1500
# Test cards whose payments succeed and are then disputed: (reason, status).
DISPUTE_CARDS: dict[str, tuple[str, str]] = {
    "4000000000000259": ("fraudulent", "needs_response"),
    "4000000000002685": ("product_not_received", "needs_response"),
    "4000000000001976": ("fraudulent", "warning_needs_response"),
}
EVIDENCE_FIELDS = (
    "access_activity_log", "billing_address", "cancellation_policy", "cancellation_policy_disclosure",
    "cancellation_rebuttal", "customer_communication", "customer_email_address", "customer_name",
    "customer_purchase_ip", "customer_signature", "duplicate_charge_documentation", "duplicate_charge_explanation",
    "duplicate_charge_id", "product_description", "receipt", "refund_policy", "refund_policy_disclosure",
    "refund_refusal_explanation", "service_date", "service_documentation", "shipping_address", "shipping_carrier",
    "shipping_date", "shipping_documentation", "shipping_tracking_number", "uncategorized_file",
    "uncategorized_text",
)
DISPUTE_STATUSES = ("warning_needs_response", "warning_under_review", "warning_closed", "needs_response",
                    "under_review", "won", "lost")


def _charge_of(params: dict[str, Any]) -> ls.Charge:
    intent_id, charge_id = params.get("payment_intent"), params.get("charge")
    if (intent_id is None) == (charge_id is None):
        raise InvalidRequest("You must pass either `charge` or `payment_intent`.", param="charge")
    if intent_id is not None:
        intent = ls.store.get(f"payment_intent:{intent_id}")
        if intent is None:
            raise UserError(404, f"No such payment_intent: '{intent_id}'",
                            {"code": "resource_missing", "param": "payment_intent"})
        charge = intent.latest_charge
        if charge is None or charge.status != "succeeded":
            raise InvalidRequest(f"This PaymentIntent ({intent_id}) does not have a successful charge to refund.",
                                 code="charge_not_refundable", param="payment_intent")
        return charge
    charge = ls.store.get(f"charge:{charge_id}")
    if charge is None:
        raise UserError(404, f"No such charge: '{charge_id}'", {"code": "resource_missing", "param": "charge"})
    return charge


def refund(params: dict[str, Any]) -> ls.Refund:
    """Create a refund (API and dashboard alike), moving Connect money as Stripe does."""
    reject_unknown(params, {"charge", "payment_intent", "amount", "reason", "metadata", "reverse_transfer",
                            "refund_application_fee", "instructions_email", "origin"})
    charge = _charge_of(params)
    remaining = charge.amount - charge.amount_refunded
    if remaining <= 0:
        raise InvalidRequest(f"Charge {charge.id} has already been refunded.", code="charge_already_refunded")
    if _chargeback(charge) is not None:
        raise InvalidRequest(f"Charge {charge.id} has been charged back; cannot issue a refund.",
                             code="charge_disputed")
    amount = remaining if params.get("amount") is None else as_int(params["amount"], param="amount", minimum=1)
    if amount > remaining:
        raise InvalidRequest(f"Refund amount ({amount / 100:.2f}) is greater than unrefunded amount on charge "
                             f"({remaining / 100:.2f})", code="amount_too_large", param="amount")
    reason = params.get("reason")
    if reason is not None:
        one_of(reason, REASONS, param="reason")
    reverse = as_bool(params.get("reverse_transfer", False), param="reverse_transfer")
    refund_fee = as_bool(params.get("refund_application_fee", False), param="refund_application_fee")
    transfer = ls.store.get(f"transfer:{charge.transfer}") if getattr(charge, "transfer", None) else None
    if reverse and transfer is None:
        raise InvalidRequest("This charge has no transfer to reverse.", param="reverse_transfer")
    with at_customer(charge.customer):
        created = ls.Refund(charge=charge.id, amount=amount, metadata=as_metadata(params.get("metadata")))
        created._seq = time.perf_counter_ns()
        created.payment_intent = charge.payment_intent
        created.reason = reason
        created.instructions_email = params.get("instructions_email")
        created.transfer_reversal = None
        created.source_transfer_reversal = None
        if reverse and transfer is not None:
            share = transfer.amount * amount // charge.amount
            if charge.amount_refunded == charge.amount:  # the last refund takes back what is left
                share = transfer.amount - transfer.amount_reversed
            transfer.amount_reversed = min(transfer.amount, transfer.amount_reversed + share)
            transfer.reversed = transfer.amount_reversed == transfer.amount
            created.transfer_reversal = "trr_" + ls.random_id(24)
            emit("transfer.reversed", transfer)
        fee = ls.store.get(f"application_fee:{charge.application_fee}") if getattr(charge, "application_fee",
                                                                                    None) else None
        if refund_fee and fee is not None:
            share = fee.amount * amount // charge.amount
            if charge.amount_refunded == charge.amount:
                share = fee.amount - fee.amount_refunded
            fee._refund(share)
        emit("charge.refunded", charge)
        emit("refund.created", created)
    return created


def list_refunds(params: dict[str, Any]) -> list[ls.Refund]:
    """Newest first, as Stripe lists them."""
    reject_unknown(params, {"charge", "payment_intent", "limit", "starting_after", "ending_before", "expand",
                            "created"})
    rows = list(ls.store.of("refund"))  # type: ignore[attr-defined]
    for name in ("charge", "payment_intent"):
        if params.get(name) is not None:
            rows = [r for r in rows if getattr(r, name) == params[name]]
    return sorted(rows, key=lambda r: (r.created, getattr(r, "_seq", 0)), reverse=True)


_orig_refund_export = ls.Refund._export


def _refund_export(self: ls.Refund, expand: Any = None) -> dict[str, Any]:
    data = _orig_refund_export(self, expand=expand)
    data.pop("date", None)
    data.pop("livemode", None)  # a Refund has none (dev/stripe_types.json)
    data.setdefault("reason", None)
    data.setdefault("transfer_reversal", None)
    data.setdefault("source_transfer_reversal", None)
    data.setdefault("instructions_email", None)
    data.update({"description": None, "destination_details": {"card": {"reference_status": "pending",
                                                                       "reference_type": "acquirer_reference_number",
                                                                       "type": "refund"}, "type": "card"},
                 "failure_reason": None, "next_action": None, "presentment_details": None, "receipt_number": None})
    return data


# --- disputes ----------------------------------------------------------------------------------------------


def _chargeback(charge: ls.Charge) -> Dispute | None:
    return next((d for d in ls.store.of("dispute")  # type: ignore[attr-defined]
                 if d.charge == charge.id and not d.status.startswith("warning")), None)


def _balance_transaction(amount: int, fee: int, currency: str, description: str) -> dict[str, Any]:
    return {"id": "txn_" + ls.random_id(24), "object": "balance_transaction", "amount": amount,
            "available_on": context.now(), "created": context.now(), "currency": currency,
            "description": description, "exchange_rate": None, "fee": fee,
            "fee_details": [{"amount": fee, "application": None, "currency": currency,
                             "description": "Dispute fee", "type": "stripe_fee"}] if fee else [],
            "net": amount - fee, "reporting_category": "dispute", "source": None, "status": "available",
            "type": "adjustment"}


class Dispute(Resource):
    object = "dispute"
    _id_prefix = "du_"

    def __init__(self, *, charge: ls.Charge, reason: str, status: str, amount: int | None = None) -> None:
        super().__init__()
        self.charge = charge.id
        self.payment_intent = charge.payment_intent
        self.amount = charge.amount if amount is None else amount
        self.currency = charge.currency
        self.reason = reason
        self.status = status
        self.metadata: dict[str, str] = {}
        self.evidence: dict[str, Any] = {name: None for name in EVIDENCE_FIELDS}
        self.submission_count = 0
        self.due_by = self.created + 7 * 24 * 3600
        self.balance_transactions: list[dict[str, Any]] = []
        if not status.startswith("warning"):
            self.balance_transactions.append(_balance_transaction(
                -self.amount, DISPUTE_FEE, self.currency, f"Chargeback withdrawal for {charge.id}"))
        emit("charge.dispute.created", self)
        if self.balance_transactions:
            emit("charge.dispute.funds_withdrawn", self)

    def _withdrawn(self) -> int:
        """What the dispute has taken from the platform's balance so far (amount + fee, less reinstatements)."""
        return -sum(t["net"] for t in self.balance_transactions)

    def _submit(self, params: dict[str, Any]) -> None:
        reject_unknown(params, {"evidence", "metadata", "submit", "expand", "intended_submission_method"})
        if self.status in ("won", "lost", "warning_closed"):
            raise InvalidRequest("This dispute is already closed.", code="dispute_already_closed")
        with at_customer(ls.Charge._api_retrieve(self.charge).customer):
            if "metadata" in params:
                self.metadata = merge_metadata(self.metadata, params["metadata"])
            evidence = params.get("evidence") or {}
            if not isinstance(evidence, dict):
                raise InvalidRequest("Invalid object", param="evidence")
            reject_unknown(evidence, EVIDENCE_FIELDS)
            self.evidence.update(evidence)
            submit = as_bool(params.get("submit", True), param="submit") and bool(evidence)
            previous = {"status": self.status}
            if submit:
                self.submission_count += 1
                text = self.evidence.get("uncategorized_text")
                warning = self.status.startswith("warning")
                if text == "winning_evidence":
                    self.status = "warning_closed" if warning else "won"
                elif text == "losing_evidence":
                    self.status = "warning_closed" if warning else "lost"
                else:
                    self.status = "warning_under_review" if warning else "under_review"
            emit("charge.dispute.updated", self, previous=previous if submit else None)
            self._after_status()

    def _close(self) -> None:
        if self.status in ("won", "lost", "warning_closed"):
            raise InvalidRequest("This dispute is already closed.", code="dispute_already_closed")
        with at_customer(ls.Charge._api_retrieve(self.charge).customer):
            self.status = "warning_closed" if self.status.startswith("warning") else "lost"
            self._after_status()

    def _after_status(self) -> None:
        if self.status not in ("won", "lost", "warning_closed"):
            return
        if self.status == "won" and self.balance_transactions:
            self.balance_transactions.append(_balance_transaction(
                self.amount, -DISPUTE_FEE, self.currency, f"Chargeback reversal for {self.charge}"))
            emit("charge.dispute.funds_reinstated", self)
        emit("charge.dispute.closed", self)

    def _fields(self) -> dict[str, Any]:
        return {"id": self.id, "object": "dispute", "amount": self.amount,
                "balance_transactions": [dict(t) for t in self.balance_transactions], "charge": self.charge,
                "created": self.created, "currency": self.currency, "enhanced_eligibility_types": [],
                "evidence": dict(self.evidence),
                "evidence_details": {"due_by": self.due_by, "enhanced_eligibility": {},
                                     "has_evidence": self.submission_count > 0, "past_due": False,
                                     "submission_count": self.submission_count},
                "is_charge_refundable": self.status.startswith("warning"), "livemode": False,
                "metadata": dict(self.metadata), "network_reason_code": "10.4" if self.reason == "fraudulent"
                else "13.1", "payment_intent": self.payment_intent,
                "payment_method_details": {"card": {"brand": "visa", "case_type": "inquiry"
                                                    if self.status.startswith("warning") else "chargeback",
                                                    "network_reason_code": None}, "type": "card"},
                "reason": self.reason, "status": self.status}


def open_dispute(params: dict[str, Any]) -> Dispute:
    """The dev route's dispute: on a succeeded charge, chargeback (default) or inquiry."""
    reject_unknown(params, {"charge", "payment_intent", "reason", "amount", "inquiry"})
    charge = _charge_of({k: params[k] for k in ("charge", "payment_intent") if params.get(k) is not None})
    if charge.status != "succeeded":
        raise InvalidRequest("Only a succeeded charge can be disputed.", param="charge")
    if any(d.charge == charge.id for d in ls.store.of("dispute")):  # type: ignore[attr-defined]
        raise InvalidRequest(f"Charge {charge.id} is already disputed.", code="charge_disputed")
    reason = params.get("reason") or "fraudulent"
    inquiry = as_bool(params.get("inquiry", False), param="inquiry")
    amount = None if params.get("amount") is None else as_int(params["amount"], param="amount", minimum=1)
    if amount is not None and amount > charge.amount:
        raise InvalidRequest("A dispute cannot be larger than its charge.", param="amount")
    with at_customer(charge.customer):
        return Dispute(charge=charge, reason=reason, amount=amount,
                       status="warning_needs_response" if inquiry else "needs_response")


def list_disputes(params: dict[str, Any]) -> list[Dispute]:
    reject_unknown(params, {"charge", "payment_intent", "limit", "starting_after", "ending_before", "expand",
                            "created"})
    rows = [d for d in ls.store.of("dispute") if isinstance(d, Dispute)]  # type: ignore[attr-defined]
    for name in ("charge", "payment_intent"):
        if params.get(name) is not None:
            rows = [d for d in rows if getattr(d, name) == params[name]]
    return sorted(rows, key=lambda d: d.created, reverse=True)


def _dispute_test_cards(intent: ls.PaymentIntent) -> None:
    charge = intent.latest_charge
    method = ls.store.get(f"payment_method:{charge.payment_method}") if charge is not None else None
    card = DISPUTE_CARDS.get(getattr(method, "_card_number", "") or "")
    if card is not None and not any(d.charge == charge.id for d in ls.store.of("dispute")):  # type: ignore
        Dispute(charge=charge, reason=card[0], status=card[1])


def platform_dispute_withdrawals() -> dict[str, int]:
    """Per currency, what open or lost chargebacks have taken from the platform's balance."""
    totals: dict[str, int] = {}
    for dispute in ls.store.of("dispute"):  # type: ignore[attr-defined]
        if isinstance(dispute, Dispute):
            totals[dispute.currency] = totals.get(dispute.currency, 0) + dispute._withdrawn()
    return totals


def install() -> None:
    ls.Refund._export = _refund_export
    if _dispute_test_cards not in compat.after_success:
        compat.after_success.append(_dispute_test_cards)


__all__ = ["ApplicationFee", "Dispute", "Transfer", "install", "list_disputes", "open_dispute", "refund"]
