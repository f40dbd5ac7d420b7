"""Admin: vendor applications, paged and searchable, approved or rejected per user id (admin only)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response
from pydantic import TypeAdapter

from marketplace.api.catalog import json_list, total_answer
from marketplace.api.deps import OptionalUser
from marketplace.models.vendor import ApplicantPublic, VendorApplicationAdminPublic, VendorApplicationPublic
from marketplace.services.admin import applications

router = APIRouter(prefix="/api/admin", tags=["admin"])

APPLICATION_LIST = TypeAdapter(list[VendorApplicationAdminPublic])


def _record(r: applications.ApplicationRecord) -> VendorApplicationAdminPublic:
    public = VendorApplicationPublic.model_validate(r.application)
    return VendorApplicationAdminPublic(
        **public.model_dump(), decided_at=r.application.decided_at,
        user=ApplicantPublic(email=r.email, first_name=r.first_name, last_name=r.last_name, username=r.username),
    )


@router.get("/vendor-applications", response_model=list[VendorApplicationAdminPublic], responses=total_answer())
def list_applications(
    user: OptionalUser, limit: int = Query(50), offset: int = Query(0), search: str | None = Query(None),
    status: str = Query("pending", description="pending (default), approved, rejected or all"),
) -> Response:
    """Newest first, with the applicant; `search` matches business name, email or username."""
    records, total = applications.list_applications(actor=user, status=status, limit=limit, offset=offset,
                                                    search=search)
    return json_list([_record(r) for r in records], APPLICATION_LIST, total)


@router.post("/vendor/{user_id}/approve", response_model=VendorApplicationPublic)
def approve(user_id: str, user: OptionalUser) -> VendorApplicationPublic:
    return VendorApplicationPublic.model_validate(applications.approve(actor=user, user_id=user_id))


@router.post("/vendor/{user_id}/reject", response_model=VendorApplicationPublic)
def reject(user_id: str, user: OptionalUser) -> VendorApplicationPublic:
    return VendorApplicationPublic.model_validate(applications.reject(actor=user, user_id=user_id))
