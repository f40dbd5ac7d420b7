"""Admin tables: customers, vendors, agents (paged with limit/offset/search, X-Total-Count; admin only)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response
from pydantic import TypeAdapter

from marketplace.api.catalog import json_list, total_answer
from marketplace.api.deps import OptionalUser
from marketplace.models import VendorRef
from marketplace.models.admin_reads import AdminAgentPublic, AdminCategoryRef, PersonPublic
from marketplace.services import money
from marketplace.services.admin import catalog, people

router = APIRouter(prefix="/api/admin", tags=["admin"])

PEOPLE = TypeAdapter(list[PersonPublic])
AGENTS = TypeAdapter(list[AdminAgentPublic])


def _person(row: people.PersonRow) -> PersonPublic:
    return PersonPublic.model_validate(row)


def _agent(row: catalog.AdminAgentRow) -> AdminAgentPublic:
    return AdminAgentPublic(
        id=row.id, name=row.name, short_description=row.short_description, description=row.description,
        price=money.format_cents(row.price_cents), pricing_model=row.pricing_model, trial_days=row.trial_days,
        status=row.status, is_approved=row.is_approved,
        rejection_reason=row.rejection_reason, avg_rating=f"{row.avg_rating:.2f}", review_count=row.review_count,
        vendor_id=row.vendor_id,
        vendor=VendorRef(id=row.vendor_id, username=row.vendor_username)
        if row.vendor_id and row.vendor_username else None,
        category_id=row.category_id,
        category=AdminCategoryRef(id=row.category_id, name=row.category_name)
        if row.category_id is not None and row.category_name is not None else None,
        demo_url=row.demo_url, image_url=row.image_url, tags=row.tags, created_at=row.created_at,
        reviewed_at=row.reviewed_at,
    )


@router.get("/customers", response_model=list[PersonPublic], responses=total_answer())
def customers(user: OptionalUser, limit: int = Query(20), offset: int = Query(0),
              search: str | None = Query(None)) -> Response:
    """Customers newest first; `search` matches username, email, first or last name."""
    rows, total = people.list_customers(actor=user, limit=limit, offset=offset, search=search)
    return json_list([_person(r) for r in rows], PEOPLE, total)


@router.get("/vendors", response_model=list[PersonPublic], responses=total_answer())
def vendors(user: OptionalUser, limit: int = Query(20), offset: int = Query(0),
            search: str | None = Query(None)) -> Response:
    """Vendors newest first, with isVendorApproved and agentCount."""
    rows, total = people.list_vendors(actor=user, limit=limit, offset=offset, search=search)
    return json_list([_person(r) for r in rows], PEOPLE, total)


@router.get("/agents", response_model=list[AdminAgentPublic], responses=total_answer())
def agents(user: OptionalUser, limit: int = Query(20), offset: int = Query(0), search: str | None = Query(None),
           status: str | None = Query(None, description="pending, approved, rejected or all (default)")) -> Response:
    """Every agent not deleted, newest first, with vendor (null: Unknown), category, status and rating."""
    rows, total = catalog.list_agents(actor=user, limit=limit, offset=offset, search=search, status=status)
    return json_list([_agent(r) for r in rows], AGENTS, total)
