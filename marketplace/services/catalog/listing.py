"""Listing and reading agents: `list_agents` (browse and search, cached per catalog version),
`get_agent`, and the serialisation of agents to `AgentPublic`.

Every read returns API schemas (`AgentPublic`, ...), built with a fixed number of queries per page (no N+1).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Unpack

from pydantic import TypeAdapter
from sqlalchemy import select
from sqlalchemy.engine import Connection
from sqlmodel import Session

from marketplace import db
from marketplace.db import session_scope
from marketplace.models import Agent, AgentPage, AgentPublic, AgentStatus, CategoryRef, User, VendorRef
from marketplace.services import scanning
from marketplace.services.catalog import reads
from marketplace.services.catalog import search as fulltext
from marketplace.services.catalog import version as catalog_version
from marketplace.services.catalog.filters import AgentFilters, RawFilters, parse_filters
from marketplace.services.catalog.listing_cache import cache
from marketplace.services.catalog.listing_sql import (
    CATEGORIES,
    FILES,
    TAGS,
    USERS,
    bind_values,
    listing_statement,
    live_agent_statement,
    shape_of,
)
from marketplace.services.catalog.visibility import download_url, visible_agent


def price_string(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def rating_string(rating_sum: int, review_count: int) -> str:
    """Average rating with two decimals, rounded half up in integer arithmetic ("4.50")."""
    if review_count <= 0:
        return "0.00"
    hundredths = (rating_sum * 200 + review_count) // (2 * review_count)
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def _tags_by_agent(session: Session, ids: Sequence[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    if ids:
        rows = session.execute(
            select(TAGS.c.agent_id, TAGS.c.tag)
            .where(TAGS.c.agent_id.in_(ids))
            .order_by(TAGS.c.agent_id, TAGS.c.position, TAGS.c.tag)
        )
        for agent_id, tag in rows:
            found[agent_id].append(tag)
    return found


def _public(row: Any, *, tags: list[str], vendor: VendorRef | None, category: CategoryRef | None,
            has_files: bool) -> AgentPublic:
    return AgentPublic(
        id=row.id,
        name=row.name,
        short_description=row.short_description,
        description=row.description,
        price=price_string(row.price_cents),
        pricing_model=row.pricing_model,
        trial_days=row.trial_days,
        image_url=row.image_url,
        demo_url=row.demo_url,
        file_url=download_url(row.id) if has_files else None,
        tags=tags,
        is_featured=row.is_featured,
        is_approved=row.status == AgentStatus.APPROVED,
        status=row.status,
        rejection_reason=row.rejection_reason,
        avg_rating=rating_string(row.rating_sum, row.review_count),
        review_count=row.review_count,
        vendor_id=row.vendor_id,
        vendor=vendor,
        category_id=row.category_id,
        category=category,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def agents_public(session: Session, agents: Sequence[Agent]) -> list[AgentPublic]:
    """Serialise ORM agents (any status) in order, loading tags, vendors, categories and files in batches."""
    if not agents:
        return []
    ids = [a.id for a in agents]
    vendor_ids = {a.vendor_id for a in agents if a.vendor_id}
    category_ids = {a.category_id for a in agents if a.category_id is not None}
    vendors = {
        r.id: VendorRef(id=r.id, username=r.username)
        for r in session.execute(select(USERS.c.id, USERS.c.username).where(USERS.c.id.in_(vendor_ids)))
    } if vendor_ids else {}
    categories = {
        r.id: CategoryRef(id=r.id, name=r.name, slug=r.slug, emoji=r.emoji)
        for r in session.execute(
            select(CATEGORIES.c.id, CATEGORIES.c.name, CATEGORIES.c.slug, CATEGORIES.c.emoji).where(
                CATEGORIES.c.id.in_(category_ids)
            )
        )
    } if category_ids else {}
    with_files = set(session.execute(select(FILES.c.agent_id).where(FILES.c.agent_id.in_(ids)).distinct()).scalars())
    tags = _tags_by_agent(session, ids)
    return [
        _public(
            a,
            tags=tags.get(a.id, []),
            vendor=vendors.get(a.vendor_id) if a.vendor_id else None,
            category=categories.get(a.category_id) if a.category_id is not None else None,
            has_files=a.id in with_files,
        )
        for a in agents
    ]


def agent_public(session: Session, agent: Agent) -> AgentPublic:
    return agents_public(session, [agent])[0]


@dataclass(frozen=True)
class AgentListing:
    """One page as JSON text (an array of `AgentPublic` objects, camelCase) and the total of all pages."""

    json: str
    total: int

    def page(self) -> AgentPage:
        return AgentPage(items=AGENT_LIST.validate_json(self.json), total=self.total)


AGENT_LIST = TypeAdapter(list[AgentPublic])


def _listing_rows(conn: Connection | Session, filters: AgentFilters, dialect_name: str,
                  typos: fulltext.Corrections | None = None) -> tuple[list[str], int]:
    """One page's agent documents and the total over all pages, for the exact matches or (`typos`) the others."""
    page, total_only = listing_statement(shape_of(filters, dialect_name, typos))
    values = bind_values(filters, dialect_name, typos)
    rows = conn.execute(page, values).all() if filters.limit > 0 else []
    if not rows:
        # Past the last page (or nothing matched, or no row wanted): the total still has to be told.
        count = 0 if filters.offset == 0 and filters.limit > 0 else conn.execute(total_only, values).scalar_one()
        return [], int(count)
    return [row[0] for row in rows], int(rows[0][1])


def search_agents_json(conn: Connection | Session, filters: AgentFilters) -> AgentListing:
    """One page of live agents for validated filters. A single statement returns the page (each agent
    with its vendor, category, tags and file URL, as JSON) and the total over all pages.

    A search with typo corrections (`search.corrections`) lists every exact match first, then the agents found
    only through a correction, each part in the requested order; the total counts both."""
    dialect_name = (conn.get_bind() if isinstance(conn, Session) else conn).dialect.name
    docs, total = _listing_rows(conn, filters, dialect_name)
    typos = None if filters.search is None else fulltext.corrections(conn, filters.search)
    if typos is not None:
        rest = replace(filters, offset=max(0, filters.offset - total), limit=filters.limit - len(docs))
        corrected = typos.substitute(dialect_name) if total == 0 else None
        if corrected is not None:  # one correction per word, and nothing matched as typed: a plain search
            more, extra = _listing_rows(conn, replace(rest, search=corrected), dialect_name)
        else:
            more, extra = _listing_rows(conn, rest, dialect_name, typos)
        docs, total = docs + more, total + extra
    return AgentListing(json="[" + ",".join(docs) + "]", total=total)


def search_agents(conn: Connection | Session, filters: AgentFilters) -> AgentPage:
    return search_agents_json(conn, filters).page()


def list_agents_json(**raw: Unpack[RawFilters]) -> AgentListing:
    """Browse and search live agents. Default order: best match when searching, else newest first."""
    filters = parse_filters(**raw)
    engine = db.engine()
    caching = cache.capacity > 0
    known = catalog_version.known(engine) if caching else None
    if known is not None and (hit := cache.get((known, filters))) is not None:
        return hit  # no database work at all
    # Read-only: autocommit spares the BEGIN/COMMIT round trips; one statement sees one snapshot, so
    # the page and its total agree.
    with engine.connect() as conn:
        conn = conn.execution_options(isolation_level="AUTOCOMMIT")
        if not caching:
            return search_agents_json(conn, filters)
        # A page read after the version was learnt is at least that fresh, so it may be kept under it.
        version = known if known is not None else catalog_version.read(conn)
        cached = cache.get((version, filters))
        if cached is None:
            cached = search_agents_json(conn, filters)
            cache.put((version, filters), cached)
        return cached


def list_agents(**raw: Unpack[RawFilters]) -> AgentPage:
    """`list_agents_json` as models, for pages that work with Python objects."""
    return list_agents_json(**raw).page()


def live_agent_json(agent_id: str) -> str | None:
    """A live agent's `AgentPublic` JSON (the document a listing page holds), cached per catalog version; None
    when no live agent has this id (it may still be visible to its vendor or an admin: see `get_agent`)."""
    if not isinstance(agent_id, str) or not agent_id or len(agent_id) > 64:
        return None

    def read(conn: Connection) -> str | None:
        found = conn.execute(live_agent_statement(conn.dialect.name), {"agent_id": agent_id}).scalar()
        if found is None:
            return None
        # The date buyers see ('Scanned {date}: no threats found'); a verdict moves the catalog version too.
        agent = AgentPublic.model_validate_json(found)
        agent.scanned_at = scanning.clean_scanned_at(conn, agent_id=agent_id)
        return AGENT_ADAPTER.dump_json(agent, by_alias=True).decode()

    return reads.cached(("agent", agent_id), read)


def get_agent(*, agent_id: str, actor: User | None = None) -> AgentPublic:
    found = live_agent_json(agent_id)
    if found is not None:
        return AgentPublic.model_validate_json(found)
    with session_scope() as session:
        return agent_public(session, visible_agent(session, agent_id=agent_id, actor=actor))


def get_agent_json(*, agent_id: str, actor: Callable[[], User | None]) -> str | bytes:
    """`get_agent` as JSON for the API. `actor` is asked only when the agent is not live (a pending or rejected
    agent is shown to its vendor and admins): a public read touches no session."""
    found = live_agent_json(agent_id)
    if found is not None:
        return found
    return AGENT_ADAPTER.dump_json(get_agent(agent_id=agent_id, actor=actor()), by_alias=True)


AGENT_ADAPTER = TypeAdapter(AgentPublic)
