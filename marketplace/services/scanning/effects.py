"""What a verdict causes, written in the verdict's own transaction (services/scanning/queue.py `_record`).

A file newly found infected:
- in a version under review (a new agent or a revision): its vendor is told the agent cannot be approved;
- in a live version: its downloads stop at once (services/scanning/views.py reads the verdict on every
  download), the vendor and every admin are notified, and the block is audited.
The verdict is written before the files are read here, so an approval deciding at the same moment either
commits first (and is seen here as live) or finds the verdict and refuses (services/admin/moderation.py).
"""

from __future__ import annotations

from collections import defaultdict

from sqlmodel import Session, select

from marketplace.models import Agent, AgentFile, AgentStatus, NotificationType, Role, ScanStatus, User
from marketplace.services import audit, notifications
from marketplace.services.scanning.findings import Finding

BLOCKED_TITLE = "Agent file blocked"
BLOCKED_MESSAGE = ("A security scan found {finding} in {file} of your agent {name}. Downloads of it are blocked; "
                   "upload a clean version.")
ADMIN_BLOCKED_TITLE = "Live file blocked by a security scan"
ADMIN_BLOCKED_MESSAGE = "A security scan found {finding} in {file} of the live agent {name}. Downloads are blocked."
REFUSED_TITLE = "Agent file infected"
REFUSED_MESSAGE = ("A security scan found {finding} in {file} of your agent {name}: it cannot be approved. Remove "
                   "the file and upload a clean one.")


def _named(findings: list[Finding]) -> str:
    malware = [f for f in findings if f.kind == "malware"]
    first = malware[0] if malware else findings[0]
    return f"{first.name} ({first.member})" if first.member else first.name


def verdict_written(session: Session, *, key: str, before: str, after: str, findings: list[Finding]) -> None:
    if after != ScanStatus.INFECTED or before == ScanStatus.INFECTED:
        return
    rows = session.exec(select(Agent, AgentFile.version, AgentFile.filename)
                        .join(Agent, Agent.id == AgentFile.agent_id)
                        .where(AgentFile.storage_key == key, Agent.deleted_at.is_(None))).all()
    by_agent: dict[str, tuple[Agent, set[int], str]] = {}
    versions: dict[str, set[int]] = defaultdict(set)
    for agent, version, filename in rows:
        versions[agent.id].add(version)
        by_agent[agent.id] = (agent, versions[agent.id], filename)
    finding = _named(findings)
    admins: list[str] | None = None
    for agent, seen, filename in by_agent.values():
        live = agent.status == AgentStatus.APPROVED and agent.current_version in seen
        words = {"finding": finding, "file": filename, "name": agent.name}
        if not live:
            if agent.vendor_id:
                notifications.notify(session, user_id=agent.vendor_id, type=NotificationType.REJECTION,
                                     title=REFUSED_TITLE, message=REFUSED_MESSAGE.format(**words))
            continue
        if agent.vendor_id:
            notifications.notify(session, user_id=agent.vendor_id, type=NotificationType.REJECTION,
                                 title=BLOCKED_TITLE, message=BLOCKED_MESSAGE.format(**words))
        if admins is None:
            admins = list(session.exec(select(User.id).where(User.role == Role.ADMIN, User.deleted_at.is_(None))))
        for admin_id in admins:
            notifications.notify(session, user_id=admin_id, type=NotificationType.OTHER, title=ADMIN_BLOCKED_TITLE,
                                 message=ADMIN_BLOCKED_MESSAGE.format(**words))
        audit.record(session, actor=None, action="file.block", target_type="agent", target_id=agent.id,
                     details={"name": agent.name, "file": filename, "version": agent.current_version,
                              "findings": [f.as_dict() for f in findings]})
