"""Agent moderation: what waits for review (new agents and revisions of live ones), approve, reject.

Each decision is one transaction that starts with its claim (services/decisions.py: a conditional update of
the agent's row, then of the revision's), then writes the vendor's notification (and, for a new version, every
buyer's `update` notification), the mail and the audit entry, so a decision never exists without them and a
request that lost the claim (409) has written none of them. Approving a revision publishes its
values; if its files changed, its file version becomes the one buyers download.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from html import escape
from typing import Any

from sqlalchemy import ColumnElement, String, and_, cast, exists, func, insert, literal
from sqlalchemy import select as sa_select
from sqlmodel import Session, select

from marketplace.db import session_scope
from marketplace.models import (
    Agent,
    AgentFile,
    AgentRevision,
    AgentStatus,
    AgentTag,
    AgentVersion,
    Category,
    Notification,
    NotificationType,
    Purchase,
    RevisionStatus,
    User,
)
from marketplace.models.base import utcnow
from marketplace.services import access, audit, decisions, notifications, scanning
from marketplace.services.errors import Conflict, Invalid, NotFound
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_admin
from marketplace.services.vendors import revisions
from marketplace.services.versions import history, labels, notes
from marketplace.services.versions import objects as version_objects

MAX_REASON = 2000
MAX_PENDING = 200
NOT_FOUND = "Agent not found"
NO_FILES = "An agent without files cannot be approved"
NOTHING_TO_APPROVE = "This agent is live and has no pending changes to approve"
NOTHING_TO_REJECT = "This agent has nothing waiting for review"
REJECTED_WAITS = "This agent was rejected: it can be approved once its vendor submits it again"
DECIDED_MEANWHILE = "This agent was decided or changed by another request at the same moment. Reload to see it."
REASON_TOO_LONG = f"Rejection reason must be at most {MAX_REASON} characters"
APPROVED_TITLE = "Agent approved"
APPROVED_MESSAGE = "Your agent {name} has been approved and is now live."
UPDATE_APPROVED_TITLE = "Agent update approved"
UPDATE_APPROVED_MESSAGE = "The changes to your agent {name} have been approved and are now live."
REJECTED_TITLE = "Agent rejected"
REJECTED_MESSAGE = "Your agent {name} was not approved."
UPDATE_REJECTED_TITLE = "Agent update rejected"
UPDATE_REJECTED_MESSAGE = "The changes to your agent {name} were not approved; the live listing is unchanged."
REASON_SUFFIX = " Reason: {reason}"
BUYER_UPDATE_TITLE = "Update available"
BUYER_UPDATE_MESSAGE = "Version {label} of {name} is available. Download it from your dashboard."
RELEASE_NOTES_HEADING = "Release notes:"
RELEASE_NOTES_SUFFIX = f"\n\n{RELEASE_NOTES_HEADING}\n{{notes}}"
VERSION_MISSING = ("This update changes the agent's files: its vendor must give it a version label and release "
                   "notes before it can be approved")


@dataclass(frozen=True)
class VendorInfo:
    id: str
    username: str
    email: str


@dataclass(frozen=True)
class FileInfo:
    """A file under review: `content_type` is the type its content was found to be when it was attached."""

    id: str
    filename: str
    size_bytes: int
    content_type: str
    scan: scanning.ScanView = scanning.PENDING_VIEW  # what the security scan found (services/scanning)

    @property
    def download_url(self) -> str:
        """The admin-only download of this one file (api/admin/agents.agent_file)."""
        return f"/api/admin/agent-files/{self.id}"


@dataclass(frozen=True)
class FieldChange:
    """A revision's field, live value -> proposed value (a category by its name, tags as a list)."""

    field: str
    old: Any
    new: Any


@dataclass(frozen=True)
class PendingItem:
    """A new agent (`kind` "agent") or a revision of a live one ("revision"), with the values it proposes."""

    kind: str
    agent_id: str
    revision_id: str | None
    name: str
    short_description: str
    description: str
    price_cents: int
    pricing_model: str
    demo_url: str | None
    image_url: str | None
    tags: list[str]
    category_id: int | None
    category_name: str | None
    vendor: VendorInfo | None
    submitted_at: datetime
    file_count: int
    changed_fields: list[str] = field(default_factory=list)  # revisions: what differs from the live listing
    files_added: list[str] = field(default_factory=list)  # revisions: file names
    files_removed: list[str] = field(default_factory=list)
    files: list[FileInfo] = field(default_factory=list)  # of the version under review
    field_changes: list[FieldChange] = field(default_factory=list)  # revisions: `changed_fields`, old -> new
    activation_limit: int | None = None  # machines per licence key; None: unlimited
    # revisions changing files: the new version's label and release notes; new agents: their first version's
    version_label: str | None = None
    current_version_label: str | None = None
    release_notes: str | None = None

    @property
    def release_notes_html(self) -> str | None:
        return notes.render_notes(self.release_notes) if self.release_notes else None
    trial_days: int = 0


@dataclass(frozen=True)
class Decision:
    agent_id: str
    status: str  # the agent's status after the decision
    revision_id: str | None
    current_version: int


def awaits_review() -> ColumnElement[bool]:
    """The one rule for a new agent in the review queue, read by the queue and by every count of it (the admin's
    Approvals tab, the analytics' 'pending approval'): pending, not deleted, and with files of its current version,
    so one created through the API waits for its attach and a half-made one never shows."""
    has_files = exists().where(AgentFile.agent_id == Agent.id, AgentFile.version == Agent.current_version)
    return and_(Agent.status == AgentStatus.PENDING, Agent.deleted_at.is_(None), has_files)


def _files_by(session: Session, pairs: set[tuple[str, int]]) -> dict[tuple[str, int], list[AgentFile]]:
    found: dict[tuple[str, int], list[AgentFile]] = defaultdict(list)
    agent_ids = {agent_id for agent_id, _ in pairs}
    if agent_ids:
        for row in session.exec(select(AgentFile).where(AgentFile.agent_id.in_(agent_ids))
                                .order_by(AgentFile.created_at, AgentFile.id)):
            if (row.agent_id, row.version) in pairs:
                found[(row.agent_id, row.version)].append(row)
    return found


def _tags_by(session: Session, agent_ids: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    if agent_ids:
        for agent_id, tag in session.exec(select(AgentTag.agent_id, AgentTag.tag).where(
                AgentTag.agent_id.in_(agent_ids)).order_by(AgentTag.agent_id, AgentTag.position, AgentTag.tag)):
            found[agent_id].append(tag)
    return found


def list_pending(*, actor: User | None, limit: int = 100, offset: int = 0) -> tuple[list[PendingItem], int]:
    """New agents and revisions waiting for review, oldest first (first come, first reviewed), with the
    number of both on all pages. A revision shows its proposed values and what changed."""
    require_admin(actor)
    check_page(limit=limit, offset=offset, max_limit=MAX_PENDING)
    window = offset + limit
    with session_scope() as session:
        live = (Agent.deleted_at.is_(None),)
        agent_rows = session.execute(
            sa_select(Agent, User.id, User.username, User.email, Category.name)
            .outerjoin(User, User.id == Agent.vendor_id).outerjoin(Category, Category.id == Agent.category_id)
            .where(awaits_review())
            .order_by(Agent.updated_at, Agent.id).limit(window)).all()
        revision_rows = session.execute(
            sa_select(AgentRevision, Agent, User.id, User.username, User.email)
            .join(Agent, Agent.id == AgentRevision.agent_id).outerjoin(User, User.id == Agent.vendor_id)
            .where(AgentRevision.status == RevisionStatus.PENDING, Agent.status == AgentStatus.APPROVED, *live)
            .order_by(AgentRevision.updated_at, AgentRevision.id).limit(window)).all()
        total = session.exec(select(func.count()).select_from(Agent)
                             .where(awaits_review())).one()
        total += session.exec(select(func.count()).select_from(AgentRevision)
                              .join(Agent, Agent.id == AgentRevision.agent_id)
                              .where(AgentRevision.status == RevisionStatus.PENDING,
                                     Agent.status == AgentStatus.APPROVED, *live)).one()
        ids = [row[0].id for row in agent_rows] + [row[1].id for row in revision_rows]
        tags = _tags_by(session, ids)
        pairs = {(a.id, a.current_version) for a, *_ in agent_rows}
        for revision, agent, *_ in revision_rows:
            pairs |= {(agent.id, agent.current_version), (agent.id, revision.version)}
        files = _files_by(session, pairs)
        scans = scanning.views_of(session, {f.storage_key for rows in files.values() for f in rows})
        changed_categories = {revisions.read_changes(r).get("category_id") for r, *_ in revision_rows}
        live_labels = history.labels_by_agent(session, [agent for _, agent, *_ in revision_rows])
        firsts = history.current_rows(session, [agent for agent, *_ in agent_rows])  # new agents' first versions
        category_names = {cid: name for cid, name in session.exec(select(Category.id, Category.name).where(
            Category.id.in_({c for c in changed_categories if isinstance(c, int)} | {
                a.category_id for _, a, *_ in revision_rows if a.category_id is not None}))).all()
            if cid is not None}
        items = [_agent_item(agent, VendorInfo(vid, vname, vmail) if vid else None, category, tags[agent.id],
                             _file_infos(files[(agent.id, agent.current_version)], scans), firsts.get(agent.id))
                 for agent, vid, vname, vmail, category in agent_rows]
        for revision, agent, vid, vname, vmail in revision_rows:
            items.append(_revision_item(revision, agent, VendorInfo(vid, vname, vmail) if vid else None,
                                        tags[agent.id], files[(agent.id, agent.current_version)],
                                        files[(agent.id, revision.version)], category_names, scans,
                                        live_labels.get(agent.id)))
    items.sort(key=lambda item: item.submitted_at)
    return items[offset:window], total


def _file_infos(rows: list[AgentFile], scans: dict[str, scanning.ScanView]) -> list[FileInfo]:
    return [FileInfo(id=f.id, filename=f.filename, size_bytes=f.size_bytes, content_type=f.content_type,
                     scan=scans.get(f.storage_key, scanning.PENDING_VIEW)) for f in rows]


def _agent_item(agent: Agent, vendor: VendorInfo | None, category: str | None, tags: list[str],
                files: list[FileInfo], first: AgentVersion | None = None) -> PendingItem:
    return PendingItem(kind="agent", agent_id=agent.id, revision_id=None, name=agent.name,
                       short_description=agent.short_description, description=agent.description,
                       price_cents=agent.price_cents, pricing_model=agent.pricing_model,
                       activation_limit=agent.activation_limit, trial_days=agent.trial_days,
                       demo_url=agent.demo_url, image_url=agent.image_url, tags=tags,
                       category_id=agent.category_id, category_name=category, vendor=vendor,
                       submitted_at=agent.updated_at, file_count=len(files), files=files,
                       version_label=first.label if first else labels.INITIAL_LABEL,
                       release_notes=first.release_notes if first else None)


def _revision_item(revision: AgentRevision, agent: Agent, vendor: VendorInfo | None, tags: list[str],
                   live_files: list[AgentFile], new_files: list[AgentFile],
                   category_names: dict[int, str], scans: dict[str, scanning.ScanView],
                   live_label: str | None = None) -> PendingItem:
    changes = revisions.read_changes(revision)

    def value(name: str) -> Any:
        return changes.get(name, getattr(agent, name))

    live_keys, new_keys = {f.storage_key for f in live_files}, {f.storage_key for f in new_files}
    category_id = value("category_id")
    changed = revisions.changed_fields(agent, tags, changes)

    def shown(name: str, raw: Any) -> Any:
        return category_names.get(raw) if name == "category_id" and raw is not None else raw

    field_changes = [FieldChange(field=name, old=shown(name, tags if name == "tags" else getattr(agent, name)),
                                 new=shown(name, changes[name])) for name in changed]
    return PendingItem(
        kind="revision", agent_id=agent.id, revision_id=revision.id, name=value("name"),
        short_description=value("short_description"), description=value("description"),
        price_cents=value("price_cents"), pricing_model=value("pricing_model"),
        activation_limit=value("activation_limit"), trial_days=value("trial_days"), demo_url=value("demo_url"),
        image_url=value("image_url"),
        tags=list(changes.get("tags", tags)), category_id=category_id,
        category_name=category_names.get(category_id) if category_id is not None else None, vendor=vendor,
        submitted_at=revision.updated_at, file_count=len(new_files), files=_file_infos(new_files, scans),
        changed_fields=changed, field_changes=field_changes,
        files_added=[f.filename for f in new_files if f.storage_key not in live_keys] if revision.files_changed else [],
        files_removed=[f.filename for f in live_files if f.storage_key not in new_keys] if revision.files_changed
        else [],
        version_label=revision.version_label, current_version_label=live_label, release_notes=revision.release_notes,
    )


def _state(session: Session, agent_id: str) -> tuple[str, int, str | None]:
    """What a decision is about, read before claiming: the agent's status and live version, and the id of its
    pending revision (None when it has none or is not live). Columns only, so no row object read before the
    claim can be mistaken for what the claim acts on."""
    found = None
    if agent_id and len(agent_id) <= 64:
        found = session.exec(select(Agent.status, Agent.current_version)
                             .where(Agent.id == agent_id, Agent.deleted_at.is_(None))).first()
    if found is None:
        raise NotFound(NOT_FOUND)
    status, version = found
    revision_id = session.exec(select(AgentRevision.id).where(
        AgentRevision.agent_id == agent_id, AgentRevision.status == RevisionStatus.PENDING)).first() \
        if status == AgentStatus.APPROVED else None
    return status, version, revision_id


def _claim_agent(session: Session, agent_id: str, *, status: str, version: int, values: dict[str, Any]) -> Agent:
    """The decision's first write: the agent is still as read (status, live version, not deleted), else 409.
    Vendors' changes to the agent claim the same row first (services/vendors/revisions.claim_agent), so from
    here to the commit nothing else changes the agent, its files or its revision. Answers the row, read now."""
    decisions.claim(session, Agent, Agent.id == agent_id, Agent.status == status, Agent.current_version == version,
                    Agent.deleted_at.is_(None), values=values, conflict=DECIDED_MEANWHILE)
    return session.exec(select(Agent).where(Agent.id == agent_id)).one()


def _claim_revision(session: Session, revision_id: str, *, status: str, values: dict[str, Any]) -> AgentRevision:
    decisions.claim(session, AgentRevision, AgentRevision.id == revision_id,
                    AgentRevision.status == RevisionStatus.PENDING, values={"status": status, **values},
                    conflict=DECIDED_MEANWHILE)
    return session.exec(select(AgentRevision).where(AgentRevision.id == revision_id)).one()


def buyer_update_message(*, name: str, label: str, release_notes: str) -> str:
    """The buyers' 'Update available' text: the new version's label and its release notes as readable plain text
    (the notification and the mail's text part show no Markdown marks)."""
    message = BUYER_UPDATE_MESSAGE.format(label=label, name=name)
    text = notes.notes_text(release_notes)
    return message + (RELEASE_NOTES_SUFFIX.format(notes=text) if text else "")


def buyer_update_html(*, name: str, label: str, release_notes: str) -> str:
    """The same as safe HTML, the mail's HTML part: the notes rendered from Markdown (services/versions/notes)."""
    html = f"<p>{escape(BUYER_UPDATE_MESSAGE.format(label=label, name=name))}</p>"
    rendered = notes.render_notes(release_notes)
    return html + (f"\n<p>{escape(RELEASE_NOTES_HEADING)}</p>\n{rendered}" if rendered else "")


def _notify_buyers(session: Session, agent: Agent, revision: AgentRevision) -> int:
    """One `update` notification per buyer of the agent, in one INSERT ... SELECT (no query per buyer), with the
    new version's label and release notes, as is the mail."""
    label, release_notes = revision.version_label or labels.INITIAL_LABEL, revision.release_notes or ""
    message = buyer_update_message(name=agent.name, label=label, release_notes=release_notes)
    table = Notification.__table__
    dialect = session.get_bind().dialect.name
    new_id = (func.replace(cast(func.gen_random_uuid(), String), "-", "") if dialect == "postgresql"
              else func.lower(func.hex(func.randomblob(16))))
    buyers = (sa_select(Purchase.user_id).join(User, User.id == Purchase.user_id)
              .where(Purchase.agent_id == agent.id, access.active(), User.deleted_at.is_(None))
              .distinct().subquery())
    rows = sa_select(new_id, buyers.c.user_id, literal(NotificationType.UPDATE.value, table.c.type.type),
                     literal(BUYER_UPDATE_TITLE, table.c.title.type),
                     literal(message, table.c.message.type),
                     literal(False, table.c.is_read.type), literal(utcnow(), table.c.created_at.type))
    result = session.execute(insert(table).from_select(
        ["id", "user_id", "type", "title", "message", "is_read", "created_at"], rows))
    notifications.email_users(session, user_ids=list(session.execute(sa_select(buyers.c.user_id)).scalars()),
                              type=NotificationType.UPDATE, title=BUYER_UPDATE_TITLE, message=message,
                              message_html=buyer_update_html(name=agent.name, label=label,
                                                             release_notes=release_notes))
    return decisions.row_count(result)


def _check_scans(session: Session, agent_id: str, version: int) -> None:
    """409 unless every file going live has a verdict an admin may approve (services/scanning/views.py: infected
    never, pending or error not yet), holding those verdicts until the approval commits."""
    refusal = scanning.approval_refusal(session, {f.storage_key: f.filename
                                                  for f in version_objects.files_of(session, agent_id, version)})
    if refusal:
        raise Conflict(refusal)


def _check_version(session: Session, agent: Agent, revision: AgentRevision) -> None:
    """409 unless a revision that changes files carries its label (still greater than the live one) and notes:
    files can change through `PUT /api/agent-files` alone, after the vendor's last edit."""
    label, text = revision.version_label, (revision.release_notes or "").strip()
    if not label or not text or not labels.is_label(label):
        raise Conflict(VERSION_MISSING)
    live = history.live_label(session, agent)
    if labels.parse_label(label) <= labels.parse_label(live):
        raise Conflict(labels.LABEL_NOT_GREATER.format(live=live))


def approve(*, actor: User | None, agent_id: str) -> Decision:
    """Approve a pending agent, or the pending revision of a live one (see the module text). 409 when what
    would go live has no files, or when the agent is not waiting for this (another decision came first, or it
    was rejected: a rejected agent comes back for review when its vendor edits it)."""
    admin = require_admin(actor)
    now = utcnow()
    orphans: list[str] = []
    with session_scope() as session:
        status, version, revision_id = _state(session, agent_id)
        if status == AgentStatus.REJECTED:
            raise Conflict(REJECTED_WAITS)
        if status != AgentStatus.APPROVED:
            agent = _claim_agent(session, agent_id, status=status, version=version, values={
                "status": AgentStatus.APPROVED, "rejection_reason": None, "reviewed_at": now, "updated_at": now})
            if revisions.count_files(session, agent.id, agent.current_version) == 0:
                raise Conflict(NO_FILES)
            _check_scans(session, agent.id, agent.current_version)
            history.release_first(session, agent, released_at=now)
            if agent.vendor_id:
                notifications.notify(session, user_id=agent.vendor_id, type=NotificationType.APPROVAL,
                                     title=APPROVED_TITLE, message=APPROVED_MESSAGE.format(name=agent.name))
            audit.record(session, actor=admin, action="agent.approve", target_type="agent", target_id=agent.id,
                         details={"name": agent.name})
            return Decision(agent_id=agent.id, status=agent.status, revision_id=None,
                            current_version=agent.current_version)
        if revision_id is None:
            raise Conflict(NOTHING_TO_APPROVE)
        released_before = session.exec(select(Agent.reviewed_at).where(Agent.id == agent_id)).first()
        agent = _claim_agent(session, agent_id, status=status, version=version,
                             values={"reviewed_at": now, "updated_at": now})
        revision = _claim_revision(session, revision_id, status=RevisionStatus.APPROVED,
                                   values={"reviewed_at": now, "updated_at": now, "decided_by": admin.id})
        if revision.files_changed and revisions.count_files(session, agent.id, revision.version) == 0:
            raise Conflict(NO_FILES)
        if revision.files_changed:
            _check_scans(session, agent.id, revision.version)
            _check_version(session, agent, revision)
        revisions.apply_changes(session, agent, revisions.read_changes(revision))
        if revision.files_changed:
            # A new version: recorded with its label and notes; the two before it stay downloadable, older
            # versions' rows go, and their objects once no download holds them (services/versions/history.py).
            orphans = history.publish(session, agent, revision, released_before=released_before)
            agent.current_version = revision.version
            _notify_buyers(session, agent, revision)
        else:
            revisions.drop_version(session, agent.id, revision.version)  # copies only: no object loses its last row
        session.add(agent)
        if agent.vendor_id:
            notifications.notify(session, user_id=agent.vendor_id, type=NotificationType.APPROVAL,
                                 title=UPDATE_APPROVED_TITLE, message=UPDATE_APPROVED_MESSAGE.format(name=agent.name))
        audit.record(session, actor=admin, action="agent.approve", target_type="agent", target_id=agent.id,
                     details={"name": agent.name, "revisionId": revision.id, "version": agent.current_version,
                                                     "versionLabel": revision.version_label})
        decision = Decision(agent_id=agent.id, status=agent.status, revision_id=revision.id,
                            current_version=agent.current_version)
    version_objects.delete_objects(orphans)
    return decision


def clean_reason(reason: str | None) -> str | None:
    """Trimmed; empty -> None (spec: sent as absent if empty)."""
    text = (reason or "").strip()
    if len(text) > MAX_REASON:
        raise Invalid(REASON_TOO_LONG, field="rejectionReason")
    return text or None


def reject(*, actor: User | None, agent_id: str, rejection_reason: str | None = None) -> Decision:
    """Reject a pending agent (it becomes rejected) or a live agent's pending revision (dropped; the live
    listing stays). The vendor is notified, with the reason when one is given. 409 when another decision on
    the agent came first."""
    admin = require_admin(actor)
    reason = clean_reason(rejection_reason)
    suffix = REASON_SUFFIX.format(reason=reason) if reason else ""
    now = utcnow()
    orphans: list[str] = []
    with session_scope() as session:
        status, version, revision_id = _state(session, agent_id)
        if status == AgentStatus.PENDING:
            agent = _claim_agent(session, agent_id, status=status, version=version, values={
                "status": AgentStatus.REJECTED, "rejection_reason": reason, "reviewed_at": now, "updated_at": now})
            title, message = REJECTED_TITLE, REJECTED_MESSAGE.format(name=agent.name) + suffix
        else:
            if revision_id is None:
                raise Conflict(NOTHING_TO_REJECT)
            # The live listing does not change: the agent's row is claimed as it is (see `_claim_agent`).
            agent = _claim_agent(session, agent_id, status=status, version=version,
                                 values={"current_version": Agent.current_version})
            revision = _claim_revision(session, revision_id, status=RevisionStatus.REJECTED, values={
                "rejection_reason": reason, "reviewed_at": now, "updated_at": now, "decided_by": admin.id})
            orphans = revisions.drop_version(session, agent.id, revision.version)
            title, message = UPDATE_REJECTED_TITLE, UPDATE_REJECTED_MESSAGE.format(name=agent.name) + suffix
        if agent.vendor_id:
            notifications.notify(session, user_id=agent.vendor_id, type=NotificationType.REJECTION, title=title,
                                 message=message)
        audit.record(session, actor=admin, action="agent.reject", target_type="agent", target_id=agent.id,
                     details={"name": agent.name, "revisionId": revision_id, "reason": reason})
        decision = Decision(agent_id=agent.id, status=agent.status, revision_id=revision_id,
                            current_version=agent.current_version)
    version_objects.delete_objects(orphans)
    return decision
