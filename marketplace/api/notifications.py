"""A user's notifications: list, mark read, delete (the owner only; services/notifications.py)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response

from marketplace.api.deps import OptionalUser
from marketplace.models.vendor import NotificationPublic
from marketplace.services import notifications

router = APIRouter(prefix="/api", tags=["notifications"])


@router.get("/notifications", response_model=list[NotificationPublic])
def list_notifications(user: OptionalUser, limit: int = Query(50)) -> list[NotificationPublic]:
    """Newest first."""
    return [NotificationPublic.model_validate(n) for n in notifications.list_notifications(actor=user, limit=limit)]


@router.post("/notifications/{notification_id}/read", response_model=NotificationPublic)
def mark_read(notification_id: str, user: OptionalUser) -> NotificationPublic:
    return NotificationPublic.model_validate(notifications.mark_read(actor=user, notification_id=notification_id))


@router.delete("/notifications/{notification_id}", status_code=204, response_class=Response)
def delete_notification(notification_id: str, user: OptionalUser) -> Response:
    notifications.delete_notification(actor=user, notification_id=notification_id)
    return Response(status_code=204)
