"""Admin deletes of users and agents: soft (`deleted_at`), so nothing that was paid for disappears.

A deleted user cannot sign in (sign-in and session lookups skip deleted rows) and its sessions end at once;
a deleted vendor's agents leave the catalogue with it. A deleted agent leaves the catalogue and the moderation
queue. Orders, purchases, commissions and buyers' downloads refer to the rows, which stay, so order history,
sales figures and `GET /api/agents/{id}/download` keep working. Each delete is one transaction with its
audit entry.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from marketplace.db import session_scope
from marketplace.models import Agent, ApplicationStatus, Role, User, VendorApplication
from marketplace.models.base import utcnow
from marketplace.services import audit, auth, decisions
from marketplace.services.errors import Conflict, Forbidden, NotFound
from marketplace.services.permissions import require_admin

USER_NOT_FOUND = "User not found"
AGENT_NOT_FOUND = "Agent not found"
NOT_YOURSELF = "You cannot delete your own account"
LAST_ADMIN = "The last admin cannot be deleted"
MAX_ID = 64


def _mark_deleted(session: Session, model: type[User] | type[Agent], row_id: str, now: datetime) -> bool:
    """Claim a live row by setting `deleted_at` (services/decisions.py): False when it is unknown or someone
    deleted it first. The write takes the row lock on PostgreSQL and the database write lock on SQLite, so
    what is read next in this transaction cannot change before it commits."""
    if not row_id or len(row_id) > MAX_ID:
        return False
    return decisions.claim_any(session, model, col(model.id) == row_id, col(model.deleted_at).is_(None),
                               values={"deleted_at": now, "updated_at": now}) == 1


def _lock_admins(session: Session) -> None:
    """PostgreSQL: lock every active admin row, in id order, before anything else, so two admins deleting
    each other at once run one after the other instead of deadlocking (SQLite has one writer anyway)."""
    session.exec(select(User.id).where(User.role == Role.ADMIN, col(User.deleted_at).is_(None))
                 .order_by(User.id).with_for_update()).all()


def _check_admins(session: Session, *, admin: User, target: User) -> None:
    """Never leave no admin; the actor must still be an admin (it may have lost the role meanwhile)."""
    admins = set(session.exec(select(User.id).where(User.role == Role.ADMIN, col(User.deleted_at).is_(None))).all())
    if target.role == Role.ADMIN and not admins:
        raise Conflict(LAST_ADMIN)
    if admin.id not in admins:
        raise Forbidden("Admin access required")


def delete_user(*, actor: User | None, user_id: str) -> None:
    """Soft-delete a customer, vendor or other admin (not yourself, never the last admin): 404 when unknown or
    already deleted, 409 for the refusals."""
    admin = require_admin(actor)
    if user_id == admin.id:
        raise Conflict(NOT_YOURSELF)
    now = utcnow()
    with session_scope() as session:
        _lock_admins(session)
        if not _mark_deleted(session, User, user_id, now):
            raise NotFound(USER_NOT_FOUND)
        user = session.exec(select(User).where(User.id == user_id)).one()
        _check_admins(session, admin=admin, target=user)  # counts admins with the target already deleted
        auth.end_all_sessions(session, user_id=user.id)
        removed = decisions.claim_any(session, Agent, col(Agent.vendor_id) == user.id, col(Agent.deleted_at).is_(None),
                                      values={"deleted_at": now, "updated_at": now})
        withdrawn = decisions.claim_any(
            session, VendorApplication, col(VendorApplication.user_id) == user.id,
            col(VendorApplication.status) == ApplicationStatus.PENDING,
            values={"status": ApplicationStatus.REJECTED, "decided_at": now, "decided_by": admin.id})
        audit.record(session, actor=admin, action="user.delete", target_type="user", target_id=user.id,
                     details={"username": user.username, "email": user.email, "role": user.role,
                              "agentsRemoved": removed, "applicationsClosed": withdrawn})


def delete_agent(*, actor: User | None, agent_id: str) -> None:
    """Soft-delete an agent (any status): it leaves the catalogue and the review queue; its buyers keep it.
    404 when unknown or already deleted."""
    admin = require_admin(actor)
    now = utcnow()
    with session_scope() as session:
        if not _mark_deleted(session, Agent, agent_id, now):
            raise NotFound(AGENT_NOT_FOUND)
        agent = session.exec(select(Agent).where(Agent.id == agent_id)).one()
        audit.record(session, actor=admin, action="agent.delete", target_type="agent", target_id=agent.id,
                     details={"name": agent.name, "status": agent.status, "vendorId": agent.vendor_id})
