"""What a customer bought: purchases, orders, and the dashboard's spending summary."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func
from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import Agent, AgentFile, Order, OrderStatus, Purchase, User
from marketplace.services.permissions import require_user


@dataclass(frozen=True)
class PurchaseRecord:
    purchase: Purchase
    agent: Agent
    has_files: bool
    order: Order | None


def list_purchases(*, actor: User | None) -> list[PurchaseRecord]:
    user = require_user(actor)
    with session_scope() as session:
        rows = session.exec(
            select(Purchase, Agent, Order)
            .join(Agent, Agent.id == Purchase.agent_id)
            .join(Order, Order.id == Purchase.order_id, isouter=True)
            .where(Purchase.user_id == user.id)
            .order_by(Purchase.purchased_at.desc(), Purchase.id)
        ).all()
        agent_ids = {agent.id for _, agent, _ in rows}
        with_files = set(session.exec(select(AgentFile.agent_id).where(AgentFile.agent_id.in_(agent_ids))).all()) \
            if agent_ids else set()
    return [PurchaseRecord(purchase=p, agent=a, has_files=a.id in with_files, order=o) for p, a, o in rows]


def list_orders(*, actor: User | None) -> list[Order]:
    user = require_user(actor)
    with session_scope() as session:
        return list(session.exec(
            select(Order).where(Order.user_id == user.id).order_by(Order.created_at.desc(), Order.id)
        ).all())


@dataclass(frozen=True)
class SpendingSummary:
    """The customer dashboard's three figures. Totals stay per currency: USD and EUR are never added up."""

    agents_owned: int
    completed_orders: int
    total_spent: dict[str, int]  # currency -> sum of purchase prices in its minor units


def spending_summary(*, actor: User | None) -> SpendingSummary:
    user = require_user(actor)
    with session_scope() as session:
        rows = session.exec(
            select(Purchase.currency, func.count(), func.coalesce(func.sum(Purchase.purchase_price_cents), 0))
            .where(Purchase.user_id == user.id)
            .group_by(Purchase.currency)
        ).all()
        completed = session.exec(
            select(func.count()).select_from(Order)
            .where(Order.user_id == user.id, Order.status == OrderStatus.COMPLETED)
        ).one()
    return SpendingSummary(
        agents_owned=sum(count for _, count, _ in rows),
        completed_orders=completed,
        total_spent={currency: int(total) for currency, _, total in rows} or {"usd": 0},
    )
