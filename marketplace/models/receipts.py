"""Receipts and credit notes: one numbered document per paid order (and per refund of it), with what it says
frozen when the number is given, so a receipt a business filed never changes afterwards."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, Integer, UniqueConstraint
from sqlmodel import Field, SQLModel

from marketplace.models.base import new_id, utcnow


class ReceiptKind(StrEnum):
    RECEIPT = "receipt"
    CREDIT_NOTE = "credit_note"  # a refund: refers to the receipt of the order it gives the money back for


class ReceiptCounter(SQLModel, table=True):
    """The last number given per sequence (one per kind). Taking a number is one conditional UPDATE ... RETURNING
    in the transaction that writes the document: a rolled-back document gives its number back, so numbers are
    never skipped, and the row lock makes concurrent documents take them one after the other."""

    __tablename__ = "receipt_counters"

    name: str = Field(primary_key=True, max_length=32)
    last_number: int = 0


class Receipt(SQLModel, table=True):
    """A receipt (or credit note) of an order. Amounts are minor units of `currency`, positive also on a credit
    note (it says it is one). The buyer and seller details are a snapshot taken when the number was given."""

    __tablename__ = "receipts"
    __table_args__ = (UniqueConstraint("kind", "number"), UniqueConstraint("order_id", "kind"),
                      UniqueConstraint("plan_payment_id", "kind", name="uq_receipts_plan_payment_id_kind"))

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    kind: str = Field(default=ReceiptKind.RECEIPT, max_length=16)
    number: int = Field(sa_column=Column(Integer, nullable=False))
    # What was paid: a customer's order, or a vendor's plan payment (the marketplace is then the seller).
    order_id: str | None = Field(default=None, foreign_key="orders.id", max_length=32)
    plan_payment_id: str | None = Field(default=None, foreign_key="plan_payments.id", max_length=32)
    user_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    refers_to_number: int | None = None  # a credit note: the receipt's number
    issued_at: datetime = Field(default_factory=utcnow)
    paid_at: datetime  # the order's date (a credit note: the refund's)
    seller_name: str = Field(max_length=200)
    buyer_name: str = Field(max_length=200)
    buyer_email: str = Field(max_length=255)
    buyer_business_name: str | None = Field(default=None, max_length=200)
    buyer_billing_address: str | None = Field(default=None, max_length=500)
    buyer_tax_id: str | None = Field(default=None, max_length=32)
    line: str = Field(max_length=500)
    subtotal_cents: int
    discount_cents: int = 0
    total_cents: int
    currency: str = Field(max_length=3)
    card_brand: str | None = Field(default=None, max_length=32)
    card_last4: str | None = Field(default=None, max_length=4)

