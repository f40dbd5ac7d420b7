"""Admin: the audit log of admin writes, newest first, paged and searchable (thin over services/audit)."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response
from pydantic import TypeAdapter

from marketplace.api.catalog import json_list, total_answer
from marketplace.api.deps import OptionalUser
from marketplace.models.admin import AuditEntryPublic
from marketplace.services import audit

router = APIRouter(prefix="/api/admin", tags=["admin"])

AUDIT_LIST = TypeAdapter(list[AuditEntryPublic])


@router.get("/audit-log", response_model=list[AuditEntryPublic], responses=total_answer())
def audit_log(user: OptionalUser, limit: int = Query(50), offset: int = Query(0),
              search: str | None = Query(None)) -> Response:
    """Who did what to which record, and when; `search` matches actor username, action or target id."""
    records, total = audit.list_entries(actor=user, limit=limit, offset=offset, search=search)
    return json_list([AuditEntryPublic.model_validate(r) for r in records], AUDIT_LIST, total)
