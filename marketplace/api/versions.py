"""An agent's published versions (its changelog): public, like the agent page."""

from __future__ import annotations

from fastapi import APIRouter

from marketplace.models import AgentVersionPublic, VersionFilePublic
from marketplace.services.versions import history

router = APIRouter(prefix="/api", tags=["catalog"])


def version_public(view: history.VersionView) -> AgentVersionPublic:
    return AgentVersionPublic(label=view.label, released_at=view.released_at, release_notes=view.release_notes,
                              release_notes_html=view.release_notes_html, current=view.current,
                              files=[VersionFilePublic(filename=f.filename, size_bytes=f.size_bytes)
                                     for f in view.files])


@router.get("/agents/{agent_id}/versions", response_model=list[AgentVersionPublic])
def agent_versions(agent_id: str) -> list[AgentVersionPublic]:
    """A live agent's versions, newest first: label, release date, release notes (Markdown and safe HTML), and
    each version's file names and sizes (never where they are stored)."""
    return [version_public(v) for v in history.list_versions(agent_id=agent_id)]
