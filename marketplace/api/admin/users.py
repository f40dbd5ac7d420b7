"""Admin: delete a user (soft; thin over services/admin/deletion)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from marketplace.api.deps import OptionalUser
from marketplace.services.admin import deletion

router = APIRouter(prefix="/api/admin", tags=["admin"])


@router.delete("/users/{user_id}", status_code=204, response_class=Response)
def delete_user(user_id: str, user: OptionalUser) -> Response:
    """The user can no longer sign in and its sessions end; a vendor's agents leave the catalogue; orders,
    purchases and commissions stay. 409 for yourself or the last admin, 404 when unknown or already deleted."""
    deletion.delete_user(actor=user, user_id=user_id)
    return Response(status_code=204)
