"""A vendor's own agents: the dashboard list (every status), creating and editing them.

Lifecycle (ARCHITECTURE "Vendor and admin decisions"): a new agent is pending; a pending or rejected agent
is edited in place and goes (back) to pending; an approved agent's edits wait in its one pending revision
(services/vendors/revisions.py) and the live listing stays as it is until an admin approves them.
The public catalogue needs no explicit refresh: its version (catalog_version) moves by database trigger
in the same commit as any change to what it shows.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import select as sql_select
from sqlalchemy import update
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import Agent, AgentFile, AgentRevision, AgentStatus, Category, RevisionStatus, User
from marketplace.models.base import utcnow
from marketplace.services import money, scanning
from marketplace.services.permissions import require_vendor
from marketplace.services.plans import limits
from marketplace.services.vendors import revisions
from marketplace.services.vendors.drafts import UNLIMITED, AgentDraft, clean_draft
from marketplace.services.vendors.revisions import FileInfo, file_info, own_agent
from marketplace.services.versions import history, labels
from marketplace.services.versions import objects as version_objects


@dataclass(frozen=True)
class RevisionSummary:
    id: str
    version: int
    files_changed: bool
    created_at: datetime
    updated_at: datetime
    version_label: str | None = None  # the new version's label, once given (revisions changing files)


@dataclass(frozen=True)
class VendorAgent:
    id: str
    name: str
    short_description: str
    price_cents: int
    pricing_model: str
    status: str
    rejection_reason: str | None
    category_id: int | None
    category_name: str | None
    image_url: str | None
    avg_rating: float
    review_count: int
    sales_count: int
    created_at: datetime
    updated_at: datetime
    current_version: int = 1
    trial_days: int = 0
    pending_revision: RevisionSummary | None = None
    file_count: int = 0  # files of the version the next approval would publish (else the live ones)
    # The latest decided revision was rejected (and no new one is pending): the admin's reason, else None.
    revision_rejection: str | None = None
    # The live version's label (not yet live: the label its first version will have when approved).
    version_label: str = labels.INITIAL_LABEL
    # The security scan of each of those `file_count` files: (file name, its scan), in name order.
    file_scans: list[tuple[str, scanning.ScanView]] = field(default_factory=list)

    @property
    def has_pending_revision(self) -> bool:
        return self.pending_revision is not None


@dataclass(frozen=True)
class EditableAgent:
    """An agent as its vendor edits it: the pending revision's values if any, else the agent's."""

    id: str
    status: str
    has_pending_revision: bool
    draft: AgentDraft
    files: list[FileInfo] = field(default_factory=list)
    current_version_label: str | None = None  # a live agent's live version


def _version(session: Session, agent: Agent, revision: AgentRevision, draft: AgentDraft) -> None:
    """A revision that changes files needs its version's label (greater than the live one) and release notes:
    the draft's, else those the revision already has; 400 otherwise."""
    live = history.live_label(session, agent)
    label = draft.version_label if draft.version_label is not None else revision.version_label
    text = draft.release_notes if draft.release_notes is not None else revision.release_notes
    revision.version_label = labels.clean_label(label, live=live)
    revision.release_notes = labels.clean_notes(text)


def check_first_version(draft: AgentDraft) -> tuple[str, str]:
    """A new agent's first version label (default `INITIAL_LABEL`) and release notes (optional), or 400."""
    return labels.clean_first_label(draft.version_label), labels.clean_first_notes(draft.release_notes)


def list_own_agents(*, actor: User | None) -> list[VendorAgent]:
    """The actor's agents that are not deleted, newest first, each with its pending revision, version label and
    the files the next approval would publish (else the live ones) with their scans."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        rows = session.execute(
            sql_select(Agent.id, Agent.name, Agent.short_description, Agent.price_cents, Agent.pricing_model,
                       Agent.status, Agent.rejection_reason, Agent.category_id, Category.name.label("category_name"),
                       Agent.image_url, Agent.avg_rating, Agent.review_count, Agent.sales_count, Agent.created_at,
                       Agent.updated_at, Agent.current_version, Agent.trial_days)
            .outerjoin(Category, Category.id == Agent.category_id)
            .where(Agent.vendor_id == vendor.id, Agent.deleted_at.is_(None))
            .order_by(Agent.created_at.desc(), Agent.id.desc())).all()
        ids = [row[0] for row in rows]
        pending = {
            r.agent_id: RevisionSummary(id=r.id, version=r.version, files_changed=r.files_changed,
                                        created_at=r.created_at, updated_at=r.updated_at,
                                        version_label=r.version_label if r.files_changed else None)
            for r in session.exec(select(AgentRevision).where(AgentRevision.agent_id.in_(ids),
                                                              AgentRevision.status == RevisionStatus.PENDING))
        } if ids else {}
        rejected: dict[str, str] = {}
        if ids:
            latest: set[str] = set()
            for agent_id, status, reason in session.exec(
                    select(AgentRevision.agent_id, AgentRevision.status, AgentRevision.rejection_reason)
                    .where(AgentRevision.agent_id.in_(ids), AgentRevision.status != RevisionStatus.PENDING)
                    .order_by(AgentRevision.updated_at.desc(), AgentRevision.version.desc())):
                if agent_id in latest:
                    continue
                latest.add(agent_id)
                if status == RevisionStatus.REJECTED and agent_id not in pending:
                    rejected[agent_id] = reason or ""
        shown = {row.id: pending[row.id].version if row.id in pending else row.current_version for row in rows}
        files: dict[str, list[tuple[str, str]]] = defaultdict(list)  # of the version shown: (name, key)
        if ids:
            for agent_id, version, filename, key in session.exec(
                    select(AgentFile.agent_id, AgentFile.version, AgentFile.filename, AgentFile.storage_key)
                    .where(AgentFile.agent_id.in_(ids)).order_by(AgentFile.filename, AgentFile.id)):
                if shown[agent_id] == version:
                    files[agent_id].append((filename, key))
        scans = scanning.views_of(session, {key for pairs in files.values() for _, key in pairs})
        live_labels = history.labels_at(session, {row.id: row.current_version for row in rows})
    agents = []
    for row in rows:
        shown_files = files.get(row.id, [])
        agents.append(VendorAgent(**row._asdict(), pending_revision=pending.get(row.id),  # columns named as fields
                                  file_count=len(shown_files), revision_rejection=rejected.get(row.id),
                                  version_label=live_labels.get(row.id, labels.INITIAL_LABEL),
                                  file_scans=[(name, scans[key]) for name, key in shown_files]))
    return agents


def create_agent(*, actor: User | None, draft: AgentDraft) -> str:
    """A new agent of the actor, pending review; answers its id. Refused (403) at the plan's agent limit,
    counted under the vendor's plan row lock so that submissions at the same moment never go over."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        limits.lock_submissions(session, vendor)
        clean = clean_draft(session, draft)
        label, notes = check_first_version(draft)
        agent = Agent(vendor_id=vendor.id, status=AgentStatus.PENDING, **clean.values())
        session.add(agent)
        session.flush()
        if clean.activation_limit is None:  # an INSERT leaves out None, so the column's default (3) would apply
            session.exec(update(Agent).where(Agent.id == agent.id).values(activation_limit=None))
        limits.check_room(session, vendor)
        revisions.replace_tags(session, agent.id, clean.tags)
        history.set_first_version(session, agent, label=label, release_notes=notes)
        return agent.id


def update_agent(*, actor: User | None, agent_id: str, draft: AgentDraft, files_change: bool = False) -> None:
    """Edit the actor's agent: pending/rejected -> updated in place, (back) to pending; approved -> the
    values go into its pending revision and the live listing is unchanged until an admin approves. When the
    revision changes files (or `files_change`: the caller attaches files next), it needs a version label and
    release notes (400 without, services/versions/labels.py).
    409 when the agent changed (e.g. was decided) between reading it and claiming it; a rejected agent sent
    back to review counts against the plan's agent limit again (403 at the limit)."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        agent = own_agent(session, vendor=vendor, agent_id=agent_id)
        pending = revisions.pending_revision(session, agent) if agent.status == AgentStatus.APPROVED else None
        # A draft that names no pricing model or activation limit keeps the one the vendor last chose (the
        # revision's, else the live).
        proposed = revisions.read_changes(pending) if pending else {}
        clean = clean_draft(session, draft, current_model=proposed.get("pricing_model", agent.pricing_model),
                            current_limit=proposed.get("activation_limit", agent.activation_limit),
                            current_trial_days=int(proposed.get("trial_days", agent.trial_days)))
        if agent.status == AgentStatus.APPROVED:
            changes = {**clean.values(), "tags": list(clean.tags)}
            live_tags = revisions.agent_tags(session, agent.id)
            if pending is None and not files_change and not revisions.changed_fields(
                    agent, live_tags, changes):
                return  # saved without changes: nothing to claim, no revision to review
            revisions.claim_agent(session, agent)
            revision = revisions.open_revision(session, agent, vendor_id=vendor.id)
            revisions.write_changes(revision, changes)
            if files_change or revision.files_changed:  # else a label means nothing: no new version
                _version(session, agent, revision, draft)
            session.add(revision)
            return
        # Not live yet: the first version's label and notes are edited in place (left out: kept as they are).
        first_label = labels.clean_first_label(draft.version_label) if draft.version_label is not None else None
        first_notes = labels.clean_first_notes(draft.release_notes) if draft.release_notes is not None else None
        resubmitted = agent.status == AgentStatus.REJECTED  # counted again against the plan's agent limit
        if resubmitted:
            limits.lock_submissions(session, vendor)
        revisions.claim_agent(session, agent, {**clean.values(), "status": AgentStatus.PENDING,
                                               "rejection_reason": None, "updated_at": utcnow()})
        if resubmitted:
            limits.check_room(session, vendor)
        revisions.replace_tags(session, agent.id, clean.tags)
        if first_label is not None or first_notes is not None:
            history.set_first_version(session, agent, label=first_label, release_notes=first_notes)


def _draft_of(agent: Agent, tags: list[str], changes: dict[str, Any]) -> AgentDraft:
    def value(name: str) -> Any:  # a checked change, or the live column
        return changes.get(name, getattr(agent, name))

    price = value("price_cents")
    return AgentDraft(
        name=str(value("name")), short_description=str(value("short_description")),
        description=str(value("description")), price=money.format_cents(int(price)),
        category_id=value("category_id"), demo_url=value("demo_url"), image_url=value("image_url"),
        tags=list(changes.get("tags", tags)),
        pricing_model=str(value("pricing_model")),
        activation_limit=limit if isinstance(limit := value("activation_limit"), int) else UNLIMITED,
        trial_days=int(value("trial_days")),
    )


def get_editable_agent(*, actor: User | None, agent_id: str) -> EditableAgent:
    """The actor's agent prefilled for the wizard, with the files the next approval would publish."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        agent = own_agent(session, vendor=vendor, agent_id=agent_id)
        revision = revisions.pending_revision(session, agent) if agent.status == AgentStatus.APPROVED else None
        changes = revisions.read_changes(revision) if revision else {}
        version = revision.version if revision else agent.current_version
        rows = version_objects.files_of(session, agent.id, version)
        scans = scanning.views_of(session, {row.storage_key for row in rows})
        files = [file_info(row, scans) for row in rows]
        draft = _draft_of(agent, revisions.agent_tags(session, agent.id), changes)
        if revision is not None:
            draft = replace(draft, version_label=revision.version_label, release_notes=revision.release_notes)
        elif agent.status != AgentStatus.APPROVED and (first := history.first_version(session, agent)):
            draft = replace(draft, version_label=first.label, release_notes=first.release_notes)
        live = history.live_label(session, agent) if agent.status == AgentStatus.APPROVED else None
        return EditableAgent(id=agent.id, status=agent.status, has_pending_revision=revision is not None,
                             draft=draft, files=files, current_version_label=live)
