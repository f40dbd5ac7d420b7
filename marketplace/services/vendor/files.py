"""Attaching uploaded files to a vendor's agent, and removing them (`PUT /api/agent-files`, the wizard).

Nothing uploaded is trusted: the URL must name a key the app issued to this vendor (services/uploads
`claim`), and the object's real size (HEAD) and type (its first bytes, services/filetypes) are checked
here, with the per-version file count. Any refusal after the claim deletes the upload (object and row):
nothing is attached and nothing is left behind. A refusal of the claim itself (not issued, another
vendor's key, expired, already attached) leaves the object alone: it is not this vendor's to delete, or
the sweep of expired uploads removes it.

Which version a change goes to: a pending or rejected agent's current version (a rejected agent goes back
to pending); an approved agent's pending revision (created, with copies of the live files, on the first
change), so buyers keep the live files until an admin approves.
"""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import ObjectNotFound, get_storage
from marketplace.models import Agent, AgentFile, AgentStatus, Upload, User
from marketplace.models.base import new_id, utcnow
from marketplace.services import filetypes, uploads
from marketplace.services.errors import Conflict, DomainError, Invalid, NotFound
from marketplace.services.permissions import require_vendor
from marketplace.services.vendor import revisions
from marketplace.services.vendor.revisions import FileInfo, file_info, own_agent

FILE_NOT_FOUND = "File not found"
OBJECT_MISSING = "The uploaded file was not found in storage. Please upload it again."
TOO_MANY_FILES = "An agent can have at most {n} files"
TOO_LARGE = "File is too large: {size} bytes. The limit is {limit} bytes ({mb} MB) per file."

__all__ = ["FileInfo", "attach_file", "remove_file"]


class _Refused(Exception):
    """A refusal after the upload was claimed: carries the error and the key to discard."""

    def __init__(self, error: DomainError, key: str) -> None:
        super().__init__(error.message)
        self.error = error
        self.key = key


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


def _freeze(upload: Upload, agent_id: str, moved: list[tuple[str, str]]) -> str:
    """Move the object to a key no upload URL names, so what is checked next can no longer be replaced
    (an S3 presigned URL stays valid until it expires, whatever the app records)."""
    key = f"agents/{agent_id}/{new_id()}"
    try:
        get_storage().move(upload.key, key)
    except ObjectNotFound:
        raise Invalid(OBJECT_MISSING, field="agentFileURL") from None
    moved.append((upload.key, key))
    return key


def _check_object(key: str, filename: str) -> tuple[int, filetypes.FileKind]:
    storage = get_storage()
    size = storage.head(key)
    if size is None:
        raise Invalid(OBJECT_MISSING, field="agentFileURL")
    limit = settings.upload_max_file_bytes
    if size > limit:
        raise Invalid(TOO_LARGE.format(size=size, limit=limit, mb=round(limit / 1_048_576, 1)),
                      field="agentFileURL")
    prefix = storage.read_prefix(key, filetypes.SNIFF_BYTES)
    return size, filetypes.judge(filename, prefix, size=size)


def _attach(session: Session, *, vendor: User, agent_id: str, upload: Upload,
            moved: list[tuple[str, str]]) -> FileInfo:
    agent = own_agent(session, vendor=vendor, agent_id=agent_id)
    key = _freeze(upload, agent.id, moved)
    size, kind = _check_object(key, upload.filename or "")
    version = _target_version(session, agent, vendor)
    limit = settings.upload_max_files_per_agent
    if revisions.count_files(session, agent.id, version) >= limit:
        raise Invalid(TOO_MANY_FILES.format(n=limit), field="agentFileURL")
    content_type = upload.content_type if upload.content_type not in ("", "application/octet-stream") \
        else kind.content_type
    row = AgentFile(agent_id=agent.id, version=version, storage_key=key,
                    filename=(upload.filename or f"file.{kind.kind}")[:255], size_bytes=size,
                    content_type=content_type[:255])
    session.add(row)
    upload.attached_at = utcnow()
    session.add(upload)
    session.flush()
    return file_info(row)


def _discard(vendor: User, key: str) -> None:
    with session_scope() as session:
        upload = session.exec(select(Upload).where(Upload.key == key, Upload.vendor_id == vendor.id,
                                                   Upload.attached_at.is_(None))).first()
        if upload is not None:
            uploads.discard(session, upload=upload)


def attach_file(*, actor: User | None, agent_id: str, file_url: str) -> FileInfo:
    """Attach the upload at `file_url` to the actor's agent (see the module text for the checks)."""
    vendor = require_vendor(actor)
    moved: list[tuple[str, str]] = []  # (upload key, stored key) once the object has moved
    try:
        with session_scope() as session:
            upload = uploads.claim(session, vendor=vendor, url=file_url)
            try:
                return _attach(session, vendor=vendor, agent_id=agent_id, upload=upload, moved=moved)
            except DomainError as error:
                raise _Refused(error, upload.key) from error
    except _Refused as refused:
        for _, stored in moved:
            get_storage().delete(stored)
        _discard(vendor, refused.key)
        raise refused.error from None
    except IntegrityError as error:  # a concurrent first change opened the revision: the upload stays for a retry
        for upload_key, stored in moved:
            get_storage().move(stored, upload_key)
        raise Conflict(revisions.CONCURRENT_CHANGE) from error


def remove_file(*, actor: User | None, file_id: str) -> None:
    """Remove a file from what the actor's agent will publish next (never from a live version)."""
    vendor = require_vendor(actor)
    revisions.delete_objects(_remove(vendor, file_id))


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
        return revisions.unreferenced(session, [key])
