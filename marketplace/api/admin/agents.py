"""Admin: agent moderation (pending agents and revisions, approve, reject: services/admin/moderation) and
deletes (services/admin/deletion)."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Body, Query, Response
from fastapi.responses import StreamingResponse
from pydantic import TypeAdapter

from marketplace.api.catalog import json_list, total_answer
from marketplace.api.deps import OptionalUser
from marketplace.models.scans import FileScanPublic
from marketplace.models.submissions import (
    FieldChangePublic,
    ModerationDecisionPublic,
    PendingAgentPublic,
    PendingCategoryPublic,
    PendingFilePublic,
    PendingVendorPublic,
    RejectIn,
)
from marketplace.services import downloads, money
from marketplace.services.admin import deletion, moderation
from marketplace.services.vendors.drafts import UNLIMITED

router = APIRouter(prefix="/api/admin", tags=["admin"])

PENDING_LIST = TypeAdapter(list[PendingAgentPublic])


def _change_value(field: str, value: object) -> str | list[str] | None:
    """A revision's value in the API's terms: a price as an amount, tags as a list, no activation limit as
    'unlimited', an empty field as null."""
    if field == "activation_limit" and value is None:
        return UNLIMITED
    if value is None or value == "":
        return None
    if field == "price_cents" and isinstance(value, int):
        return money.format_cents(value)
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value)


def _pending(item: moderation.PendingItem) -> PendingAgentPublic:
    return PendingAgentPublic(
        id=item.agent_id, kind=item.kind, revision_id=item.revision_id, name=item.name,
        short_description=item.short_description, description=item.description,
        price=money.format_cents(item.price_cents), pricing_model=item.pricing_model, trial_days=item.trial_days,
        demo_url=item.demo_url, image_url=item.image_url,
        tags=item.tags, category_id=item.category_id,
        category=PendingCategoryPublic(id=item.category_id, name=item.category_name)
        if item.category_id is not None and item.category_name is not None else None,
        vendor=PendingVendorPublic(id=item.vendor.id, username=item.vendor.username, email=item.vendor.email)
        if item.vendor else None,
        submitted_at=item.submitted_at, file_count=item.file_count, changed_fields=item.changed_fields,
        files_added=item.files_added, files_removed=item.files_removed,
        files=[PendingFilePublic(id=f.id, filename=f.filename, size_bytes=f.size_bytes, content_type=f.content_type,
                                 download_url=f.download_url, scan=FileScanPublic.model_validate(f.scan))
               for f in item.files],
        field_changes=[FieldChangePublic(field=c.field, old=_change_value(c.field, c.old),
                                         new=_change_value(c.field, c.new)) for c in item.field_changes],
        version_label=item.version_label, current_version_label=item.current_version_label,
        release_notes=item.release_notes, release_notes_html=item.release_notes_html,
    )


def _decision(d: moderation.Decision) -> ModerationDecisionPublic:
    return ModerationDecisionPublic(id=d.agent_id, status=d.status, revision_id=d.revision_id,
                                    current_version=d.current_version)


@router.get("/agents/pending", response_model=list[PendingAgentPublic], responses=total_answer("items"))
def pending_agents(user: OptionalUser, limit: int = Query(100), offset: int = Query(0)) -> Response:
    """New agents and revisions of live ones waiting for review, oldest first, with vendor and category."""
    items, total = moderation.list_pending(actor=user, limit=limit, offset=offset)
    return json_list([_pending(i) for i in items], PENDING_LIST, total)


@router.post("/agents/{agent_id}/approve", response_model=ModerationDecisionPublic)
def approve_agent(agent_id: str, user: OptionalUser) -> ModerationDecisionPublic:
    """Approve a pending agent (409 without files) or a live agent's pending revision; 409 when another
    decision came first."""
    return _decision(moderation.approve(actor=user, agent_id=agent_id))


@router.post("/agents/{agent_id}/reject", response_model=ModerationDecisionPublic)
def reject_agent(agent_id: str, user: OptionalUser,
                 body: RejectIn | None = Body(default=None)) -> ModerationDecisionPublic:
    """Reject a new agent or a pending revision; `rejectionReason` (optional) reaches the vendor."""
    reason = body.rejection_reason if body else None
    return _decision(moderation.reject(actor=user, agent_id=agent_id, rejection_reason=reason))


@router.delete("/agents/{agent_id}", status_code=204, response_class=Response)
def delete_agent(agent_id: str, user: OptionalUser) -> Response:
    """Soft delete: the agent leaves the catalogue; orders, purchases and buyers' downloads stay."""
    deletion.delete_agent(actor=user, agent_id=agent_id)
    return Response(status_code=204)


@router.get("/agent-files/{file_id}", response_class=StreamingResponse,
            responses={200: {"content": {"application/octet-stream": {}}}})
def agent_file(file_id: str, user: OptionalUser) -> StreamingResponse:
    """One file of a submission as its vendor attached it, for the admin deciding on it: always a download
    (never shown inline, whatever it holds)."""
    found = downloads.submitted_file(actor=user, file_id=file_id)
    plain = found.filename.encode("ascii", "replace").decode().replace('"', "_").replace("?", "_")
    disposition = f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(found.filename)}"
    headers = {"Content-Disposition": disposition, "Content-Length": str(found.size), "Cache-Control": "no-store",
               "X-Content-Type-Options": "nosniff"}
    return StreamingResponse(found.chunks, media_type="application/octet-stream", headers=headers)
