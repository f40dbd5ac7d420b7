"""Seller webhooks: a vendor's endpoints (endpoints.py), the outbox written with each change (outbox.py), the
signed POSTs sent off the request (sender.py, signing.py) to checked addresses only (addresses.py)."""

from marketplace.services.webhooks import events
from marketplace.services.webhooks.endpoints import (
    EndpointView,
    WithSecret,
    create_endpoint,
    delete_endpoint,
    list_deliveries,
    list_endpoints,
    resend,
    rotate_secret,
    send_test,
)
from marketplace.services.webhooks.outbox import (
    Endpoints,
    activation_object,
    endpoints_column,
    endpoints_of,
    enqueue,
    order_object,
    refund_object,
    subscription_object,
)
from marketplace.services.webhooks.sender import drain, send_forever

__all__ = [
    "EndpointView",
    "Endpoints",
    "WithSecret",
    "activation_object",
    "create_endpoint",
    "delete_endpoint",
    "drain",
    "endpoints_column",
    "endpoints_of",
    "enqueue",
    "events",
    "list_deliveries",
    "list_endpoints",
    "order_object",
    "refund_object",
    "resend",
    "rotate_secret",
    "send_forever",
    "send_test",
    "subscription_object",
]
