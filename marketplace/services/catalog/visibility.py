"""Who may see which agent: live agents (approved, not deleted) are public, the others only to their
vendor and admins. Also the per-user marks on agents (favourites, reports, purchases)."""

from __future__ import annotations

from sqlalchemy import and_, literal_column, select
from sqlalchemy.sql import ColumnElement, FromClause
from sqlmodel import Session

from marketplace.db import session_scope
from marketplace.models import Agent, AgentStatus, Favorite, Purchase, Report, Role, User
from marketplace.services import access
from marketplace.services.errors import NotFound

AGENTS = Agent.__table__


def live_clause(table: FromClause = AGENTS) -> ColumnElement[bool]:
    """Approved and not deleted. 'approved' is inlined (not a bound parameter) so that SQLite and
    PostgreSQL can use the partial indexes of revision 0002, whose WHERE clause is exactly this."""
    return and_(table.c.status == literal_column("'approved'"), table.c.deleted_at.is_(None))


LIVE = live_clause()


def download_url(agent_id: str) -> str:
    return f"/api/agents/{agent_id}/download"


def is_live(agent: Agent) -> bool:
    return agent.status == AgentStatus.APPROVED and agent.deleted_at is None


def can_see(agent: Agent, actor: User | None) -> bool:
    """Live agents are public; a pending or rejected one only to its vendor and admins."""
    if agent.deleted_at is not None:
        return False
    if agent.status == AgentStatus.APPROVED:
        return True
    return actor is not None and actor.deleted_at is None and (actor.role == Role.ADMIN or actor.id == agent.vendor_id)


def visible_agent(session: Session, *, agent_id: str, actor: User | None) -> Agent:
    """The agent row if `actor` may see it, else NotFound (the same answer as for a missing agent)."""
    agent = session.get(Agent, agent_id) if agent_id and len(agent_id) <= 64 else None
    if agent is None or not can_see(agent, actor):
        raise NotFound("Agent not found")
    return agent


def has_mark(model: type[Favorite] | type[Report], *, actor: User | None, agent_id: str) -> bool:
    """Whether `actor` has a row of `model` (a favourite, a report) for an agent they may see. Signed-out
    callers get False, not 401: pages ask before they know who is signed in."""
    if actor is None:
        return False
    with session_scope() as session:
        agent = visible_agent(session, agent_id=agent_id, actor=actor)
        found = session.execute(select(model.id).where(model.user_id == actor.id, model.agent_id == agent.id)).first()
    return found is not None


def live_agent(session: Session, *, agent_id: str) -> Agent:
    """A live agent row, else NotFound."""
    agent = None
    if agent_id and len(agent_id) <= 64:
        agent = session.execute(select(Agent).where(Agent.id == agent_id, LIVE)).scalars().first()
    if agent is None:
        raise NotFound("Agent not found")
    return agent


def purchased_agent_ids(*, actor: User | None) -> set[str]:
    """Ids of the agents `actor` has bought (empty when signed out), for "Already Bought" markers."""
    if actor is None:
        return set()
    with session_scope() as session:
        return set(session.execute(select(Purchase.agent_id).where(Purchase.user_id == actor.id,
                                                                          access.active())).scalars())
