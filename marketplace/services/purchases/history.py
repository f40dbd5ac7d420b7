"""What a customer bought: purchases, orders, the Payment tab's history, and the dashboard's spending summary."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import (
    Agent,
    AgentFile,
    AgentVersion,
    Order,
    OrderStatus,
    Purchase,
    Refund,
    RefundStatus,
    Subscription,
    User,
)
from marketplace.models.base import utcnow
from marketplace.services import access, licenses
from marketplace.services.errors import Invalid, NotFound
from marketplace.services.permissions import require_user
from marketplace.services.versions import history as versions
from marketplace.services.versions.labels import INITIAL_LABEL

# How long after paying the success page still celebrates the order it was sent with (a slow redirect, a
# reload); after that the address is an old bookmark and leads to the dashboard instead.
SUCCESS_PAGE_WINDOW = timedelta(minutes=30)
NO_RECENT_PURCHASE = "No recent purchase to confirm"
ORDER_ID_RE = re.compile(r"[A-Za-z0-9]{1,32}")  # ASCII only: str.isalnum() would let other scripts' digits in


ACCESS_REFUNDED = "Refunded: access ended"
ACCESS_SUSPENDED = "Suspended while a payment dispute is open"
ACCESS_ENDED = "Access ended"


@dataclass(frozen=True)
class PurchaseRecord:
    purchase: Purchase
    agent: Agent
    has_files: bool
    order: Order | None
    access_note: str = ""  # empty while the agent may be used (services/access), else why not
    license_key: str | None = None  # the purchase's key (every purchase has one once recorded)
    license_key_disabled_reason: str | None = None  # why its vendor or an admin disabled it; None while it is not
    version_label: str = ""  # the agent's current version ('1.4.0')
    # A version released after the purchase that the buyer has not downloaded yet: My Agents marks it 'New'.
    new_version: bool = False


def _access_note(purchase: Purchase, order: Order | None, has_access: bool) -> str:
    if has_access:
        return ""
    if purchase.suspended_at is not None:
        return ACCESS_SUSPENDED
    return ACCESS_REFUNDED if order is not None and order.status == OrderStatus.REFUNDED else ACCESS_ENDED


def list_purchases(*, actor: User | None) -> list[PurchaseRecord]:
    user = require_user(actor)
    with session_scope() as session:
        rows = session.exec(
            select(Purchase, Agent, Order, access.active().label("has_access"))
            .join(Agent, Agent.id == Purchase.agent_id)
            .join(Order, Order.id == Purchase.order_id, isouter=True)
            .where(Purchase.user_id == user.id)
            .order_by(Purchase.purchased_at.desc(), Purchase.id)
        ).all()
        agent_ids = {agent.id for _, agent, _, _ in rows}
        with_files = set(session.exec(select(AgentFile.agent_id).where(AgentFile.agent_id.in_(agent_ids))).all()) \
            if agent_ids else set()
        keys = licenses.keys_by_purchase(session, purchase_ids=[p.id for p, _, _, _ in rows])
        reasons = licenses.disabled_reasons_by_purchase(session, purchase_ids=[p.id for p, _, _, _ in rows])
        agents = list({a.id: a for _, a, _, _ in rows}.values())
        current = versions.current_rows(session, agents)
        downloaded = versions.newest_downloads(session, user_id=user.id, agent_ids=[a.id for a in agents])
    return [PurchaseRecord(purchase=p, agent=a, has_files=a.id in with_files, order=o,
                           access_note=_access_note(p, o, bool(ok)), license_key=keys.get(p.id),
                           license_key_disabled_reason=reasons.get(p.id),
                           version_label=current[a.id].label if a.id in current else INITIAL_LABEL,
                           new_version=_is_new(p, a, current.get(a.id), downloaded.get(a.id, 0)))
            for p, a, o, ok in rows]


def _is_new(purchase: Purchase, agent: Agent, version: AgentVersion | None, downloaded: int) -> bool:
    """'New' on My Agents: the live version came out after the purchase and the buyer has not downloaded it."""
    return (version is not None and version.approved_at > purchase.purchased_at
            and downloaded < agent.current_version)


def recent_purchase(*, actor: User | None, order_id: str) -> Order:
    """The order /purchase-success was sent with, if it is this user's own purchase that granted the agent and
    was made moments ago: the page celebrates nothing else (opened directly, a guessed or someone else's id,
    a refunded second payment, an old bookmark)."""
    user = require_user(actor)
    if not isinstance(order_id, str) or not ORDER_ID_RE.fullmatch(order_id):
        raise Invalid("Invalid order id")
    with session_scope() as session:
        order = session.exec(
            select(Order).where(Order.id == order_id, Order.user_id == user.id,
                                Order.status == OrderStatus.COMPLETED,
                                Order.created_at >= utcnow() - SUCCESS_PAGE_WINDOW)
        ).first()
    if order is None:
        raise NotFound(NO_RECENT_PURCHASE)
    return order


@dataclass(frozen=True)
class PurchaseSummary:
    """What the success page tells a signed-in buyer: what they bought, for how much, its key and, for a
    subscription, when it next charges."""

    order_id: str
    agent_name: str
    amount_cents: int
    currency: str
    license_key: str | None
    renews_at: datetime | None  # a subscription's next charge; None for a licence or one that will not renew


def recent_purchase_summary(*, actor: User | None, order_id: str) -> PurchaseSummary:
    """The order `recent_purchase` allows this buyer to see, with the purchase's key and the subscription's
    next charge (Stripe's period end, the clock that bills)."""
    order = recent_purchase(actor=actor, order_id=order_id)
    with session_scope() as session:
        purchase_id = session.exec(select(Purchase.id).where(Purchase.user_id == order.user_id,
                                                             Purchase.agent_id == order.agent_id)).first()
        key = licenses.keys_by_purchase(session, purchase_ids=[purchase_id]).get(purchase_id) if purchase_id else None
        sub = session.get(Subscription, order.subscription_id) if order.subscription_id else None
        renews = sub.current_period_end if sub and not sub.cancel_at_period_end and sub.ended_at is None else None
    return PurchaseSummary(order_id=order.id, agent_name=order.agent_name, amount_cents=order.total_amount_cents,
                           currency=order.currency, license_key=key, renews_at=renews)


def list_orders(*, actor: User | None) -> list[Order]:
    user = require_user(actor)
    with session_scope() as session:
        return list(session.exec(
            select(Order).where(Order.user_id == user.id).order_by(Order.created_at.desc(), Order.id)
        ).all())


@dataclass(frozen=True)
class SpendingSummary:
    """The customer dashboard's three figures. Totals stay per currency: USD and EUR are never added up."""

    agents_owned: int  # agents the customer may use now (the access rule)
    completed_orders: int
    total_spent: dict[str, int]  # currency -> every completed charge (renewals in, refunds out), minor units


def spending_summary(*, actor: User | None) -> SpendingSummary:
    user = require_user(actor)
    with session_scope() as session:
        owned = session.exec(
            select(func.count()).select_from(Purchase).where(Purchase.user_id == user.id, access.active())
        ).one()
        rows = session.exec(
            select(Order.currency, func.count(), func.coalesce(func.sum(Order.total_amount_cents), 0))
            .where(Order.user_id == user.id, Order.status == OrderStatus.COMPLETED)
            .group_by(Order.currency)
        ).all()
    return SpendingSummary(
        agents_owned=owned,
        completed_orders=sum(count for _, count, _ in rows),
        total_spent={currency: int(total) for currency, _, total in rows} or {"usd": 0},
    )


@dataclass(frozen=True)
class PaymentEntry:
    """One line of the Payment tab's history: a charge (an order that was paid) or a refund of one."""

    id: str
    kind: str  # 'charge' | 'refund'
    order_id: str  # its receipt (a refund's credit note is on the receipt of the order it refunds)
    at: datetime
    description: str  # the agent (or plan) the money was for
    amount_cents: int  # positive for a charge, negative for a refund
    currency: str


def payment_history(*, actor: User | None) -> list[PaymentEntry]:
    """The actor's charges (every paid order, later refunded or not) and their refunds that went through,
    newest first. From the database's orders and refunds: Stripe is not asked."""
    user = require_user(actor)
    with session_scope() as session:
        orders = session.exec(select(Order).where(
            Order.user_id == user.id, Order.status.in_((OrderStatus.COMPLETED, OrderStatus.REFUNDED)))).all()
        refunds = session.exec(
            select(Refund, Order.agent_name, Order.refunded_at).join(Order, Order.id == Refund.order_id)
            .where(Order.user_id == user.id, Refund.status == RefundStatus.SUCCEEDED)).all()
    entries = [PaymentEntry(id=o.id, kind="charge", order_id=o.id, at=o.created_at, description=o.agent_name,
                            amount_cents=o.total_amount_cents, currency=o.currency) for o in orders]
    entries += [PaymentEntry(id=r.id, kind="refund", order_id=r.order_id,
                             at=r.decided_at or refunded_at or r.created_at, description=name,
                             amount_cents=-r.amount_cents, currency=r.currency)
                for r, name, refunded_at in refunds]
    return sorted(entries, key=lambda e: (e.at, e.kind == "refund", e.id), reverse=True)
