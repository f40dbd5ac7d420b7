"""Numbering an order's receipt and, once it is refunded, its credit note.

A receipt is numbered at payment (`issue_at_payment`), in the transaction that records the paid order (purchase
completion and its webhook, a subscription's paid invoice, a renewal), with the card the payment's retrieval
already gave: numbers follow the order of payment and nothing asks Stripe when a receipt is read. A credit note is
numbered in the transaction that marks its order refunded (`issue_credit_note`). An order that has no receipt (paid
before receipts were numbered at payment, demo data) has both documents numbered the first time they are read
(`ensure`). What a document says is copied from the order, the buyer's profile and the vendor at that moment and
never changes afterwards."""

from __future__ import annotations

import calendar
import logging
from datetime import datetime

from sqlalchemy import ScalarSelect, SQLColumnExpression, insert, literal, update
from sqlalchemy import select as sql_select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from marketplace.db import autocommit_scope, session_scope
from marketplace.integrations import payments
from marketplace.models import (
    ApplicationStatus,
    Order,
    OrderKind,
    OrderStatus,
    Receipt,
    ReceiptCounter,
    ReceiptKind,
    User,
    VendorApplication,
)
from marketplace.models.base import utcnow
from marketplace.services import names
from marketplace.services.errors import Conflict
from marketplace.services.receipts.numbering import take_number

OPERATOR = "AgentMarket"  # the marketplace, which takes the payment as the vendors' agent
PAID_STATUSES = (OrderStatus.COMPLETED, OrderStatus.REFUNDED)
ATTEMPTS = 3
PREFIXES = {ReceiptKind.RECEIPT: "R-", ReceiptKind.CREDIT_NOTE: "CN-"}
log = logging.getLogger(__name__)


def format_number(kind: str, number: int) -> str:
    """'R-000042' for a receipt, 'CN-000007' for a credit note: each kind has its own gap-free sequence."""
    return f"{PREFIXES[ReceiptKind(kind)]}{number:06d}"


class _AlreadyIssued(Exception):
    """Another request numbered this document first: roll back (returning the number taken) and use theirs."""

    def __init__(self, row: Receipt) -> None:
        super().__init__(row.id)
        self.row = row


def documents_of(session: Session, order_ids: list[str]) -> dict[tuple[str, str], Receipt]:
    """The documents of these orders by (order id, kind)."""
    if not order_ids:
        return {}
    rows = session.exec(select(Receipt).where(col(Receipt.order_id).in_(order_ids))).all()
    return {(row.order_id or "", row.kind): row for row in rows}


def add_month(moment: datetime) -> datetime:
    month = moment.month % 12 + 1
    year = moment.year + (moment.month == 12)
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def line_of(order: Order) -> str:
    """What was bought: the agent and a one-time license, or the month of the subscription this payment covers
    (a subscription bills monthly from the day it was paid)."""
    if order.kind in (OrderKind.SUBSCRIPTION, OrderKind.RENEWAL):
        start, end = order.created_at, add_month(order.created_at)
        line = f"{order.agent_name}: monthly subscription, {start:%d %b %Y} to {end:%d %b %Y}"
    else:
        line = f"{order.agent_name}: one-time license"
    return f"{line} (promotion code {order.promotion_code})" if order.promotion_code else line


def card_of(order: Order) -> payments.CardUsed | None:
    """The card that paid, asked of Stripe once, before the receipt is numbered (never inside its transaction);
    None when unknown: no payments configured, not a PaymentIntent, or Stripe unreachable (the receipt is still
    issued, without the card)."""
    if not payments.is_configured() or not order.payment_intent_id.startswith("pi_"):
        return None
    try:
        return payments.card_of_payment(order.payment_intent_id)
    except payments.PaymentsError as error:
        log.warning("receipt of order %s: card not known: %s", order.id, error.message)
        return None


def seller_name_of(vendor: User | None, applied: str | None) -> str:
    """The vendor's business name (its own profile's, else `applied`, the one its approved application gave),
    else its name; the marketplace itself when the vendor is gone."""
    if vendor is None:
        return OPERATOR
    return (vendor.business_name or applied or names.display_name(
        first_name=vendor.first_name, last_name=vendor.last_name, username=vendor.username))[:200]


def applied_business_name(vendor_id: SQLColumnExpression[str]) -> ScalarSelect[str | None]:
    """The business name of the vendor's newest approved application, as a column of a statement that reads the
    vendor anyway (the purchase path reads it with the agent: no statement of its own)."""
    return (select(VendorApplication.business_name)
            .where(VendorApplication.user_id == vendor_id, VendorApplication.status == ApplicationStatus.APPROVED)
            .order_by(col(VendorApplication.created_at).desc()).limit(1).scalar_subquery())


def seller_name_of_vendor(session: Session, vendor_id: str | None) -> str:
    """`seller_name_of` the vendor `vendor_id`, read now."""
    vendor = session.get(User, vendor_id) if vendor_id else None
    applied = session.exec(select(applied_business_name(literal(vendor.id)))).first() if vendor else None
    return seller_name_of(vendor, applied)


def receipt_row(order: Order, *, buyer: User | None, seller_name: str, card: payments.CardUsed | None) -> Receipt:
    """The receipt of a paid order as it reads at this moment (number still to take)."""
    name = names.display_name(first_name=buyer.first_name, last_name=buyer.last_name,
                              username=buyer.username) if buyer else ""
    # A promotion code's discount (the order's snapshot, in its currency): the subtotal is the price before it.
    discount = order.discount_cents or 0
    return Receipt(
        kind=ReceiptKind.RECEIPT, number=0, order_id=order.id, user_id=order.user_id, paid_at=order.created_at,
        seller_name=seller_name[:200], buyer_name=(name or order.customer_email)[:200],
        buyer_email=(buyer.email if buyer else order.customer_email)[:255],
        buyer_business_name=buyer.business_name if buyer else None,
        buyer_billing_address=buyer.billing_address if buyer else None,
        buyer_tax_id=buyer.tax_id if buyer else None,
        line=line_of(order)[:500], subtotal_cents=order.total_amount_cents + discount, discount_cents=discount,
        total_cents=order.total_amount_cents, currency=order.currency,
        card_brand=card.brand[:32] if card else None, card_last4=card.last4[-4:] if card else None)


def _snapshot(session: Session, order: Order, kind: str, receipt: Receipt | None,
              card: payments.CardUsed | None = None) -> Receipt:
    if kind == ReceiptKind.CREDIT_NOTE and receipt is not None:
        # The credit note repeats the parties of the receipt it cancels.
        return Receipt(
            kind=kind, number=0, order_id=order.id, user_id=order.user_id, refers_to_number=receipt.number,
            paid_at=order.refunded_at or utcnow(), seller_name=receipt.seller_name, buyer_name=receipt.buyer_name,
            buyer_email=receipt.buyer_email, buyer_business_name=receipt.buyer_business_name,
            buyer_billing_address=receipt.buyer_billing_address, buyer_tax_id=receipt.buyer_tax_id,
            line=f"Refund: {receipt.line}", subtotal_cents=receipt.subtotal_cents,
            discount_cents=receipt.discount_cents, total_cents=receipt.total_cents, currency=receipt.currency,
            card_brand=receipt.card_brand, card_last4=receipt.card_last4)
    buyer = session.get(User, order.user_id) if order.user_id else None
    return receipt_row(order, buyer=buyer, seller_name=seller_name_of_vendor(session, order.vendor_id), card=card)


def issue_at_payment(session: Session, order: Order, *, buyer: User | None, seller_name: str,
                     card: payments.CardUsed | None) -> Receipt:
    """Number the receipt of `order` in the transaction that records it as paid (`order` is flushed in
    `session`): the number and the row are written together, so numbers follow the order of payment and a
    rolled-back payment gives its number back. Call it last in that transaction: on PostgreSQL the counter's row
    stays locked until the commit, which queues the next payment's receipt behind this one."""
    row = receipt_row(order, buyer=buyer, seller_name=seller_name, card=card)
    write_numbered(session, row)
    return row


def issue_credit_note(session: Session, order: Order) -> Receipt | None:
    """Number the credit note of `order` in the transaction that marks it refunded (after the claim that only
    one refund wins), so a refund's credit note is numbered when the money goes back, as its receipt was when it
    came in. None for an order whose receipt was never numbered (paid before receipts were numbered at payment):
    both of its documents are numbered when first read (`ensure`)."""
    documents = documents_of(session, [order.id])
    if (found := documents.get((order.id, ReceiptKind.CREDIT_NOTE))) is not None:
        return found
    receipt = documents.get((order.id, ReceiptKind.RECEIPT))
    if receipt is None:
        return None
    row = _snapshot(session, order, ReceiptKind.CREDIT_NOTE, receipt)
    write_numbered(session, row)
    return row


def write_numbered(session: Session, row: Receipt) -> None:
    """Take the next number of `row.kind` and insert `row` with it. On PostgreSQL one statement (the counter's
    UPDATE ... RETURNING as a CTE feeding the INSERT); on SQLite, whose CTEs cannot update, the two statements
    `take_number` and the INSERT (in process, no round trip)."""
    if session.get_bind().dialect.name == "postgresql":
        table = Receipt.__table__
        values = {c.name: getattr(row, c.name) for c in table.columns if c.name != "number"}
        taken = (update(ReceiptCounter).where(ReceiptCounter.name == row.kind)
                 .values(last_number=ReceiptCounter.last_number + 1)
                 .returning(ReceiptCounter.last_number).cte("taken"))
        columns = [literal(value, type_=table.c[name].type) for name, value in values.items()]
        statement = (insert(table).from_select([*values, "number"], sql_select(*columns, taken.c.last_number))
                     .returning(table.c.number))
        number = session.execute(statement).scalar_one_or_none()
        if number is not None:
            row.number = int(number)
            return
        # No counter row yet (a database made without the migration's seed): made by take_number below.
    row.number = take_number(session, sequence=row.kind)
    session.add(row)
    session.flush()


def _issue(order: Order, kind: str, receipt: Receipt | None = None) -> Receipt:
    """Number one document of `order` in one transaction: the number, taken first (which queues concurrent
    documents), the check that no other request numbered it meanwhile, the row."""
    card = card_of(order) if kind == ReceiptKind.RECEIPT else None
    for _attempt in range(ATTEMPTS):
        try:
            with session_scope() as session:
                number = take_number(session, sequence=kind)
                found = session.exec(select(Receipt).where(Receipt.order_id == order.id,
                                                           Receipt.kind == kind)).first()
                if found is not None:
                    session.expunge(found)  # kept as read: the rollback would expire it
                    raise _AlreadyIssued(found)
                row = _snapshot(session, order, kind, receipt, card)
                row.number = number
                session.add(row)
            return row
        except _AlreadyIssued as done:
            return done.row
        except IntegrityError:  # numbered at the same moment by another request (its row was not visible yet)
            with autocommit_scope() as session:
                found = documents_of(session, [order.id]).get((order.id, kind))
            if found is not None:
                return found
    raise Conflict("The receipt could not be numbered, please retry")


def ensure(order: Order, known: dict[tuple[str, str], Receipt]) -> tuple[Receipt | None, Receipt | None]:
    """The order's receipt and credit note, numbering what is due and missing: a receipt once the order is paid
    (completed or refunded), a credit note once it is refunded. (None, None) for an unpaid order."""
    if order.status not in PAID_STATUSES:
        return None, None
    receipt = known.get((order.id, ReceiptKind.RECEIPT)) or _issue(order, ReceiptKind.RECEIPT)
    credit = known.get((order.id, ReceiptKind.CREDIT_NOTE))
    if credit is None and order.status == OrderStatus.REFUNDED:
        credit = _issue(order, ReceiptKind.CREDIT_NOTE, receipt)
    return receipt, credit
