"""Platform-wide sales for the admin: the summary, commission entries (paged) and two CSV exports.

Same money rules as the vendor dashboard (services/vendors/sales.py): only `completed` orders count (refunded
ones do not); every amount comes from the order's own snapshot; sums are grouped in SQL by (currency,
exchange rate, split) and each group is converted back to USD at its own rate, half-up, in Python. The
summary sums `order_day_totals` (per-day sums kept by triggers, revision 0011: a few thousand rows however
many orders); entries and exports page the orders newest first (by `created_at`).
A single entry is converted the same way on its own, so entries can differ from the sums by a cent per
EUR group. "Vendor payouts" are the vendor shares of split payments (paid out through the vendors'
connected accounts); on a direct payment the platform holds the vendor's share.

Every charge is an order: a one-off purchase, a subscription's first payment or a renewal (`kind`, labelled
Purchase / Subscription / Renewal), all counted alike. The entries and both CSVs also list refunded orders,
marked `refunded`, so the admin sees the money that went back; they are never summed. The summary adds the
platform's recurring revenue: active subscriptions and MRR (services/vendors/recurring.py says how), and the plan
revenue: what vendors paid for their plans, per plan.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import func
from sqlalchemy import select as sql_select
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Order, OrderDayTotal, OrderKind, OrderStatus, User
from marketplace.services import csv_export, money, platform, pricing
from marketplace.services import table_search as text_search
from marketplace.services.csv_export import cell
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin
from marketplace.services.plans.revenue import PlanRevenue, revenue_in
from marketplace.services.vendors import recurring
from marketplace.services.vendors.sales import to_usd

MAX_OFFSET = 1_000_000
COMMISSION_HEADER = ("orderId", "agentName", "saleAmount", "commissionSplitEnabled", "commissionAmount",
                     "vendorAmount", "customerEmail", "createdAt", "currency", "chargedAmount", "commissionRate",
                     "kind", "status", "promotionCode", "discountAmount")
SALES_HEADER = ("order_id", "created_at", "agent_id", "agent", "vendor", "customer_email", "currency",
                "charged_amount", "exchange_rate", "sale_amount_usd", "commission_rate", "platform_fee_usd",
                "vendor_amount_usd", "payment", "split_block_reason", "payment_intent_id", "kind", "status")


@dataclass(frozen=True)
class SalesSummary:
    total_revenue_cents: int
    admin_earnings_cents: int
    vendor_earnings_cents: int
    commission_rate: str  # today's setting as text with '%', e.g. "20%"
    total_sales: int
    commission_split_rate: float | None  # percent of sales paid as split payments; None without sales
    split_payments: int
    direct_payments: int
    total_vendor_payouts_cents: int
    active_subscriptions: int = 0
    mrr_cents: int = 0  # USD
    trialing_subscriptions: int = 0  # free trials with a saved card, not paying yet (not in MRR)
    plan_revenue: tuple[PlanRevenue, ...] = ()  # what vendors paid for each paid plan (services/plans/revenue)

    @property
    def plan_revenue_cents(self) -> int:
        return sum(plan.revenue_cents for plan in self.plan_revenue)


@dataclass(frozen=True)
class CommissionRow:
    """One completed or refunded sale; the *_cents amounts are USD (converted at the order's rate)."""

    order_id: str
    agent_name: str
    sale_amount_cents: int
    commission_split_enabled: bool
    commission_amount_cents: int
    vendor_amount_cents: int
    customer_email: str
    created_at: datetime
    currency: str  # what the customer paid in, with the amount charged in that currency
    charged_amount_cents: int
    commission_rate: Decimal  # the order's snapshot, in percent
    kind: str = OrderKind.PURCHASE  # purchase | subscription | renewal
    status: str = OrderStatus.COMPLETED  # completed | refunded (given back: listed, never summed)
    promotion_code: str | None = None  # the buyer's code, and what it took off (in `currency`, as charged)
    discount_cents: int = 0

    @property
    def kind_label(self) -> str:
        return pricing.order_kind_label(self.kind)

    @property
    def refunded(self) -> bool:
        return self.status == OrderStatus.REFUNDED


_LISTED_STATUSES = (OrderStatus.COMPLETED, OrderStatus.REFUNDED)
_LISTED = Order.status.in_(_LISTED_STATUSES)
_ROW_COLUMNS = (Order.id, Order.agent_name, Order.total_amount_cents, Order.commission_split_enabled,
                Order.platform_fee_cents, Order.vendor_amount_cents, Order.customer_email, Order.created_at,
                Order.currency, Order.exchange_rate, Order.commission_rate, Order.kind, Order.status,
                Order.promotion_code, Order.discount_cents)


def commission_rate_text() -> str:
    """Today's platform rate as the admin shows it: '20%', '15.5%'."""
    return f"{platform.commission_rate().normalize():f}%"


def summary(*, actor: User | None, now: datetime | None = None) -> SalesSummary:
    """Revenue, the platform's and the vendors' shares, the split/direct counts, active subscriptions and MRR,
    and the plan revenue, in USD."""
    require_admin(actor)
    with session_scope() as session:
        recurring_now = recurring.figures(session, vendor_id=None, now=now or datetime.now(UTC))
        plan_revenue = tuple(revenue_in(session))
        t = OrderDayTotal
        groups = session.execute(
            sql_select(t.currency, t.exchange_rate, t.commission_split_enabled, func.sum(t.sales),
                   func.sum(t.total_amount_cents), func.sum(t.platform_fee_cents), func.sum(t.vendor_amount_cents))
            .group_by(t.currency, t.exchange_rate, t.commission_split_enabled)).all()
    revenue = fees = vendors = payouts = split = direct = 0
    for currency, rate, is_split, count, total, fee, vendor in groups:
        count = int(count or 0)
        revenue += to_usd(total or 0, currency, rate)
        fees += to_usd(fee or 0, currency, rate)
        share = to_usd(vendor or 0, currency, rate)
        vendors += share
        if is_split:
            split += count
            payouts += share
        else:
            direct += count
    sales = split + direct
    return SalesSummary(
        total_revenue_cents=revenue, admin_earnings_cents=fees, vendor_earnings_cents=vendors,
        commission_rate=commission_rate_text(), total_sales=sales,
        commission_split_rate=round(split * 100 / sales, 1) if sales else None, split_payments=split,
        direct_payments=direct, total_vendor_payouts_cents=payouts,
        active_subscriptions=recurring_now.active_subscribers, mrr_cents=recurring_now.mrr_cents,
        trialing_subscriptions=recurring_now.trialing_subscribers, plan_revenue=plan_revenue,
    )


def _row(row: Any) -> CommissionRow:
    (order_id, agent, total, is_split, fee, vendor, email, created, currency, rate, commission, kind, status, code,
     discount) = row
    return CommissionRow(
        order_id=order_id, agent_name=agent, sale_amount_cents=to_usd(total, currency, rate),
        commission_split_enabled=bool(is_split), commission_amount_cents=to_usd(fee, currency, rate),
        vendor_amount_cents=to_usd(vendor, currency, rate), customer_email=email, created_at=created,
        currency=currency, charged_amount_cents=total, commission_rate=Decimal(commission), kind=kind,
        status=status, promotion_code=code, discount_cents=discount or 0,
    )


def list_commissions(*, actor: User | None, limit: int = 10, offset: int = 0, search: str | None = None
                     ) -> tuple[list[CommissionRow], int]:
    """Completed and refunded sales newest first with the commission taken on each (a refunded one is shown as
    such); `search` matches agent name or customer e-mail."""
    require_admin(actor)
    check_page(limit=limit, offset=offset, max_offset=MAX_OFFSET)
    like = text_search.pattern(search)
    found = text_search.source(Order.__table__, search)
    conditions = [found.c.status.in_(_LISTED_STATUSES)]
    if like is not None:
        conditions.append(text_search.matches(like, found.c.agent_name, found.c.customer_email))
    with session_scope() as session:
        # The page's ids first (without a search from the index alone, however deep the offset), then those rows.
        ids, total = text_search.page_and_total(session, rows=found, conditions=conditions, limit=limit,
                                                offset=offset)
        rows = session.execute(sql_select(*_ROW_COLUMNS).where(Order.id.in_(ids))).all() if ids else []
    by_id = {row[0]: row for row in rows}
    return [_row(by_id[i]) for i in ids if i in by_id], int(total)


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _commission_line(r: CommissionRow) -> tuple[Any, ...]:
    """The entry's values as the JSON shows them (money as '29.99', booleans as true/false)."""
    return (r.order_id, cell(r.agent_name), money.format_cents(r.sale_amount_cents),
            _bool(r.commission_split_enabled), money.format_cents(r.commission_amount_cents),
            money.format_cents(r.vendor_amount_cents), cell(r.customer_email),
            r.created_at.astimezone(UTC).isoformat(), r.currency, money.format_cents(r.charged_amount_cents),
            money.format_percent(r.commission_rate), r.kind, r.status, cell(r.promotion_code),
            money.format_cents(r.discount_cents))


def commissions_csv(*, actor: User | None) -> Iterator[str]:
    """Every commission entry (the /commissions JSON, all pages) as CSV, header = the JSON field names.

    The permission is checked now, so a refused caller gets its error before any response starts."""
    require_admin(actor)
    pages = csv_export.order_pages(_ROW_COLUMNS, _LISTED)
    return csv_export.lines(COMMISSION_HEADER, ([_commission_line(_row(r)) for r in page] for page in pages))


_SALE_COLUMNS = (Order.id, Order.created_at, Order.agent_id, Order.agent_name, Order.vendor_id,
                 Order.customer_email, Order.currency, Order.total_amount_cents, Order.exchange_rate,
                 Order.commission_rate, Order.platform_fee_cents, Order.vendor_amount_cents,
                 Order.commission_split_enabled, Order.split_block_reason, Order.payment_intent_id, Order.kind,
                 Order.status)


def sales_csv(*, actor: User | None) -> Iterator[str]:
    """Every completed or refunded sale with its full snapshot (vendor, currency and rate, USD amounts, split or
    direct, kind, status), newest first, as CSV; USD amounts are the commission entries' values."""
    require_admin(actor)

    def sales() -> Iterator[list[tuple[Any, ...]]]:
        for chunk in csv_export.order_pages(_SALE_COLUMNS, _LISTED):
            vendor_ids = {r[4] for r in chunk if r[4]}
            with session_scope() as session:
                names = dict(session.exec(select(User.id, User.username).where(User.id.in_(vendor_ids))).all())
            yield [(
                order_id, created.astimezone(UTC).isoformat(), agent_id or "", cell(agent), cell(names.get(vid, "")),
                cell(email), currency.upper(), money.format_cents(total), money.format_rate(Decimal(rate)),
                money.format_cents(to_usd(total, currency, rate)), money.format_percent(Decimal(commission)),
                money.format_cents(to_usd(fee, currency, rate)), money.format_cents(to_usd(vendor, currency, rate)),
                "split" if is_split else "direct", cell(reason), intent, kind, status,
            ) for (order_id, created, agent_id, agent, vid, email, currency, total, rate, commission, fee, vendor,
                   is_split, reason, intent, kind, status) in chunk]

    return csv_export.lines(SALES_HEADER, sales())
