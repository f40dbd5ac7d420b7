"""Queueing webhook deliveries in the transaction of the change that causes them (the webhook outbox).

`enqueue(session, vendor_id=..., type=..., obj=...)` writes one pending delivery per live endpoint of the vendor
that listens to `type`, inside the caller's transaction: the rows exist exactly when the change does (a rolled
back sale sends nothing, a crash after the commit loses nothing). This process's sender is woken when the
transaction commits. The payload is `{id, type, created, data: {object}}`; the objects are built here from the
vendor's own rows (`order_object`...), never with card data or another vendor's data.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, func
from sqlalchemy.orm import Mapped
from sqlmodel import Session, select

from marketplace.models import Order, Refund, Subscription, WebhookDelivery, WebhookEndpoint
from marketplace.models.base import new_id, utcnow
from marketplace.services import money
from marketplace.services.webhooks import events as webhook_events
from marketplace.services.webhooks.worker import worker

RETRY_WINDOW = timedelta(hours=24)


def listens(endpoint_events: str, type: str) -> bool:
    return type in endpoint_events.split(",")


def payload(*, event_id: str, type: str, created: datetime, obj: dict[str, Any]) -> str:
    return json.dumps(
        {"id": event_id, "type": type, "created": int(created.timestamp()), "data": {"object": obj}},
        separators=(",", ":"),
        sort_keys=True,
        default=str,
    )


def delivery(*, endpoint_id: str, event_id: str, type: str, body: str, now: datetime) -> WebhookDelivery:
    return WebhookDelivery(
        endpoint_id=endpoint_id,
        event_id=event_id,
        type=type,
        payload=body,
        next_attempt_at=now,
        retry_until=now + RETRY_WINDOW,
        created_at=now,
        updated_at=now,
    )


def endpoints_column(vendor_id: Mapped[str | None] | ColumnElement[str]) -> ColumnElement[str | None]:
    """A column for a statement that reads a sale's rows anyway (services/purchases/completion.py `_read`): the
    vendor's live endpoints and their events (`endpoints_of` reads it), so queueing the sale's webhook is one
    INSERT, and a sale of a vendor without endpoints costs no statement at all."""
    rows = select(func.aggregate_strings(WebhookEndpoint.id + " " + WebhookEndpoint.events, ";")).where(
        WebhookEndpoint.vendor_id == vendor_id, WebhookEndpoint.disabled_at.is_(None)
    )
    return rows.scalar_subquery().label("vendor_webhooks")


Endpoints = list[tuple[str, str]]  # (endpoint id, its events comma-separated)


def endpoints_of(column: str | None) -> Endpoints:
    """`endpoints_column`'s value as (id, events) pairs."""
    return [(part.split(" ", 1)[0], part.split(" ", 1)[-1]) for part in (column or "").split(";") if part]


def enqueue(
    session: Session, *, vendor_id: str | None, type: str, obj: dict[str, Any], endpoints: Endpoints | None = None
) -> int:
    """Queue `type` with `obj` for every endpoint of `vendor_id` listening to it, in `session`'s transaction;
    answers how many deliveries were queued. `endpoints`: the vendor's endpoints as a read the caller made
    anyway found them (`endpoints_column`); else they are read here (one small indexed read)."""
    if type not in webhook_events.EVENTS:
        raise ValueError(f"unknown webhook event {type!r}")
    if not vendor_id:
        return 0
    if endpoints is None:
        endpoints = [
            (row[0], row[1])
            for row in session.exec(
                select(WebhookEndpoint.id, WebhookEndpoint.events).where(
                    WebhookEndpoint.vendor_id == vendor_id, WebhookEndpoint.disabled_at.is_(None)
                )
            ).all()
        ]
    wanted = [endpoint_id for endpoint_id, listened in endpoints if listens(listened, type)]
    if not wanted:
        return 0
    now, event_id = utcnow(), f"evt_{new_id()}"
    body = payload(event_id=event_id, type=type, created=now, obj=obj)
    session.add_all([delivery(endpoint_id=e, event_id=event_id, type=type, body=body, now=now) for e in wanted])
    worker.wake_after_commit(session)
    return len(wanted)


def _time(moment: datetime | None) -> int | None:
    return int(moment.timestamp()) if moment is not None else None


def order_object(order: Order) -> dict[str, Any]:
    """A sale as the vendor's server reads it: what was sold, for how much, and the vendor's share."""
    return {
        "object": "order",
        "id": order.id,
        "kind": order.kind,
        "agentId": order.agent_id,
        "agentName": order.agent_name,
        "amount": money.format_cents(order.total_amount_cents),
        "currency": order.currency,
        "vendorAmount": money.format_cents(order.vendor_amount_cents),
        "platformFee": money.format_cents(order.platform_fee_cents),
        "subscriptionId": order.subscription_id,
        "status": order.status,
        "created": _time(order.created_at),
    }


def subscription_object(row: Subscription) -> dict[str, Any]:
    return {
        "object": "subscription",
        "id": row.id,
        "agentId": row.agent_id,
        "agentName": row.agent_name,
        "status": row.status,
        "price": money.format_cents(row.price_cents),
        "currency": row.currency,
        "cancelAtPeriodEnd": row.cancel_at_period_end,
        "currentPeriodEnd": _time(row.current_period_end),
        "canceledAt": _time(row.canceled_at),
        "endedAt": _time(row.ended_at),
    }


def refund_object(refund: Refund, order: Order) -> dict[str, Any]:
    return {
        "object": "refund",
        "id": refund.id,
        "orderId": order.id,
        "agentId": order.agent_id,
        "agentName": order.agent_name,
        "amount": money.format_cents(refund.amount_cents),
        "currency": refund.currency,
        "status": refund.status,
        "subscriptionId": order.subscription_id,
    }


def activation_object(
    *, instance_id: str, instance_name: str, license_key_id: str, agent_id: str, activation_usage: int | None
) -> dict[str, Any]:
    return {
        "object": "license_activation",
        "id": instance_id,
        "name": instance_name,
        "licenseKeyId": license_key_id,
        "agentId": agent_id,
        "activationUsage": activation_usage,
    }


def ping_object(endpoint: WebhookEndpoint) -> dict[str, Any]:
    return {"object": "ping", "endpointId": endpoint.id, "message": "A test event from AgentMarket"}
