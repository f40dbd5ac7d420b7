"""Seller webhooks: a vendor's endpoints, and one delivery row per event and endpoint (the webhook outbox).

A delivery is written in the transaction of the change that causes it (services/webhooks/outbox.py) and sent
afterwards by the webhook sender (services/webhooks/sender.py), so a rolled-back change sends nothing and a
crash after the commit loses nothing."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel

from marketplace.models.base import ApiInput, ApiModel, new_id, utcnow

URL_MAX = 2048


class DeliveryStatus(StrEnum):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class WebhookEndpoint(SQLModel, table=True):
    """An address a vendor's server listens on, the events it asked for (comma-separated) and the secret that
    signs what is sent to it. Deleting one disables it (`disabled_at`): its delivery log stays readable to no
    one and its pending deliveries stop."""

    __tablename__ = "webhook_endpoints"
    __table_args__ = (Index("ix_webhook_endpoints_vendor_id", "vendor_id"),)

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    vendor_id: str = Field(foreign_key="users.id", max_length=32, ondelete="CASCADE")
    url: str = Field(max_length=URL_MAX)
    events: str = Field(sa_column=Column(Text, nullable=False))
    secret: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow)
    disabled_at: datetime | None = None


class WebhookDelivery(SQLModel, table=True):
    """One event for one endpoint. `next_attempt_at` is when a sender may next take it: at first its creation,
    while a sender holds it the end of that sender's lease, after a failed attempt the retry time; None once it
    succeeded or failed for good. Retries stop after `retry_until` (24 hours after it was queued or resent)."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_next_attempt_at", "next_attempt_at"),
        Index("ix_webhook_deliveries_endpoint_created", "endpoint_id", "created_at"),
    )

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    endpoint_id: str = Field(foreign_key="webhook_endpoints.id", max_length=32, ondelete="CASCADE")
    event_id: str = Field(max_length=40)
    type: str = Field(max_length=40)
    payload: str = Field(sa_column=Column(Text, nullable=False))
    status: str = Field(default=DeliveryStatus.PENDING, max_length=16)
    attempts: int = 0
    next_attempt_at: datetime | None = Field(default_factory=utcnow)
    retry_until: datetime
    last_response_code: int | None = None
    last_duration_ms: int | None = None
    last_error: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


# ---- API schemas ------------------------------------------------------------------------------------------------


class WebhookEndpointIn(ApiInput):
    """Checked by the service (services/webhooks/endpoints.py), which answers 400 with what is wrong."""

    url: str
    events: list[str]


class WebhookEndpointPublic(ApiModel):
    id: str
    url: str
    events: list[str]
    created_at: datetime


class WebhookEndpointWithSecret(WebhookEndpointPublic):
    """Answered once, when the endpoint is made or its secret rotated: the secret is never shown again."""

    secret: str


class WebhookDeliveryPublic(ApiModel):
    id: str
    endpoint_id: str
    event_id: str
    type: str
    status: str
    attempts: int
    next_attempt_at: datetime | None
    last_response_code: int | None
    last_duration_ms: int | None
    last_error: str | None
    created_at: datetime
    updated_at: datetime
