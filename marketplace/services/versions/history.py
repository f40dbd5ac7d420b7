"""Published versions of an agent: the changelog, which versions buyers may still download, and what an
approval of new files writes and prunes.

An agent live before versions were kept has no row for its version: it reads as `INITIAL_LABEL` ('1.0.0'),
released when the agent was last approved, with its current files. That row is written (lazily) by the first
approval that replaces the version, from the file rows still there at that moment; no data migration walks
every agent. The current version and the two before it (`KEPT`) keep their file rows, so their objects stay and
buyers can download them; an older version's rows go at the approval that pushes it out, and its objects once no
row refers to them and no download holds them (services/versions/leases.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import TypeAdapter
from sqlalchemy import func
from sqlalchemy.engine import Connection
from sqlmodel import Session, delete, select

from marketplace.models import (
    Agent,
    AgentDownload,
    AgentFile,
    AgentRevision,
    AgentStatus,
    AgentVersion,
    AgentVersionPublic,
    VersionFilePublic,
)
from marketplace.services.catalog import reads
from marketplace.services.errors import NotFound
from marketplace.services.text import check_text
from marketplace.services.versions import labels, notes, objects

KEPT = 3  # the current version and the two before it stay downloadable
MAX_LISTED = 100  # versions in a changelog, newest first
NOT_FOUND = "Agent not found"
VERSION_UNKNOWN = "Version {label} of this agent was not found."
VERSIONS = TypeAdapter(list[AgentVersionPublic])
VERSION_GONE = (
    "Version {label} is no longer available for download: only the current version and the two "
    "before it can be downloaded."
)


@dataclass(frozen=True)
class VersionFile:
    filename: str
    size_bytes: int
    storage_key: str


@dataclass(frozen=True)
class VersionView:
    version: int
    label: str
    released_at: datetime
    release_notes: str
    files: list[VersionFile] = field(default_factory=list)
    current: bool = False

    @property
    def release_notes_html(self) -> str:
        return notes.render_notes(self.release_notes)


def _files(rows: list[AgentFile]) -> list[VersionFile]:
    return [VersionFile(filename=r.filename, size_bytes=r.size_bytes, storage_key=r.storage_key) for r in rows]


def _files_json(rows: list[AgentFile]) -> str:
    return json.dumps([{"name": r.filename, "size": r.size_bytes, "key": r.storage_key} for r in rows])


def _read_files(text: str) -> list[VersionFile]:
    try:
        items = json.loads(text or "[]")
    except ValueError:
        return []
    return [
        VersionFile(
            filename=str(i.get("name", "")), size_bytes=int(i.get("size", 0)), storage_key=str(i.get("key", ""))
        )
        for i in items
        if isinstance(i, dict)
    ]


def _view(row: AgentVersion, *, current: bool) -> VersionView:
    return VersionView(
        version=row.version,
        label=row.label,
        released_at=row.approved_at,
        release_notes=row.release_notes,
        files=_read_files(row.files),
        current=current,
    )


def _implicit(session: Session, agent: Agent) -> VersionView:
    """The live version of an agent approved before versions were kept (see the module text)."""
    rows = objects.files_of(session, agent.id, agent.current_version)
    return VersionView(
        version=agent.current_version,
        label=labels.INITIAL_LABEL,
        released_at=agent.reviewed_at or agent.created_at,
        release_notes="",
        files=_files(rows),
        current=True,
    )


def versions_of(session: Session, agent: Agent, *, limit: int = MAX_LISTED) -> list[VersionView]:
    """The agent's published versions, newest first (the live one first)."""
    rows = session.exec(
        select(AgentVersion)
        .where(AgentVersion.agent_id == agent.id, AgentVersion.version <= agent.current_version)
        .order_by(AgentVersion.version.desc())
        .limit(limit)
    ).all()
    views = [_view(row, current=row.version == agent.current_version) for row in rows]
    if not views or views[0].version != agent.current_version:
        views.insert(0, _implicit(session, agent))
    return views[:limit]


def live_label(session: Session, agent: Agent) -> str:
    label = session.exec(
        select(AgentVersion.label).where(
            AgentVersion.agent_id == agent.id, AgentVersion.version == agent.current_version
        )
    ).first()
    return label or labels.INITIAL_LABEL


def current_rows(session: Session, agents: list[Agent]) -> dict[str, AgentVersion]:
    """The rows of the agents' live versions, in one query (an agent whose live version is implicit has none)."""
    if not agents:
        return {}
    current = {a.id: a.current_version for a in agents}
    rows = session.exec(select(AgentVersion).where(AgentVersion.agent_id.in_(list(current)))).all()
    return {row.agent_id: row for row in rows if current.get(row.agent_id) == row.version}


def labels_at(session: Session, versions: dict[str, int]) -> dict[str, str]:
    """The label of each agent's file version in `versions` ({agent id: version}), in one query; a version with
    no row reads as `INITIAL_LABEL` (see the module text)."""
    if not versions:
        return {}
    rows = session.exec(select(AgentVersion.agent_id, AgentVersion.version, AgentVersion.label)
                        .where(AgentVersion.agent_id.in_(list(versions)))).all()
    found = {agent_id: label for agent_id, version, label in rows if versions.get(agent_id) == version}
    return {agent_id: found.get(agent_id, labels.INITIAL_LABEL) for agent_id in versions}


def labels_by_agent(session: Session, agents: list[Agent]) -> dict[str, str]:
    """Each agent's live label, in one query."""
    found = current_rows(session, agents)
    return {a.id: found[a.id].label if a.id in found else labels.INITIAL_LABEL for a in agents}


def newest_downloads(session: Session, *, user_id: str, agent_ids: list[str]) -> dict[str, int]:
    """The newest file version the user downloaded of each agent (agents never downloaded are left out)."""
    if not agent_ids:
        return {}
    return dict(
        session.exec(
            select(AgentDownload.agent_id, func.max(AgentDownload.version))
            .where(AgentDownload.user_id == user_id, AgentDownload.agent_id.in_(agent_ids))
            .group_by(AgentDownload.agent_id)
        ).all()
    )


def public(view: VersionView) -> AgentVersionPublic:
    """A version as the changelog shows it: file names and sizes, never where they are stored."""
    return AgentVersionPublic(
        label=view.label,
        released_at=view.released_at,
        release_notes=view.release_notes,
        release_notes_html=view.release_notes_html,
        current=view.current,
        files=[VersionFilePublic(filename=f.filename, size_bytes=f.size_bytes) for f in view.files],
    )


def live_versions_json(agent_id: str) -> str | None:
    """A live agent's changelog as JSON (newest first), cached per catalog version like the agent itself
    (services/catalog/reads.py): versions change only with an approval, whose commit updates the agent's row and
    so moves the version. None when no live agent has this id."""
    if not isinstance(agent_id, str) or not agent_id or len(agent_id) > 64:
        return None

    def read(conn: Connection) -> str | None:
        with Session(conn) as session:
            agent = session.get(Agent, agent_id)
            if agent is None or agent.status != AgentStatus.APPROVED or agent.deleted_at is not None:
                return None
            return VERSIONS.dump_json([public(v) for v in versions_of(session, agent)], by_alias=True).decode()

    return reads.cached(("versions", agent_id), read)


def list_versions(*, agent_id: str) -> list[AgentVersionPublic]:
    """A live agent's changelog, newest first (public); any other agent is 404."""
    found = live_versions_json(agent_id)
    if found is None:
        raise NotFound(NOT_FOUND)
    return VERSIONS.validate_json(found)


def downloadable(session: Session, agent: Agent, label: str | None) -> int:
    """The file version a download of `label` reads (None or empty: the live one). 404 when the agent has no
    such version, or when it is older than the `KEPT` newest."""
    if not label:
        return agent.current_version
    check_text(label, field="version", label="Version")
    views = versions_of(session, agent)
    wanted = labels.parse_label(label) if labels.is_label(label) else None
    for position, view in enumerate(views):
        if wanted is not None and labels.parse_label(view.label) == wanted:
            if position >= KEPT:
                raise NotFound(VERSION_GONE.format(label=label[: labels.MAX_LABEL]))
            return view.version
    raise NotFound(VERSION_UNKNOWN.format(label=label[: labels.MAX_LABEL]))


def first_version(session: Session, agent: Agent) -> AgentVersion | None:
    """The row of a not yet live agent's first version (agents created before first labels were asked for
    have none and read as `INITIAL_LABEL`)."""
    return session.exec(
        select(AgentVersion).where(AgentVersion.agent_id == agent.id, AgentVersion.version == agent.current_version)
    ).first()


def set_first_version(session: Session, agent: Agent, *, label: str | None, release_notes: str | None) -> None:
    """A new (pending or rejected) agent's first version label and notes, as the vendor chose them (checked by
    labels.clean_first_label/clean_first_notes; None keeps what is there, else `INITIAL_LABEL` and no notes).
    Its files and release date are written by `release_first` when an admin approves the agent."""
    row = first_version(session, agent)
    if row is None:
        row = AgentVersion(agent_id=agent.id, version=agent.current_version, label=labels.INITIAL_LABEL,
                           release_notes="", files="[]", approved_at=agent.created_at)
    if label is not None:
        row.label = label
    if release_notes is not None:
        row.release_notes = release_notes
    session.add(row)


def release_first(session: Session, agent: Agent, *, released_at: datetime) -> None:
    """The approval of a new agent, inside its transaction: its first version's row (if the vendor's submission
    wrote one) gets the files going live and the approval's date."""
    row = first_version(session, agent)
    if row is not None:
        row.files = _files_json(objects.files_of(session, agent.id, agent.current_version))
        row.approved_at = released_at
        session.add(row)


def publish(session: Session, agent: Agent, revision: AgentRevision, *, released_before: datetime | None) -> list[str]:
    """The approval of `revision`'s new files, inside the approval's transaction, before `agent.current_version`
    moves: the replaced version's row (written now if it was implicit), the new version's row, and the rows of
    versions no longer kept dropped. Answers the storage keys no file row refers to any more (delete them after
    the commit with objects.delete_objects, which also spares what a download in flight holds)."""
    old = agent.current_version
    if (
        session.exec(
            select(AgentVersion.id).where(AgentVersion.agent_id == agent.id, AgentVersion.version == old)
        ).first()
        is None
    ):
        session.add(
            AgentVersion(
                agent_id=agent.id,
                version=old,
                label=labels.INITIAL_LABEL,
                release_notes="",
                files=_files_json(objects.files_of(session, agent.id, old)),
                approved_at=released_before or agent.created_at,
            )
        )
    new_rows = objects.files_of(session, agent.id, revision.version)
    session.add(
        AgentVersion(
            agent_id=agent.id,
            version=revision.version,
            label=revision.version_label or labels.INITIAL_LABEL,
            release_notes=revision.release_notes or "",
            files=_files_json(new_rows),
            approved_at=revision.reviewed_at or agent.updated_at,
        )
    )
    session.flush()
    kept = list(
        session.exec(
            select(AgentVersion.version)
            .where(AgentVersion.agent_id == agent.id, AgentVersion.version <= revision.version)
            .order_by(AgentVersion.version.desc())
            .limit(KEPT)
        ).all()
    )
    oldest_kept = min(kept)
    keys = {
        row.storage_key
        for row in session.exec(
            select(AgentFile).where(AgentFile.agent_id == agent.id, AgentFile.version < oldest_kept)
        )
    }
    session.exec(delete(AgentFile).where(AgentFile.agent_id == agent.id, AgentFile.version < oldest_kept))
    session.flush()
    return objects.unreferenced(session, keys)
