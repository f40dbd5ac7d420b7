"""Favourites: idempotent add/remove, with `agents.favorites_count` changed only by real changes."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import case, delete, func, select, update
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError

from marketplace.db import session_scope
from marketplace.models import Agent, AgentPage, Favorite, FavoriteStatus, User
from marketplace.services.catalog import LIVE, agents_public, has_mark, live_agent
from marketplace.services.errors import InvalidParameter
from marketplace.services.paging import check_page
from marketplace.services.permissions import require_user

DEFAULT_LIMIT = 100
AGENTS = Agent.__table__


def _agent_id(agent_id: object) -> str:
    if not isinstance(agent_id, str) or not agent_id.strip() or len(agent_id.strip()) > 64:
        raise InvalidParameter("agentId is required", field="agentId")
    return agent_id.strip()


def add_favorite(*, actor: User | None, agent_id: object) -> FavoriteStatus:
    """Favourite a live agent; favouriting it again changes nothing."""
    user = require_user(actor)
    agent_id = _agent_id(agent_id)
    try:
        with session_scope() as session:
            agent = live_agent(session, agent_id=agent_id)
            already = session.execute(
                select(Favorite.id).where(Favorite.user_id == user.id, Favorite.agent_id == agent.id)
            ).first()
            if already is None:
                session.add(Favorite(user_id=user.id, agent_id=agent.id))
                session.flush()
                session.execute(
                    update(AGENTS).where(AGENTS.c.id == agent.id).values(favorites_count=AGENTS.c.favorites_count + 1)
                )
    except IntegrityError:
        pass  # a simultaneous add of the same favourite committed first (and counted it)
    return FavoriteStatus(is_favorited=True)


def remove_favorite(*, actor: User | None, agent_id: object) -> FavoriteStatus:
    """Un-favourite an agent (of any status); removing a missing favourite changes nothing."""
    user = require_user(actor)
    agent_id = _agent_id(agent_id)
    with session_scope() as session:
        removed = cast(CursorResult[Any], session.execute(
            delete(Favorite).where(Favorite.user_id == user.id, Favorite.agent_id == agent_id))
        ).rowcount
        if removed:
            session.execute(
                update(AGENTS)
                .where(AGENTS.c.id == agent_id)
                .values(
                    favorites_count=case(
                        (AGENTS.c.favorites_count > removed, AGENTS.c.favorites_count - removed), else_=0
                    )
                )
            )
    return FavoriteStatus(is_favorited=False)


def is_favorited(*, actor: User | None, agent_id: str) -> FavoriteStatus:
    return FavoriteStatus(is_favorited=has_mark(Favorite, actor=actor, agent_id=agent_id))


def list_favorites(*, actor: User | None, limit: int = DEFAULT_LIMIT, offset: int = 0) -> AgentPage:
    """The caller's favourite live agents, most recently favourited first."""
    user = require_user(actor)
    check_page(limit=limit, offset=offset)
    with session_scope() as session:
        base = select(Agent).join(Favorite, Favorite.agent_id == Agent.id).where(Favorite.user_id == user.id, LIVE)
        total = session.execute(select(func.count()).select_from(base.subquery())).scalar_one()
        agents = session.execute(
            base.order_by(Favorite.created_at.desc(), Favorite.id.desc()).limit(limit).offset(offset)
        ).scalars().all()
        return AgentPage(items=agents_public(session, agents), total=total)
