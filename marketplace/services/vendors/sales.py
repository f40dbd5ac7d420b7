"""A vendor's sales and earnings: dashboard figures, the sales table, the earnings chart and a CSV export.

Rules (ARCHITECTURE.md, "Vendor and admin decisions"):
- every figure comes from each order's own snapshot (amounts, currency, exchange rate, commission, split or
  direct), never from today's rate; only `completed` orders count (refunded ones do not);
- vendor earnings = sum of `vendor_amount_cents`, revenue = sum of `total_amount_cents`, platform fee = sum
  of `platform_fee_cents`, for split and direct orders alike (on a direct payment the platform holds the
  vendor's share and owes it);
- amounts are reported in USD: sums are grouped by (currency, exchange_rate) in SQL and each group sum is
  converted back with its own rate, half-up to the cent, in Python; so the work per request is a handful
  of rows whatever the number of orders; sums, counts and pages are read from the covering index
  ix_orders_vendor_sales (completed orders only, revision 0008) without visiting the table;
- "this month" starts on the first day of the current UTC month.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from sqlalchemy import Date, and_, case, cast, func
from sqlalchemy import select as sql_select
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Agent, AgentStatus, Order, OrderKind, OrderStatus, User
from marketplace.services import csv_export, money, plans
from marketplace.services.csv_export import cell
from marketplace.services.errors import InvalidParameter
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_vendor

PERIODS = {"day": 30, "month": 12}
CSV_HEADER = ("order_id", "created_at", "agent", "customer_email", "currency", "total_amount", "price_usd",
              "vendor_earnings", "platform_fee", "commission_rate", "payment", "split_block_reason",
              "exchange_rate", "payment_intent_id", "kind", "promotion_code", "discount")


@dataclass(frozen=True)
class VendorAnalytics:
    total_vendor_earnings_cents: int
    total_revenue_cents: int
    this_month_earnings_cents: int
    this_month_revenue_cents: int
    total_sales: int
    approved_agents: int
    total_agents: int
    avg_rating: float
    commission_rate: Decimal  # the fee of the vendor's plan now, for the split label


@dataclass(frozen=True)
class SaleRecord:
    """One completed order; amounts in the order's own currency (minor units)."""

    order_id: str
    agent_id: str | None
    agent_name: str
    customer_email: str
    created_at: datetime
    currency: str
    total_amount_cents: int
    price_usd_cents: int
    vendor_earnings_cents: int
    platform_fee_cents: int
    commission_rate: Decimal
    split: bool
    split_block_reason: str | None
    payment_intent_id: str
    exchange_rate: Decimal
    kind: str = OrderKind.PURCHASE  # purchase | subscription | renewal: a renewal is a sale like any other
    promotion_code: str | None = None  # the buyer's code, and what it took off (in `currency`)
    discount_cents: int = 0


@dataclass(frozen=True)
class SalesPage:
    items: list[SaleRecord]
    total: int


@dataclass(frozen=True)
class EarningsPoint:
    """One bucket of the earnings chart, in USD cents; buckets without sales are present with zeros."""

    start: date
    label: str  # "Nov 3" by day, "Nov 2026" by month
    vendor_cents: int
    fee_cents: int
    sales: int


def to_usd(cents: int, currency: str, rate: Decimal) -> int:
    """An amount of an order's currency back in USD cents at that order's snapshotted rate (1 USD = rate)."""
    if currency.lower() == "usd" or not rate:
        return int(cents)
    return money.round_half_up(Decimal(int(cents)) / Decimal(rate))


def _completed(vendor_id: str) -> list[Any]:
    return [Order.vendor_id == vendor_id, Order.status == OrderStatus.COMPLETED]


def _month_start(now: datetime) -> datetime:
    now = now.astimezone(UTC)
    return datetime(now.year, now.month, 1, tzinfo=UTC)


def analytics(*, actor: User | None, now: datetime | None = None) -> VendorAnalytics:
    """The six dashboard figures: two GROUP BY queries, one over orders and one over agents.

    avgRating is the mean rating of the vendor's rated live agents, as in the track record (stats.py).
    """
    vendor = require_vendor(actor)
    month = _month_start(now or datetime.now(UTC))
    in_month = Order.created_at >= month
    with session_scope() as session:
        groups = session.execute(
            sql_select(Order.currency, Order.exchange_rate, func.count(), func.sum(Order.vendor_amount_cents),
                       func.sum(Order.total_amount_cents),
                       func.sum(case((in_month, Order.vendor_amount_cents), else_=0)),
                       func.sum(case((in_month, Order.total_amount_cents), else_=0)))
            .where(*_completed(vendor.id)).group_by(Order.currency, Order.exchange_rate)).all()
        live = Agent.status == AgentStatus.APPROVED
        total_agents, approved_agents, rating = session.exec(
            select(func.count(), func.coalesce(func.sum(case((live, 1), else_=0)), 0),
                   func.avg(case((and_(live, Agent.review_count > 0), Agent.avg_rating))))
            .where(Agent.vendor_id == vendor.id, Agent.deleted_at.is_(None))).one()
    sums = [0, 0, 0, 0]
    sales = 0
    for currency, rate, count, *amounts in groups:
        sales += count
        for i, cents in enumerate(amounts):
            sums[i] += to_usd(cents or 0, currency, rate)
    return VendorAnalytics(
        total_vendor_earnings_cents=sums[0], total_revenue_cents=sums[1], this_month_earnings_cents=sums[2],
        this_month_revenue_cents=sums[3], total_sales=sales, approved_agents=int(approved_agents),
        total_agents=int(total_agents), avg_rating=round(float(rating or 0.0), 2),
        commission_rate=plans.fee_for_vendor(vendor_id=vendor.id),
    )


_SALE_COLUMNS = (Order.id, Order.agent_id, Order.agent_name, Order.customer_email, Order.created_at, Order.currency,
                 Order.total_amount_cents, Order.original_price_usd_cents, Order.vendor_amount_cents,
                 Order.platform_fee_cents, Order.commission_rate, Order.commission_split_enabled,
                 Order.split_block_reason, Order.payment_intent_id, Order.exchange_rate, Order.kind,
                 Order.promotion_code, Order.discount_cents)


def _sale(row: Any) -> SaleRecord:
    return SaleRecord(*row)


def list_sales(*, actor: User | None, limit: int = 20, offset: int = 0) -> SalesPage:
    """The vendor's completed sales, newest first, one page plus the number on all pages."""
    vendor = require_vendor(actor)
    check_page(limit=limit, offset=offset)
    with session_scope() as session:
        total = session.exec(select(func.count()).select_from(Order).where(*_completed(vendor.id))).one()
        # Page the ids first (from the covering index alone, however deep the offset), then read 20 rows.
        ids = session.exec(select(Order.id).where(*_completed(vendor.id))
                           .order_by(Order.created_at.desc(), Order.id.desc()).limit(limit).offset(offset)).all()
        rows = session.execute(sql_select(*_SALE_COLUMNS).where(Order.id.in_(ids))).all() if ids else []
    by_id = {row[0]: row for row in rows}
    return SalesPage(items=[_sale(by_id[i]) for i in ids if i in by_id], total=int(total))


def _bucket(session: Session, period: str) -> Any:
    """The UTC day or month (its first day) of an order, in SQL: a date/timestamp on PostgreSQL, 'YYYY-MM-DD'
    text on SQLite (which stores UTC text, so its date functions keep the UTC calendar)."""
    if session.get_bind().dialect.name == "postgresql":
        utc = func.timezone("UTC", Order.created_at)
        return cast(utc, Date) if period == "day" else func.date_trunc("month", utc)
    return func.date(Order.created_at) if period == "day" else func.strftime("%Y-%m-01", Order.created_at)


def _as_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


def _months_back(first: date, months: int) -> date:
    index = first.year * 12 + first.month - 1 - months
    return date(index // 12, index % 12 + 1, 1)


def earnings_series(*, actor: User | None, period: str, now: datetime | None = None) -> list[EarningsPoint]:
    """Vendor share, platform fee and sales per bucket: the last 30 days ("day") or 12 months ("month").

    One query groups by (bucket, currency, exchange rate), so Python converts a few rows per bucket.
    """
    vendor = require_vendor(actor)
    if period not in PERIODS:
        raise InvalidParameter("period must be day or month", field="period")
    today = (now or datetime.now(UTC)).astimezone(UTC).date()
    if period == "day":
        starts = [today - timedelta(days=n) for n in range(PERIODS["day"] - 1, -1, -1)]
    else:
        this_month = today.replace(day=1)
        starts = [_months_back(this_month, n) for n in range(PERIODS["month"] - 1, -1, -1)]
    since = datetime.combine(starts[0], time(), tzinfo=UTC)
    until = datetime.combine(today + timedelta(days=1), time(), tzinfo=UTC)
    with session_scope() as session:
        bucket = _bucket(session, period).label("bucket")
        rows = session.execute(
            sql_select(bucket, Order.currency, Order.exchange_rate, func.count(),
                       func.sum(Order.vendor_amount_cents), func.sum(Order.platform_fee_cents))
            .where(*_completed(vendor.id), Order.created_at >= since, Order.created_at < until)
            .group_by(bucket, Order.currency, Order.exchange_rate)).all()
    buckets = {start: [0, 0, 0] for start in starts}
    for raw, currency, rate, count, vendor_cents, fee_cents in rows:
        key = _as_date(raw)
        if key not in buckets:
            continue
        bucket = buckets[key]
        bucket[0] += to_usd(vendor_cents or 0, currency, rate)
        bucket[1] += to_usd(fee_cents or 0, currency, rate)
        bucket[2] += count
    return [
        EarningsPoint(start=start, label=f"{start:%b} {start.day}" if period == "day" else f"{start:%b %Y}",
                      vendor_cents=v, fee_cents=f, sales=s)
        for start, (v, f, s) in buckets.items()
    ]


def _csv_row(sale: SaleRecord) -> tuple[Any, ...]:
    return (sale.order_id, sale.created_at.astimezone(UTC).isoformat(), cell(sale.agent_name),
            cell(sale.customer_email), sale.currency.upper(), money.format_cents(sale.total_amount_cents),
            money.format_cents(sale.price_usd_cents), money.format_cents(sale.vendor_earnings_cents),
            money.format_cents(sale.platform_fee_cents), money.format_percent(Decimal(sale.commission_rate)),
            "split" if sale.split else "direct", cell(sale.split_block_reason),
            money.format_rate(Decimal(sale.exchange_rate)), sale.payment_intent_id, sale.kind,
            cell(sale.promotion_code), money.format_cents(sale.discount_cents or 0))


def sales_csv(*, actor: User | None) -> Iterator[str]:
    """Every completed sale of the vendor as CSV text, newest first, streamed in chunks.

    The permission is checked now (not on first read), so a refused caller gets its error before any
    response starts; services/csv_export.py pages the orders.
    """
    vendor = require_vendor(actor)
    pages = csv_export.order_pages(_SALE_COLUMNS, *_completed(vendor.id))
    return csv_export.lines(CSV_HEADER, ([_csv_row(_sale(row)) for row in page] for page in pages))
