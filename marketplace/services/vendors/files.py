"""Attaching uploaded files to a vendor's agent, and removing them (`PUT /api/agent-files`, the wizard).

Nothing uploaded is trusted. An attach, in order:
1. checks the agent is the vendor's (a refusal here drops the vendor's upload: nothing is attached and
   nothing is left behind);
2. claims the upload with one conditional update (services/uploads/claims.py): issued to this vendor,
   finished, unexpired, not claimed by another attach. A refused claim changes nothing: the same upload
   sent to two agents at once attaches once, the other answers 409;
3. moves the object to a key no upload URL names (an S3 presigned URL stays valid until it expires,
   whatever the app records), then checks it whole (services/filetypes `check_object`: name, size,
   content); the type stored is the one found there, never the browser's;
4. records the file and marks the upload attached in one transaction, which claims the agent
   (revisions.claim_agent) before it counts the version's files, so attaches sent together cannot pass the
   per-agent limit.
A refusal after the claim drops the upload (objects and row); a conflict or an unexpected error gives the
claim back (the object returns under its upload key, ready for a retry). Caps hold throughout: a claimed
upload counts as open until it is attached or dropped.

Which version a change goes to: a pending or rejected agent's current version (a rejected agent goes back
to pending); an approved agent's pending revision (created, with copies of the live files, on the first
change), so buyers keep the live files until an admin approves.
"""

from __future__ import annotations

import logging

from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import ObjectNotFound, get_storage
from marketplace.models import Agent, AgentFile, AgentStatus, User
from marketplace.models.base import new_id, utcnow
from marketplace.services import filetypes, scanning, uploads
from marketplace.services.errors import Conflict, DomainError, Invalid, NotFound
from marketplace.services.permissions import require_vendor
from marketplace.services.vendors import revisions
from marketplace.services.vendors.revisions import FileInfo, file_info, own_agent
from marketplace.services.versions import objects as version_objects

FILE_NOT_FOUND = "File not found"
TOO_MANY_FILES = "An agent can have at most {n} files"

__all__ = ["FileInfo", "attach_file", "remove_file"]
log = logging.getLogger(__name__)


def _target_version(session: Session, agent: Agent, vendor: User) -> int:
    """Claim the agent for the change (revisions.claim_agent: 409 if it changed since it was read) and
    answer the version the change goes to (see the module text); marks what the change means."""
    if agent.status == AgentStatus.APPROVED:
        revisions.claim_agent(session, agent)
        revision = revisions.open_revision(session, agent, vendor_id=vendor.id)
        revision.files_changed = True
        revision.updated_at = utcnow()
        session.add(revision)
        return revision.version
    revisions.claim_agent(session, agent, {"status": AgentStatus.PENDING, "rejection_reason": None,
                                           "updated_at": utcnow()})
    return agent.current_version


def _record(vendor: User, agent_id: str, claimed: uploads.Claimed, size: int, kind: filetypes.FileKind) -> FileInfo:
    """Step 4 of the module text: the file's row, within the per-agent limit, and the upload attached."""
    with session_scope() as session:
        uploads.finish(session, claimed)  # the first write: see its docstring
        agent = own_agent(session, vendor=vendor, agent_id=agent_id)
        version = _target_version(session, agent, vendor)
        limit = settings.upload_max_files_per_agent
        if revisions.count_files(session, agent.id, version) >= limit:
            raise Invalid(TOO_MANY_FILES.format(n=limit), field="agentFileURL")
        name = claimed.filename or f"file.{kind.kind}"
        row = AgentFile(agent_id=agent.id, version=version, storage_key=claimed.stored_key, filename=name[:255],
                        size_bytes=size, content_type=kind.content_type)
        session.add(row)
        scanning.enqueue(session, [row.storage_key])  # scanned off the request, once this commits
        session.flush()
        return file_info(row)


def _check_and_record(vendor: User, agent_id: str, claimed: uploads.Claimed) -> FileInfo:
    storage = get_storage()
    try:
        storage.move(claimed.key, claimed.stored_key)
    except ObjectNotFound:
        raise Invalid(filetypes.OBJECT_MISSING, field="agentFileURL") from None
    kind = filetypes.check_object(key=claimed.stored_key, filename=claimed.filename)
    size = storage.head(claimed.stored_key)
    if size is None:
        raise Invalid(filetypes.OBJECT_MISSING, field="agentFileURL")
    return _record(vendor, agent_id, claimed, size, kind)


def attach_file(*, actor: User | None, agent_id: str, file_url: str) -> FileInfo:
    """Attach the upload at `file_url` to the actor's agent (see the module text for the steps)."""
    vendor = require_vendor(actor)
    try:
        with session_scope() as session:
            agent = own_agent(session, vendor=vendor, agent_id=agent_id)
    except DomainError:
        uploads.drop_unclaimed(vendor=vendor, url=file_url)
        raise
    claimed = uploads.claim(vendor=vendor, url=file_url, stored_key=f"agents/{agent.id}/{new_id()}")
    try:
        return _check_and_record(vendor, agent.id, claimed)
    except Conflict:
        uploads.release(claimed)
        raise
    except DomainError:
        uploads.drop(claimed)
        raise
    except BaseException:
        _release_quietly(claimed)
        raise


def _release_quietly(claimed: uploads.Claimed) -> None:
    """Give the claim back after an unexpected error, which stays the one reported (if this fails too, the
    claimed upload expires and the sweep removes it with both of its objects)."""
    try:
        uploads.release(claimed)
    except Exception:  # the original error is the one to raise
        log.exception("could not give back the claim on %s", claimed.key)


def remove_file(*, actor: User | None, file_id: str) -> None:
    """Remove a file from what the actor's agent will publish next (never from a live version)."""
    vendor = require_vendor(actor)
    version_objects.delete_objects(_remove(vendor, file_id))


def _remove(vendor: User, file_id: str) -> list[str]:
    with session_scope() as session:
        agent_id = session.exec(select(AgentFile.agent_id).where(AgentFile.id == file_id)).first() \
            if file_id and len(file_id) <= 64 else None
        if agent_id is None:
            raise NotFound(FILE_NOT_FOUND)
        agent = own_agent(session, vendor=vendor, agent_id=agent_id)
        version = _target_version(session, agent, vendor)
        row = session.get(AgentFile, file_id)  # read after the claim: what the change acts on
        if row is None:
            raise NotFound(FILE_NOT_FOUND)
        if row.version != version:
            # An id of the live version, whose copy in the revision is what goes.
            copy = None
            if row.version == agent.current_version:
                copy = session.exec(select(AgentFile).where(
                    AgentFile.agent_id == agent.id, AgentFile.version == version,
                    AgentFile.storage_key == row.storage_key)).first()
            if copy is None:
                raise NotFound(FILE_NOT_FOUND)
            row = copy
        key = row.storage_key
        session.delete(row)
        session.flush()
        return version_objects.unreferenced(session, [key])
