"""A vendor's webhook endpoints and their delivery logs: add, list, delete, rotate the secret, send a test event,
resend a delivery. Only approved vendors (and admins, for endpoints of their own); another vendor's endpoint or
delivery answers 404, as an unknown one, so ids cannot be probed. The secret is answered once, when made."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import DeliveryStatus, User, WebhookDelivery, WebhookEndpoint
from marketplace.models.base import new_id, utcnow
from marketplace.services import decisions
from marketplace.services.errors import Conflict, Invalid, NotFound
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_vendor
from marketplace.services.webhooks import addresses, outbox, sender, signing
from marketplace.services.webhooks.events import EVENTS, PING
from marketplace.services.webhooks.worker import worker

MAX_ENDPOINTS = 10
MAX_DELIVERIES = 100
ID_MAX = 64
ENDPOINT_NOT_FOUND = "Webhook endpoint not found"
DELIVERY_NOT_FOUND = "Webhook delivery not found"
NO_EVENTS = "Choose at least one event"
TOO_MANY = f"You can have at most {MAX_ENDPOINTS} webhook endpoints"
STILL_PENDING = "This delivery is still being retried"


@dataclass(frozen=True)
class EndpointView:
    id: str
    url: str
    events: list[str]
    created_at: datetime

    @classmethod
    def of(cls, row: WebhookEndpoint) -> EndpointView:
        return cls(id=row.id, url=row.url, events=row.events.split(","), created_at=row.created_at)


@dataclass(frozen=True)
class WithSecret:
    endpoint: EndpointView
    secret: str


def check_events(events: object) -> list[str]:
    """The events asked for, each once in the issue's order, or `Invalid` naming an unknown one."""
    if not isinstance(events, list) or not events:
        raise Invalid(NO_EVENTS, field="events")
    unknown = [str(e) for e in events if e not in EVENTS]
    if unknown:
        raise Invalid(f"Unknown event: {unknown[0][:60]}. Choose from: {', '.join(EVENTS)}", field="events")
    return [e for e in EVENTS if e in events]


def _owned(session: Session, user: User, endpoint_id: object) -> WebhookEndpoint:
    if not isinstance(endpoint_id, str) or not endpoint_id or len(endpoint_id) > ID_MAX:
        raise NotFound(ENDPOINT_NOT_FOUND)
    row = session.exec(
        select(WebhookEndpoint).where(
            WebhookEndpoint.id == endpoint_id,
            WebhookEndpoint.vendor_id == user.id,
            WebhookEndpoint.disabled_at.is_(None),
        )
    ).first()
    if row is None:
        raise NotFound(ENDPOINT_NOT_FOUND)
    return row


def list_endpoints(*, actor: User | None) -> list[EndpointView]:
    """The vendor's live endpoints, oldest first (the order they were added)."""
    user = require_vendor(actor)
    with session_scope() as session:
        rows = session.exec(
            select(WebhookEndpoint)
            .where(WebhookEndpoint.vendor_id == user.id, WebhookEndpoint.disabled_at.is_(None))
            .order_by(WebhookEndpoint.created_at, WebhookEndpoint.id)
        ).all()
        return [EndpointView.of(r) for r in rows]


def create_endpoint(*, actor: User | None, url: object, events: object) -> WithSecret:
    """A new endpoint and its secret (shown this once). The endpoint is added first and counted after, so two
    requests at once cannot pass the limit."""
    user = require_vendor(actor)
    checked_url, checked_events = addresses.check_url(url), check_events(events)
    secret = signing.new_secret()
    with session_scope() as session:
        row = WebhookEndpoint(vendor_id=user.id, url=checked_url, events=",".join(checked_events), secret=secret)
        session.add(row)
        session.flush()
        count = session.exec(
            select(func.count())
            .select_from(WebhookEndpoint)
            .where(WebhookEndpoint.vendor_id == user.id, WebhookEndpoint.disabled_at.is_(None))
        ).one()
        if count > MAX_ENDPOINTS:
            raise Invalid(TOO_MANY)
        return WithSecret(endpoint=EndpointView.of(row), secret=secret)


def _claim_live(session: Session, row: WebhookEndpoint, values: dict[str, object]) -> None:
    """Change the endpoint while it is not deleted: one that another request deleted first is not found."""
    try:
        decisions.claim(session, WebhookEndpoint, WebhookEndpoint.id == row.id, WebhookEndpoint.disabled_at.is_(None),
                        values=values, conflict=ENDPOINT_NOT_FOUND)
    except Conflict:
        raise NotFound(ENDPOINT_NOT_FOUND) from None


def delete_endpoint(*, actor: User | None, endpoint_id: object) -> None:
    """Disable the endpoint (once) and stop its pending deliveries."""
    user = require_vendor(actor)
    now = utcnow()
    with session_scope() as session:
        row = _owned(session, user, endpoint_id)
        _claim_live(session, row, {"disabled_at": now})
        decisions.claim_any(
            session, WebhookDelivery,
            WebhookDelivery.endpoint_id == row.id, WebhookDelivery.status == DeliveryStatus.PENDING,
            values={"status": DeliveryStatus.FAILED, "next_attempt_at": None, "last_error": sender.ENDPOINT_GONE,
                    "updated_at": now},
        )


def rotate_secret(*, actor: User | None, endpoint_id: object) -> WithSecret:
    """A new secret for the endpoint (shown this once); deliveries sent from now on are signed with it."""
    user = require_vendor(actor)
    secret = signing.new_secret()
    with session_scope() as session:
        row = _owned(session, user, endpoint_id)
        _claim_live(session, row, {"secret": secret})
        return WithSecret(endpoint=EndpointView.of(row), secret=secret)


def list_deliveries(*, actor: User | None, endpoint_id: object, limit: int = 50) -> list[WebhookDelivery]:
    """The endpoint's deliveries, newest first."""
    user = require_vendor(actor)
    check_page(limit=limit, max_limit=MAX_DELIVERIES)
    with session_scope() as session:
        row = _owned(session, user, endpoint_id)
        return list(
            session.exec(
                select(WebhookDelivery)
                .where(WebhookDelivery.endpoint_id == row.id)
                .order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id.desc())
                .limit(limit)
            ).all()
        )


def send_test(*, actor: User | None, endpoint_id: object) -> WebhookDelivery:
    """Queue a `ping` event for this endpoint alone (whatever events it listens to)."""
    user = require_vendor(actor)
    with session_scope() as session:
        row = _owned(session, user, endpoint_id)
        now, event_id = utcnow(), f"evt_{new_id()}"
        body = outbox.payload(event_id=event_id, type=PING, created=now, obj=outbox.ping_object(row))
        delivery = outbox.delivery(endpoint_id=row.id, event_id=event_id, type=PING, body=body, now=now)
        session.add(delivery)
        worker.wake_after_commit(session)
        session.flush()
        session.refresh(delivery)
        return delivery


def resend(*, actor: User | None, delivery_id: object) -> WebhookDelivery:
    """Send a finished delivery (succeeded or failed) again now, with 24 more hours of retries; one that is
    still being retried is a 409."""
    user = require_vendor(actor)
    if not isinstance(delivery_id, str) or not delivery_id or len(delivery_id) > ID_MAX:
        raise NotFound(DELIVERY_NOT_FOUND)
    now = utcnow()
    with session_scope() as session:
        found = session.exec(
            select(WebhookDelivery.id)
            .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
            .where(
                WebhookDelivery.id == delivery_id,
                WebhookEndpoint.vendor_id == user.id,
                WebhookEndpoint.disabled_at.is_(None),
            )
        ).first()
        if found is None:
            raise NotFound(DELIVERY_NOT_FOUND)
        decisions.claim(
            session,
            WebhookDelivery,
            WebhookDelivery.id == delivery_id,
            WebhookDelivery.status != DeliveryStatus.PENDING,
            values={
                "status": DeliveryStatus.PENDING,
                "next_attempt_at": now,
                "retry_until": now + outbox.RETRY_WINDOW,
                "updated_at": now,
            },
            conflict=STILL_PENDING,
        )
        worker.wake_after_commit(session)
        delivery = session.exec(select(WebhookDelivery).where(WebhookDelivery.id == delivery_id)).one()
        return delivery
