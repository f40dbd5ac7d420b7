"""Money: orders (one per paid PaymentIntent), purchases (access rights), processed webhook events; the
requests and answers of the checkout and purchase routes."""

from __future__ import annotations

from datetime import date as date_type
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

import pydantic
from sqlalchemy import BigInteger, Column, Index, Numeric, String, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow


class OrderKind(StrEnum):
    PURCHASE = "purchase"  # a one-off payment (a licence)
    SUBSCRIPTION = "subscription"  # a subscription's first invoice
    RENEWAL = "renewal"  # each later invoice


class OrderStatus(StrEnum):
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    REFUNDED = "refunded"


ADMIN_SALES_COLUMNS = ("created_at", "id", "currency", "exchange_rate", "commission_split_enabled",
                       "total_amount_cents", "platform_fee_cents", "vendor_amount_cents")


class Order(SQLModel, table=True):
    """A paid sale. Amounts are integer minor units of `currency`; the commission rate is snapshotted."""

    __tablename__ = "orders"
    # A vendor's sales, newest first, and its sums over a period (revision 0007); the same, covering every
    # column the vendor dashboard sums or sorts by, over completed sales only (revision 0008).
    __table_args__ = (
        Index("ix_orders_vendor_created", "vendor_id", "created_at"),
        Index("ix_orders_vendor_sales", "vendor_id", "created_at", "id", "currency", "exchange_rate",
              "vendor_amount_cents", "total_amount_cents", "platform_fee_cents",
              postgresql_where=text("status = 'completed'"), sqlite_where=text("status = 'completed'")),
        # Admin: all completed sales newest first (commissions), per day (stats) and summed (sales summary),
        # read from this index alone (revision 0011).
        Index("ix_orders_completed_created", *ADMIN_SALES_COLUMNS,
              postgresql_where=text("status = 'completed'"), sqlite_where=text("status = 'completed'")),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    agent_id: str | None = Field(default=None, foreign_key="agents.id", index=True, max_length=32, ondelete="SET NULL")
    vendor_id: str | None = Field(default=None, foreign_key="users.id", index=True, max_length=32, ondelete="SET NULL")
    agent_name: str = Field(max_length=200)
    customer_email: str = Field(default="", max_length=255)
    status: str = Field(default=OrderStatus.COMPLETED, max_length=16, index=True)
    currency: str = Field(default="usd", max_length=3)
    total_amount_cents: int
    original_price_usd_cents: int
    exchange_rate: Decimal = Field(default=Decimal("1"), sa_column=Column(Numeric(12, 4), nullable=False))
    commission_rate: Decimal = Field(sa_column=Column(Numeric(5, 2), nullable=False))
    commission_split_enabled: bool = False
    vendor_amount_cents: int = 0
    platform_fee_cents: int = 0
    split_block_reason: str | None = Field(default=None, max_length=255)
    payment_intent_id: str = Field(sa_column=Column(String(255), unique=True, nullable=False))
    refund_id: str | None = Field(default=None, max_length=255)  # the provider's refund, when given back
    created_at: datetime = Field(default_factory=utcnow, index=True)
    # Money over time (revision 0017): what the charge was for, the subscription and invoice it paid, and
    # when it was refunded or disputed.
    kind: str = Field(default="purchase", max_length=16)  # OrderKind
    subscription_id: str | None = Field(default=None, foreign_key="subscriptions.id", index=True, max_length=32,
                                        ondelete="SET NULL")
    invoice_id: str | None = Field(default=None, sa_column=Column(String(255), unique=True, nullable=True))
    refunded_at: datetime | None = None
    disputed_at: datetime | None = None
    # Promotion codes (revision 0034): the code used and what it took off, in minor units of `currency` (the
    # total is what was paid: `total_amount_cents + discount_cents` is the price before the code).
    promotion_code: str | None = Field(default=None, max_length=32)
    discount_cents: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, server_default="0"))


class OrderDayTotal(SQLModel, table=True):
    """Completed sales summed per (UTC day, currency, exchange rate, split), kept exact by triggers on `orders`
    (revision 0011): the admin sales summary and per-day series read a few thousand of these rows instead of
    every order. Amounts are minor units of `currency`; a refund (status leaves `completed`) is subtracted.
    Orders are never deleted (financial records stay), so deletes are not tracked."""

    __tablename__ = "order_day_totals"

    day: date_type = Field(primary_key=True)
    currency: str = Field(primary_key=True, max_length=3)
    exchange_rate: Decimal = Field(sa_column=Column(Numeric(12, 4), primary_key=True))
    commission_split_enabled: bool = Field(primary_key=True)
    sales: int = 0
    total_amount_cents: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
    platform_fee_cents: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))
    vendor_amount_cents: int = Field(default=0, sa_column=Column(BigInteger, nullable=False, default=0))


class Purchase(SQLModel, table=True):
    """The right of a user to an agent; exactly one per (user, agent). `services.access` holds the one rule
    that reads it: `access_until` is NULL for a licence (for good) and a subscription's paid period (plus its
    grace) otherwise; a dispute sets `suspended_at`."""

    __tablename__ = "purchases"
    __table_args__ = (UniqueConstraint("user_id", "agent_id"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    user_id: str = Field(foreign_key="users.id", index=True, max_length=32, ondelete="CASCADE")
    agent_id: str = Field(foreign_key="agents.id", index=True, max_length=32)
    order_id: str | None = Field(default=None, foreign_key="orders.id", index=True, unique=True, max_length=32)
    purchase_price_cents: int
    currency: str = Field(default="usd", max_length=3)
    purchased_at: datetime = Field(default_factory=utcnow, index=True)
    subscription_id: str | None = Field(default=None, foreign_key="subscriptions.id", index=True, max_length=32,
                                        ondelete="SET NULL")
    access_until: datetime | None = None
    suspended_at: datetime | None = None


class ProcessedWebhookEvent(SQLModel, table=True):
    __tablename__ = "processed_webhook_events"

    id: str = Field(primary_key=True, max_length=255)  # the provider's event id
    type: str = Field(max_length=100)
    processed_at: datetime = Field(default_factory=utcnow)


# --- API schemas (camelCase on the wire; amounts as "29.99" strings) ---------------------------------------


def _cents(cents: int) -> str:
    return f"{'-' if cents < 0 else ''}{abs(cents) // 100}.{abs(cents) % 100:02d}"


class OrderPublic(ApiModel):
    id: str
    status: str
    total_amount: str
    currency: str
    created_at: datetime
    agent_id: str | None = None
    agent_name: str
    commission_split_enabled: bool
    commission_rate: str
    vendor_amount: str
    platform_fee_amount: str
    commission_currency: str
    original_price_usd: str = Field(alias="originalPriceUSD")
    exchange_rate: str
    split_block_reason: str | None = None
    receipt_number: str | None = None  # the order's receipt (services/receipts); None until it is paid
    promotion_code: str | None = None  # the code the buyer used, and what it took off (in `currency`)
    discount_amount: str = "0.00"

    @classmethod
    def of(cls, order: Order, *, receipt_number: str | None = None) -> OrderPublic:
        return cls(
            id=order.id,
            status=order.status,
            total_amount=_cents(order.total_amount_cents),
            currency=order.currency,
            created_at=order.created_at,
            agent_id=order.agent_id,
            agent_name=order.agent_name,
            commission_split_enabled=order.commission_split_enabled,
            commission_rate=f"{Decimal(order.commission_rate).quantize(Decimal('0.01')):f}",
            vendor_amount=_cents(order.vendor_amount_cents),
            platform_fee_amount=_cents(order.platform_fee_cents),
            commission_currency=order.currency.upper(),
            original_price_usd=_cents(order.original_price_usd_cents),
            exchange_rate=f"{Decimal(order.exchange_rate).quantize(Decimal('0.0001')):f}",
            split_block_reason=order.split_block_reason,
            receipt_number=receipt_number,
            promotion_code=order.promotion_code,
            discount_amount=_cents(order.discount_cents or 0),
        )


class PurchasedAgentPublic(ApiModel):
    id: str
    name: str
    short_description: str
    description: str
    image_url: str | None = None
    file_url: str | None = None
    demo_url: str | None = None


class PurchasePublic(ApiModel):
    id: str
    purchased_at: datetime
    purchase_price: str
    currency: str
    agent: PurchasedAgentPublic
    order: OrderPublic | None = None
    license_key: str | None = None  # XXXXX-XXXXX-XXXXX-XXXXX, checked by the agent at /api/licenses/*
    license_key_disabled_reason: str | None = None  # set while its vendor or an admin has the key disabled
    version_label: str = pydantic.Field(default="", description="The agent's current version ('1.4.0')")
    new_version: bool = pydantic.Field(
        default=False, description="A version released after the purchase that the buyer has not downloaded yet")


class PaymentIntentPublic(ApiModel):
    client_secret: str
    payment_intent_id: str
    currency: str
    display_amount: str
    exchange_rate: str
    supported_payment_methods: list[str]
    commission_split_enabled: bool
    split_block_reason: str | None = None
    mode: str = "payment"  # 'subscription': clientSecret pays the subscription's first invoice (or, with
    # intentType 'setup', saves the card of one that has nothing to pay today); 'free': a
    # promotion code took the whole price (nothing to pay: claim it with `POST /api/purchase/claim-free`)
    subscription_id: str | None = None
    promotion_code: str | None = None  # the code applied, upper-case
    discount_amount: str | None = None  # what it took off displayAmount's price ("6.00"), with a code
    # 'setup': a free trial, clientSecret is a SetupIntent's (Stripe.js confirmSetup: the card is saved, not charged)
    intent_type: str = "payment"
    trial_days: int = 0
    trial_end: datetime | None = None  # a trial's end: its first charge
    trial_used: bool = False  # the agent has a free trial this buyer already had: this subscription starts paid
    # A monthly agent: what is paid today ("0.00" in a trial, or when a 100% code makes the first month free:
    # intentType 'setup'), the price per month without the code, and which months the code discounts.
    due_today_amount: str | None = None
    monthly_amount: str | None = None
    promotion_months: str | None = None  # 'First payment', 'First 3 months', 'Every month' (as the code lists say)


class PurchaseCompletePublic(ApiModel):
    success: bool = True
    already_recorded: bool
    order_id: str | None = None  # None: a free trial started (nothing was charged yet)
    purchase_id: str | None = None
    subscription_id: str | None = None
    trial_end: datetime | None = None


class StripeConfigPublic(ApiModel):
    publishable_key: str
    stripe_js_url: str


# ---- requests (`pydantic.Field`: input limits, not columns) -----------------------------------------------------


class PaymentIntentIn(ApiInput):
    agent_id: str = pydantic.Field(max_length=64)
    customer_email: str | None = pydantic.Field(default=None, max_length=300)
    customer_name: str | None = pydantic.Field(default=None, max_length=300)
    is_guest_checkout: bool = False
    promotion_code: str | None = pydantic.Field(default=None, max_length=64)


class CompleteIn(ApiInput):
    # A payment's PaymentIntent, or (a free trial, after confirmSetup) the `subscriptionId` checkout answered.
    payment_intent_id: str = pydantic.Field(default="", max_length=255)
    subscription_id: str | None = pydantic.Field(default=None, max_length=64)
    agent_id: str | None = pydantic.Field(default=None, max_length=64)
    agent_name: str | None = pydantic.Field(default=None, max_length=300)
    user_id: str | None = pydantic.Field(default=None, max_length=64)
    customer_email: str | None = pydantic.Field(default=None, max_length=300)
    customer_name: str | None = pydantic.Field(default=None, max_length=300)
    is_guest_checkout: bool = False


class ClaimFreeIn(ApiInput):
    agent_id: str = pydantic.Field(max_length=64)
    promotion_code: str | None = pydantic.Field(default=None, max_length=64)  # a code taking the whole price
