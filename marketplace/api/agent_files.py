"""Attaching uploaded files to a vendor's agent, and removing them (thin over services/vendors/files.py)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from marketplace.api.deps import OptionalUser
from marketplace.models.scans import FileScanPublic
from marketplace.models.submissions import AgentFilePublic, AttachIn
from marketplace.services.vendors import files

router = APIRouter(prefix="/api", tags=["vendor"])


@router.put("/agent-files", response_model=AgentFilePublic)
def attach_file(body: AttachIn, user: OptionalUser) -> AgentFilePublic:
    """Attach an upload issued to this vendor to its agent, after checking its name, real size and content.
    Any refusal answers 4xx with a message, attaches nothing, and deletes the uploaded object; an upload that
    another attach took first answers 409 and is left to it."""
    info = files.attach_file(actor=user, agent_id=body.agent_id, file_url=body.agent_file_url)
    return AgentFilePublic(id=info.id, filename=info.filename, size_bytes=info.size_bytes,
                           content_type=info.content_type, scan=FileScanPublic.model_validate(info.scan))


@router.delete("/agent-files/{file_id}", status_code=204)
def remove_file(file_id: str, user: OptionalUser) -> Response:
    """Remove a file from what the agent publishes next (a live agent's files change only on approval)."""
    files.remove_file(actor=user, file_id=file_id)
    return Response(status_code=204)
