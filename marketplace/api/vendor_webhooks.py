"""A vendor's webhook endpoints and delivery logs. Thin adapters over services/webhooks, which checks every
permission (vendors only; another vendor's endpoint or delivery is a 404)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response

from marketplace.api.deps import OptionalUser
from marketplace.models.webhooks import (
    WebhookDeliveryPublic,
    WebhookEndpointIn,
    WebhookEndpointPublic,
    WebhookEndpointWithSecret,
)
from marketplace.services import webhooks

router = APIRouter(prefix="/api/vendor", tags=["vendor"])


def _endpoint(view: webhooks.EndpointView) -> WebhookEndpointPublic:
    return WebhookEndpointPublic(id=view.id, url=view.url, events=view.events, created_at=view.created_at)


def _with_secret(made: webhooks.WithSecret) -> WebhookEndpointWithSecret:
    e = made.endpoint
    return WebhookEndpointWithSecret(id=e.id, url=e.url, events=e.events, created_at=e.created_at, secret=made.secret)


@router.get("/webhooks", response_model=list[WebhookEndpointPublic])
def list_webhooks(user: OptionalUser) -> list[WebhookEndpointPublic]:
    """The vendor's endpoints, in the order they were added (secrets are never shown again)."""
    return [_endpoint(e) for e in webhooks.list_endpoints(actor=user)]


@router.post("/webhooks", response_model=WebhookEndpointWithSecret, status_code=201)
def create_webhook(body: WebhookEndpointIn, user: OptionalUser) -> WebhookEndpointWithSecret:
    """`{url, events}`: an https URL (http to this machine in demo mode only) and at least one event. The answer
    carries the signing secret (`whsec_...`) this once."""
    return _with_secret(webhooks.create_endpoint(actor=user, url=body.url, events=body.events))


@router.delete("/webhooks/{endpoint_id}", status_code=204, response_class=Response)
def delete_webhook(endpoint_id: str, user: OptionalUser) -> Response:
    """The endpoint stops receiving events; its pending deliveries stop."""
    webhooks.delete_endpoint(actor=user, endpoint_id=endpoint_id)
    return Response(status_code=204)


@router.post("/webhooks/{endpoint_id}/rotate-secret", response_model=WebhookEndpointWithSecret)
def rotate_webhook_secret(endpoint_id: str, user: OptionalUser) -> WebhookEndpointWithSecret:
    """A new signing secret, answered this once; the old one stops signing at once."""
    return _with_secret(webhooks.rotate_secret(actor=user, endpoint_id=endpoint_id))


@router.get("/webhooks/{endpoint_id}/deliveries", response_model=list[WebhookDeliveryPublic])
def webhook_deliveries(endpoint_id: str, user: OptionalUser, limit: int = Query(50)) -> list[WebhookDeliveryPublic]:
    """The endpoint's delivery log, newest first: status, attempts, last response code and timing."""
    rows = webhooks.list_deliveries(actor=user, endpoint_id=endpoint_id, limit=limit)
    return [WebhookDeliveryPublic.model_validate(r) for r in rows]


@router.post("/webhooks/{endpoint_id}/test", response_model=WebhookDeliveryPublic, status_code=201)
def test_webhook(endpoint_id: str, user: OptionalUser) -> WebhookDeliveryPublic:
    """Queue a `ping` event for this endpoint."""
    return WebhookDeliveryPublic.model_validate(webhooks.send_test(actor=user, endpoint_id=endpoint_id))


@router.post("/webhook-deliveries/{delivery_id}/resend", response_model=WebhookDeliveryPublic)
def resend_webhook_delivery(delivery_id: str, user: OptionalUser) -> WebhookDeliveryPublic:
    """Send a finished delivery again now (409 while it is still being retried)."""
    return WebhookDeliveryPublic.model_validate(webhooks.resend(actor=user, delivery_id=delivery_id))
