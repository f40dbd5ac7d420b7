"""The events a vendor's endpoint may listen to (the issue's list), and the test event 'Send test event' sends."""

from __future__ import annotations

SALE_COMPLETED = "sale.completed"
SUBSCRIPTION_RENEWED = "subscription.renewed"
SUBSCRIPTION_CANCELLED = "subscription.cancelled"
SUBSCRIPTION_ENDED = "subscription.ended"
REFUND_COMPLETED = "refund.completed"
LICENSE_ACTIVATED = "license.activated"
LICENSE_DEACTIVATED = "license.deactivated"
PING = "ping"  # sent by 'Send test event' only, whatever the endpoint listens to

EVENTS: tuple[str, ...] = (
    SALE_COMPLETED,
    SUBSCRIPTION_RENEWED,
    SUBSCRIPTION_CANCELLED,
    SUBSCRIPTION_ENDED,
    REFUND_COMPLETED,
    LICENSE_ACTIVATED,
    LICENSE_DEACTIVATED,
)
