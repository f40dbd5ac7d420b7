"""Admin: remove a review or a vendor's answer to one, with a reason (audited; thin over services/admin)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from marketplace.api.deps import OptionalUser
from marketplace.models.engagement import ReasonIn
from marketplace.services.admin import reviews

router = APIRouter(prefix="/api/admin", tags=["admin"])


@router.delete("/reviews/{review_id}", status_code=204, response_class=Response)
def remove_review(review_id: str, user: OptionalUser, body: ReasonIn | None = None) -> Response:
    """Delete a review (`{"reason"}`, 400 without); the agent's rating and review count follow at once."""
    reviews.remove_review(actor=user, review_id=review_id, reason=body.reason if body else None)
    return Response(status_code=204)


@router.delete("/reviews/{review_id}/reply", status_code=204, response_class=Response)
def remove_reply(review_id: str, user: OptionalUser, body: ReasonIn | None = None) -> Response:
    """Clear the vendor's answer to a review (`{"reason"}`, 400 without); 409 when it has none."""
    reviews.remove_reply(actor=user, review_id=review_id, reason=body.reason if body else None)
    return Response(status_code=204)
