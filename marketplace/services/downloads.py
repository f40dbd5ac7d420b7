"""Agent downloads: the agent's current approved files (or one of the two versions before them) in one zip, for its
buyers, its vendor and admins; and one file of a submission as its vendor attached it, for an admin deciding on
it (`submitted_file`).

The zip is built while it is sent (zipstream-ng), each file read from storage in chunks, so memory stays
constant whatever the files' sizes. Files that are already compressed (archives, PDF) are stored as they
are; text is deflated. When every entry is stored the archive's length is known in advance and is sent as
Content-Length. Each download is logged (user, agent, version, time). A file a security scan found infected is
served to nobody, and one without a verdict yet only to its vendor (services/scanning/views.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from sqlmodel import Session, select
from zipstream import ZIP_DEFLATED, ZIP_STORED, ZipStream

from marketplace.db import session_scope
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentDownload, AgentFile, Role, User
from marketplace.services import access, licenses, mail_texts, scanning
from marketplace.services.errors import Forbidden, NotFound
from marketplace.services.filenames import entry_name
from marketplace.services.filetypes import COMPRESSED_KINDS, COMPRESSED_TYPES, kind_of_name
from marketplace.services.permissions import require_admin, require_user
from marketplace.services.versions import history, labels, leases

NO_ACCESS = "You don't have access to download this file."
NOT_FOUND = "File not found."
CHUNK_BYTES = 1 << 20
LICENSE_FILE = "LICENSE-KEY.txt"


@dataclass(frozen=True)
class Archive:
    """A zip being built: iterate `chunks` once to send it; `size` is its length when known."""

    filename: str
    chunks: Iterator[bytes]
    size: int | None
    version: int


def archive_name(agent_name: str) -> str:
    """'My Agent v2!' -> 'My_Agent_v2__files.zip' (every non-alphanumeric character becomes '_')."""
    return re.sub(r"[^A-Za-z0-9]", "_", agent_name) + "_files.zip"


def can_download(session: Session, *, user: User, agent: Agent) -> bool:
    if user.role == Role.ADMIN or (agent.vendor_id is not None and agent.vendor_id == user.id):
        return True
    return access.has_access(session, user_id=user.id, agent_id=agent.id)


def _entry_name(filename: str, used: set[str]) -> str:
    """A plain, unique name in the zip (never `..` or a path, whatever an old row holds)."""
    name = entry_name(filename)
    stem, suffix = PurePosixPath(name).stem, PurePosixPath(name).suffix
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{stem} ({n}){suffix}"
    used.add(candidate)
    return candidate


def _chunks(key: str) -> Iterator[bytes]:
    """Read lazily: the object is opened only when the zip reaches its entry."""
    yield from get_storage().iter_chunks(key, chunk_size=CHUNK_BYTES)


def _compress_type(row: AgentFile) -> int:
    """Stored as they are when the type found on attach is already compressed (rows from before types were
    found by content fall back to the name)."""
    if row.content_type in COMPRESSED_TYPES or kind_of_name(row.filename) in COMPRESSED_KINDS:
        return ZIP_STORED
    return ZIP_DEFLATED


def _files(session: Session, agent: Agent, version: int) -> list[AgentFile]:
    return list(session.exec(select(AgentFile).where(AgentFile.agent_id == agent.id, AgentFile.version == version)
                             .order_by(AgentFile.created_at, AgentFile.id)).all())


def _allowed(session: Session, user: User, agent_id: str) -> Agent:
    agent = session.get(Agent, agent_id) if agent_id and len(agent_id) <= 64 else None
    if agent is None:
        raise NotFound(NOT_FOUND)
    if not can_download(session, user=user, agent=agent):
        raise Forbidden(NO_ACCESS)
    return agent


def agent_archive(*, actor: User | None, agent_id: str, version: str | None = None) -> Archive:
    """The zip of the agent's current version (or, with `version`, of one of the two before it: older ones are
    404) for someone allowed to download it, with the buyer's license key in LICENSE-KEY.txt; logs the download.

    The files' objects are leased before the zip is built (services/versions/leases.py): they are read a first
    time, leased, then read again, so an approval that drops the version meanwhile makes this a 404 and never
    deletes an object this download sends. Iterating `chunks` to its end (or closing it) releases the lease."""
    user = require_user(actor)
    with session_scope() as session:
        agent = _allowed(session, user, agent_id)
        number = history.downloadable(session, agent, version)
        keys = [row.storage_key for row in _files(session, agent, number)]
    if not keys:
        raise NotFound(NOT_FOUND)
    download_id = leases.take(keys)
    try:
        return _archive(user, agent_id, version, number, keys, download_id)
    except BaseException:
        leases.release(download_id)
        raise


def _archive(user: User, agent_id: str, version: str | None, number: int, keys: list[str],
             download_id: str) -> Archive:
    storage = get_storage()
    with session_scope() as session:
        agent = _allowed(session, user, agent_id)
        # The leased version's rows, read again: gone means an approval dropped it between the two reads, and
        # may not have seen the lease, so nothing is sent. (A version just replaced is still kept: a download of
        # the current version that an approval overtook sends the version the buyer asked for.)
        files = _files(session, agent, number)
        if sorted(row.storage_key for row in files) != sorted(keys):
            raise NotFound(history.VERSION_GONE.format(label=version[:labels.MAX_LABEL]) if version else NOT_FOUND)
        refusal = scanning.download_refusal(session, [row.storage_key for row in files],
                                            is_vendor=agent.vendor_id is not None and agent.vendor_id == user.id)
        if refusal:
            raise Forbidden(refusal)
        sizes = [storage.head(row.storage_key) for row in files]
        if any(size is None for size in sizes):
            raise NotFound(NOT_FOUND)
        session.add(AgentDownload(user_id=user.id, agent_id=agent.id, version=number))
        name = agent.name
        key = licenses.key_of(session, user_id=user.id, agent_id=agent.id)
    types = [_compress_type(row) for row in files]
    sized = all(t == ZIP_STORED for t in types)
    stream = ZipStream(compress_type=ZIP_STORED if sized else ZIP_DEFLATED, sized=sized)
    # The buyer's own key, last, under its own name (a file of the agent's called so is renamed); a vendor or an
    # admin downloading has none.
    used: set[str] = {LICENSE_FILE} if key is not None else set()
    for row, size, compress_type in zip(files, sizes, types, strict=True):
        stream.add(_chunks(row.storage_key), _entry_name(row.filename, used),
                   size=size, compress_type=compress_type)
    if key is not None:
        text = mail_texts.license_key_file(agent_name=name, license_key=key).encode()
        stream.add(text, LICENSE_FILE, size=len(text), compress_type=ZIP_STORED)
    size = len(stream) if sized else None
    return Archive(filename=archive_name(name), chunks=leases.streamed(iter(stream), download_id), size=size,
                   version=number)


@dataclass(frozen=True)
class StoredFile:
    """One stored file to send as it is: iterate `chunks` once."""

    filename: str
    chunks: Iterator[bytes]
    size: int


def submitted_file(*, actor: User | None, file_id: str) -> StoredFile:
    """One file of an agent (any version: a pending agent's or revision's files are in no buyer's zip yet), for
    an admin reviewing the submission. Admins only; an unknown id, a deleted agent or a missing object is 404."""
    require_admin(actor)
    found, refusal = None, None
    if file_id and len(file_id) <= 64:
        with session_scope() as session:
            found = session.exec(select(AgentFile.storage_key, AgentFile.filename)
                                 .join(Agent, Agent.id == AgentFile.agent_id)
                                 .where(AgentFile.id == file_id, Agent.deleted_at.is_(None))).first()
            if found is not None:
                refusal = scanning.download_refusal(session, [found[0]], is_vendor=False)
    if found is None:
        raise NotFound(NOT_FOUND)
    if refusal:
        raise Forbidden(refusal)
    key, filename = found
    size = get_storage().head(key)
    if size is None:
        raise NotFound(NOT_FOUND)
    return StoredFile(filename=entry_name(filename), chunks=_chunks(key), size=size)
