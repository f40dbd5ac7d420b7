"""An agent's published versions (its changelog): public, like the agent page."""

from __future__ import annotations

from fastapi import APIRouter, Response

from marketplace.models import AgentVersionPublic
from marketplace.services.errors import NotFound
from marketplace.services.versions import history

router = APIRouter(prefix="/api", tags=["catalog"])


@router.get("/agents/{agent_id}/versions", response_model=list[AgentVersionPublic])
def agent_versions(agent_id: str) -> Response:
    """A live agent's versions, newest first: label, release date, release notes (Markdown and safe HTML), and
    each version's file names and sizes (never where they are stored). Cached with the catalogue."""
    body = history.live_versions_json(agent_id)
    if body is None:
        raise NotFound(history.NOT_FOUND)
    return Response(body, media_type="application/json")
