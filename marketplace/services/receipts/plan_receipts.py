"""Receipts of vendors' plan payments: the marketplace sells the plan (it is the seller, and the operator), the
vendor buys it. Numbered in the same sequence as order receipts: at payment, in the transaction that records
the plan payment (`issue_for_plan_payment`), else (a payment recorded before plan receipts existed) on first
read. Only the vendor who paid and admins read one; for anyone else it does not exist."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from marketplace.db import autocommit_scope, session_scope
from marketplace.integrations import payments
from marketplace.models import Plan, PlanPayment, Receipt, ReceiptKind, User
from marketplace.services import money, names
from marketplace.services.errors import Conflict, NotFound
from marketplace.services.permissions import require_user
from marketplace.services.receipts.documents import NOT_FOUND, ORDER_ID_RE, ReceiptView, document, readable_by
from marketplace.services.receipts.issue import ATTEMPTS, OPERATOR, add_month, format_number, write_numbered

PLANS_PATH = "/vendor/plans"
UPGRADE = "subscription_update"  # Stripe's billing reason of a prorated upgrade's invoice


def plan_receipt_path(payment_id: str, *, pdf: bool = False) -> str:
    return f"/api/vendor/plan/payments/{payment_id}/receipt{'.pdf' if pdf else ''}"


def plan_line(plan_name: str, billing_reason: str, paid_at: datetime) -> str:
    """What a plan payment paid for: the upgrade's prorated rest of the period, or a month of the plan."""
    if billing_reason == UPGRADE:
        return f"{plan_name} plan: upgrade, prorated to the end of the current period"
    return f"{plan_name} plan: monthly, {paid_at:%d %b %Y} to {add_month(paid_at):%d %b %Y}"


def _row(payment: PlanPayment, *, vendor: User | None, plan_name: str, card: payments.CardUsed | None) -> Receipt:
    name = names.display_name(first_name=vendor.first_name, last_name=vendor.last_name,
                              username=vendor.username) if vendor else ""
    return Receipt(
        kind=ReceiptKind.RECEIPT, number=0, plan_payment_id=payment.id, user_id=payment.user_id,
        paid_at=payment.created_at, seller_name=OPERATOR, buyer_name=(name or (vendor.email if vendor else ""))[:200],
        buyer_email=(vendor.email if vendor else "")[:255],
        buyer_business_name=vendor.business_name if vendor else None,
        buyer_billing_address=vendor.billing_address if vendor else None,
        buyer_tax_id=vendor.tax_id if vendor else None,
        line=plan_line(plan_name, payment.billing_reason, payment.created_at)[:500],
        subtotal_cents=payment.amount_cents, discount_cents=0, total_cents=payment.amount_cents,
        currency=payment.currency, card_brand=card.brand[:32] if card else None,
        card_last4=card.last4[-4:] if card else None)


def issue_for_plan_payment(session: Session, payment: PlanPayment, *, vendor: User | None, plan_name: str,
                           card: payments.CardUsed | None) -> Receipt:
    """Number the receipt of `payment` in the transaction that records it (last in it: see issue_at_payment)."""
    row = _row(payment, vendor=vendor, plan_name=plan_name, card=card)
    write_numbered(session, row)
    return row


def _receipt_of_payment(session: Session, payment_id: str) -> Receipt | None:
    return session.exec(select(Receipt).where(Receipt.plan_payment_id == payment_id,
                                              Receipt.kind == ReceiptKind.RECEIPT)).first()


def _issue_late(payment_id: str) -> Receipt:
    """A payment recorded before plan receipts existed: numbered now, once however many read it at once (the
    number is taken first, which queues concurrent readers; the loser finds the winner's row)."""
    for _attempt in range(ATTEMPTS):
        try:
            with session_scope() as session:
                payment = session.get(PlanPayment, payment_id)
                if payment is None:
                    raise NotFound(NOT_FOUND)
                found = _receipt_of_payment(session, payment_id)
                if found is not None:
                    session.expunge(found)
                    return found
                vendor = session.get(User, payment.user_id) if payment.user_id else None
                plan = session.get(Plan, payment.plan_id)
                row = _row(payment, vendor=vendor, plan_name=plan.name if plan else payment.plan_id, card=None)
                write_numbered(session, row)
                if row in session:  # added by the SQLite path (PostgreSQL's one statement adds no object)
                    session.expunge(row)
            return row
        except IntegrityError:
            with autocommit_scope() as session:
                found = _receipt_of_payment(session, payment_id)
            if found is not None:
                return found
    raise Conflict("The receipt could not be numbered, please retry")


def plan_receipt_of(*, actor: User | None, payment_id: str) -> ReceiptView:
    """The receipt of one plan payment: for the vendor who paid it and admins; NotFound for anyone else."""
    user = require_user(actor)
    if not isinstance(payment_id, str) or not ORDER_ID_RE.fullmatch(payment_id):
        raise NotFound(NOT_FOUND)
    with autocommit_scope() as session:
        payment = session.get(PlanPayment, payment_id)
        if payment is None or not readable_by(user, payment.user_id):
            raise NotFound(NOT_FOUND)  # someone else's payment: as if there were none
        row = _receipt_of_payment(session, payment_id)
    row = row or _issue_late(payment_id)
    return ReceiptView(order_id="", receipt=document(row), pdf_url=plan_receipt_path(payment_id, pdf=True),
                       back_url=PLANS_PATH, back_label="Back to plans")


@dataclass(frozen=True)
class PlanPaymentLine:
    """One of the vendor's plan payments as the plan page lists it."""

    id: str
    paid_at: datetime
    plan_name: str
    amount: str  # '$29.00'
    receipt_number: str  # 'R-000042', '' until first read for a payment made before plan receipts
    receipt_url: str


def plan_payments(*, actor: User | None, limit: int = 24) -> list[PlanPaymentLine]:
    """The actor's own plan payments, newest first (two years of monthly payments), each with its receipt."""
    user = require_user(actor)
    with autocommit_scope() as session:
        rows = session.exec(
            select(PlanPayment, Plan.name, Receipt.number)
            .join(Plan, col(Plan.id) == PlanPayment.plan_id, isouter=True)
            .join(Receipt, (col(Receipt.plan_payment_id) == PlanPayment.id) & (Receipt.kind == ReceiptKind.RECEIPT),
                  isouter=True)
            .where(PlanPayment.user_id == user.id)
            .order_by(col(PlanPayment.created_at).desc()).limit(limit)).all()
    return [PlanPaymentLine(id=p.id, paid_at=p.created_at, plan_name=plan_name or p.plan_id,
                            amount=money.format_amount(p.amount_cents, p.currency),
                            receipt_number=format_number(ReceiptKind.RECEIPT, number) if number else "",
                            receipt_url=plan_receipt_path(p.id)) for p, plan_name, number in rows]
