"""Public catalog reads: stats, categories, agent listing/search and one agent."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter, Query, Response
from pydantic import BaseModel, TypeAdapter

from marketplace.api.deps import OptionalUser
from marketplace.models import AgentPublic, CategoryPublic, StatsPublic
from marketplace.services import catalog

router = APIRouter(prefix="/api", tags=["catalog"])

TOTAL_HEADER = "X-Total-Count"


def json_list(items: Sequence[BaseModel], adapter: TypeAdapter, total: int) -> Response:
    """A JSON list (what the pages expect) with the number of matches on all pages in X-Total-Count."""
    return Response(
        adapter.dump_json(list(items), by_alias=True),
        media_type="application/json",
        headers={TOTAL_HEADER: str(total), "Access-Control-Expose-Headers": TOTAL_HEADER},
    )


AGENT_LIST = TypeAdapter(list[AgentPublic])


@router.get("/stats", response_model=StatsPublic)
def stats() -> StatsPublic:
    return catalog.stats()


@router.get("/categories", response_model=list[CategoryPublic])
def categories() -> list[CategoryPublic]:
    return catalog.list_categories()


@router.get("/categories/{ref}", response_model=CategoryPublic)
def category(ref: str) -> CategoryPublic:
    """One category by numeric id or slug."""
    return catalog.get_category(ref=ref)


@router.get(
    "/agents",
    response_model=list[AgentPublic],
    responses={
        200: {"headers": {TOTAL_HEADER: {"description": "matches on all pages", "schema": {"type": "integer"}}}}
    },
)
def agents(
    featured: str | None = None,
    limit: int = catalog.DEFAULT_LIMIT,
    offset: int = 0,
    search: str | None = None,
    category: str | None = None,
    price: str | None = None,
    rating: str | None = None,
    sort: str | None = None,
    tag: list[str] = Query(default=[]),
) -> Response:
    """Live agents, filtered, sorted and paged (see `services.catalog.parse_filters` for the values)."""
    page = catalog.list_agents(
        featured=featured, limit=limit, offset=offset, search=search, category=category, price=price,
        rating=rating, sort=sort, tags=tag,
    )
    return json_list(page.items, AGENT_LIST, page.total)


@router.get("/agents/{agent_id}", response_model=AgentPublic)
def agent(agent_id: str, user: OptionalUser) -> AgentPublic:
    return catalog.get_agent(agent_id=agent_id, actor=user)
