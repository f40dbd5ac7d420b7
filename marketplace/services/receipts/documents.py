"""Who reads an order's receipt (its buyer and admins; anyone else is told it does not exist) and what the
receipt and its credit note say, as text both renderings share."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from marketplace.db import autocommit_scope
from marketplace.models import Order, Receipt, ReceiptKind, Role, User
from marketplace.services import money
from marketplace.services.errors import NotFound
from marketplace.services.permissions import require_user
from marketplace.services.receipts.issue import OPERATOR, documents_of, ensure, format_number

NOT_FOUND = "Receipt not found"
ORDER_ID_RE = re.compile(r"[A-Za-z0-9]{1,32}")


@dataclass(frozen=True)
class Document:
    """One receipt or credit note, every value as printed."""

    kind: str
    title: str  # 'Receipt' or 'Credit note'
    number: str
    date: str
    operator: str
    seller: str
    buyer: list[str]  # name, e-mail, then business name, address lines and tax ID when given
    line: str
    subtotal: str
    discount: str
    total: str
    currency: str
    card: str  # 'Visa •••• 4242', or '' when not known
    status: str  # 'Paid' on a receipt, 'Refunded' on a credit note
    refers_to: str = ""  # a credit note: the receipt's number
    order_id: str = ""


@dataclass(frozen=True)
class ReceiptView:
    order_id: str  # '' for a plan payment's receipt
    receipt: Document
    credit_note: Document | None = None  # once the order is refunded
    pdf_url: str = ""  # the PDF's address; '' for an order's (`receipt_path`)
    back_url: str = "/dashboard?tab=orders"
    back_label: str = "Back to orders"


def _day(moment: datetime) -> str:
    return f"{moment:%d %B %Y}"


def document(row: Receipt) -> Document:
    credit = row.kind == ReceiptKind.CREDIT_NOTE
    buyer = [row.buyer_name, row.buyer_email] if row.buyer_name != row.buyer_email else [row.buyer_email]
    if row.buyer_business_name:
        buyer.append(row.buyer_business_name)
    if row.buyer_billing_address:
        buyer.extend(row.buyer_billing_address.split("\n"))
    if row.buyer_tax_id:
        buyer.append(f"Tax ID: {row.buyer_tax_id}")
    card = f"{row.card_brand.title()} •••• {row.card_last4}" if row.card_brand and row.card_last4 else ""
    sign = "-" if credit else ""
    return Document(
        kind=row.kind, title="Credit note" if credit else "Receipt", number=format_number(row.kind, row.number),
        date=_day(row.paid_at), operator=OPERATOR, seller=row.seller_name, buyer=[b for b in buyer if b],
        line=row.line, subtotal=sign + money.format_amount(row.subtotal_cents, row.currency),
        # A discount is taken off the subtotal (on a credit note, whose amounts are negative, it is given back).
        discount=money.format_amount(row.discount_cents if credit else -row.discount_cents, row.currency),
        total=sign + money.format_amount(row.total_cents, row.currency), currency=row.currency.upper(),
        card=card, status="Refunded" if credit else "Paid",
        refers_to=format_number(ReceiptKind.RECEIPT, row.refers_to_number) if row.refers_to_number else "",
        order_id=row.order_id or "")


def readable_by(user: User, payer_id: str | None) -> bool:
    """A receipt is read by whoever paid it and by admins; anyone else is told there is none."""
    return payer_id == user.id or user.role == Role.ADMIN


def _readable_order(user: User, order_id: str) -> Order:
    if not isinstance(order_id, str) or not ORDER_ID_RE.fullmatch(order_id):
        raise NotFound(NOT_FOUND)
    with autocommit_scope() as session:
        order = session.get(Order, order_id)
    if order is None or not readable_by(user, order.user_id):
        raise NotFound(NOT_FOUND)  # someone else's order: as if there were none
    return order


def receipt_of(*, actor: User | None, order_id: str) -> ReceiptView:
    """The receipt of a paid order (and its credit note once refunded; either numbered now if it has none yet,
    see `issue`). Only the buyer and admins; for anyone else, and for an unpaid order, NotFound."""
    user = require_user(actor)
    order = _readable_order(user, order_id)
    with autocommit_scope() as session:
        known = documents_of(session, [order.id])
    receipt, credit = ensure(order, known)
    if receipt is None:
        raise NotFound(NOT_FOUND)
    return ReceiptView(order_id=order.id, receipt=document(receipt),
                       credit_note=document(credit) if credit is not None else None)


def receipt_numbers(*, actor: User | None, orders: list[Order]) -> dict[str, str]:
    """The receipt number of each of the buyer's own paid orders (numbering any paid before receipts were
    numbered at payment)."""
    user = require_user(actor)
    mine = [o for o in orders if o.user_id == user.id]
    with autocommit_scope() as session:
        known = documents_of(session, [o.id for o in mine])
    numbers: dict[str, str] = {}
    for order in mine:
        receipt, _credit = ensure(order, known)
        if receipt is not None:
            numbers[order.id] = format_number(receipt.kind, receipt.number)
    return numbers


def receipt_path(order_id: str, *, pdf: bool = False) -> str:
    return f"/api/user/orders/{order_id}/receipt{'.pdf' if pdf else ''}"
