"""Submitting a new agent with its files as one unit, and checking an upload as soon as it finishes.

The wizard used to create the agent, then attach its files one by one: a refused file left a pending agent
with no files in the vendor's list and in the admin queue. Here every file is checked before the agent exists
(the same whole check attach makes: services/filetypes `check_object`), then the agent is created and the
files attached; if an attach still fails (the object changed after its check), the new agent goes again and
the files attached to it become open uploads again, so a failed submit leaves nothing half-made behind.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete
from sqlmodel import select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentFile, AgentTag, User
from marketplace.services import filetypes, uploads
from marketplace.services.errors import DomainError, Invalid
from marketplace.services.permissions import require_vendor
from marketplace.services.vendors import agents, files, revisions
from marketplace.services.vendors.drafts import AgentDraft, clean_draft

FILE_REQUIRED = "Please upload at least one agent file before submitting."
FIELD = "agentFileURL"


class RefusedFile(Invalid):
    """A file the submit or the upload check refused: names the upload, so the widget can mark that file."""

    def __init__(self, message: str, *, url: str, filename: str) -> None:
        super().__init__(message, field=FIELD)
        self.url = url
        self.filename = filename


@dataclass(frozen=True)
class CheckedUpload:
    url: str
    filename: str
    size_bytes: int
    content_type: str


def check_upload(*, actor: User | None, file_url: str) -> CheckedUpload:
    """Check the actor's finished upload at `file_url` as attach will (name, real size, content) without
    attaching it. A refused file is deleted (it could never be attached) and raises RefusedFile."""
    vendor = require_vendor(actor)
    upload = uploads.claimable(vendor=vendor, url=file_url)
    try:
        kind = filetypes.check_object(key=upload.key, filename=upload.filename)
    except DomainError as error:
        uploads.drop_unclaimed(vendor=vendor, url=file_url)
        raise RefusedFile(error.message, url=file_url, filename=upload.filename) from error
    size = get_storage().head(upload.key) or 0
    return CheckedUpload(url=file_url, filename=upload.filename, size_bytes=size, content_type=kind.content_type)


def submit_agent(*, actor: User | None, draft: AgentDraft,
                 file_urls: list[str]) -> tuple[str, list[revisions.FileInfo]]:
    """Create the actor's agent, pending review, with the uploads at `file_urls` attached; answers its id and
    files. Nothing is created unless the draft and every file pass, and at least one file is required."""
    vendor = require_vendor(actor)
    urls = list(dict.fromkeys(u for u in file_urls if u))
    if not urls:
        raise Invalid(FILE_REQUIRED, field=FIELD)
    limit = settings.upload_max_files_per_agent
    if len(urls) > limit:
        raise Invalid(files.TOO_MANY_FILES.format(n=limit), field=FIELD)
    with session_scope() as session:
        clean_draft(session, draft)  # the fields' refusals come first, as the wizard's steps do
    agents.check_first_version(draft)
    checked = [check_upload(actor=vendor, file_url=url) for url in urls]
    agent_id = agents.create_agent(actor=vendor, draft=draft)
    attached: list[revisions.FileInfo] = []
    try:
        for upload in checked:
            attached.append(_attach(vendor, agent_id, upload))
    except BaseException:
        _discard_new_agent(agent_id)
        raise
    return agent_id, attached


def submit_changes(*, actor: User | None, agent_id: str, draft: AgentDraft,
                   file_urls: list[str]) -> list[revisions.FileInfo]:
    """Edit the actor's agent (services/vendors/agents.py `update_agent`) and attach the uploads at
    `file_urls`, each checked first: a refused file changes nothing. The agent must keep at least one file."""
    vendor = require_vendor(actor)
    urls = list(dict.fromkeys(u for u in file_urls if u))
    if not urls and not agents.get_editable_agent(actor=vendor, agent_id=agent_id).files:
        raise Invalid(FILE_REQUIRED, field=FIELD)
    checked = [check_upload(actor=vendor, file_url=url) for url in urls]
    agents.update_agent(actor=vendor, agent_id=agent_id, draft=draft, files_change=bool(checked))
    return [_attach(vendor, agent_id, upload) for upload in checked]


def _attach(vendor: User, agent_id: str, upload: CheckedUpload) -> revisions.FileInfo:
    try:
        return files.attach_file(actor=vendor, agent_id=agent_id, file_url=upload.url)
    except DomainError as error:
        raise RefusedFile(error.message, url=upload.url, filename=upload.filename) from error


def _discard_new_agent(agent_id: str) -> None:
    """Delete an agent this submit created (nobody else has seen it: without files it was in no queue), and
    give back the uploads attached to it, so the vendor's next try can attach them again."""
    with session_scope() as session:
        keys = list(session.exec(select(AgentFile.storage_key).where(AgentFile.agent_id == agent_id)).all())
        session.exec(delete(AgentFile).where(AgentFile.agent_id == agent_id))
        session.exec(delete(AgentTag).where(AgentTag.agent_id == agent_id))
        session.exec(delete(Agent).where(Agent.id == agent_id))
    uploads.reopen(stored_keys=keys)
