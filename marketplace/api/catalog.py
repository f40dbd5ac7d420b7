"""Public catalog reads: stats, categories, agent listing/search and one agent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, TypeAdapter

from marketplace.api.deps import optional_user
from marketplace.models import AgentFacets, AgentPublic, CategoryPublic, StatsPublic
from marketplace.services import catalog

router = APIRouter(prefix="/api", tags=["catalog"])

TOTAL_HEADER = "X-Total-Count"


def total_headers(total: int) -> dict[str, str]:
    """A paged list's answer headers: the number on all pages, readable by a browser's script too."""
    return {TOTAL_HEADER: str(total), "Access-Control-Expose-Headers": TOTAL_HEADER}


def total_answer(counted: str = "matches") -> dict[int | str, dict[str, Any]]:
    """The OpenAPI answer of a paged list: the number of `counted` on all pages in X-Total-Count."""
    return {200: {"headers": {TOTAL_HEADER: {"description": f"{counted} on all pages", "schema": {"type": "integer"}}}}}


def json_list(items: Sequence[BaseModel], adapter: TypeAdapter, total: int) -> Response:
    """A JSON list (what the pages expect) with the number of matches on all pages in X-Total-Count."""
    return Response(adapter.dump_json(list(items), by_alias=True), media_type="application/json",
                    headers=total_headers(total))


AGENT_LIST = TypeAdapter(list[AgentPublic])


@router.get("/stats", response_model=StatsPublic)
def stats() -> Response:
    return Response(catalog.stats_json(), media_type="application/json")


@router.get("/categories", response_model=list[CategoryPublic])
def categories() -> Response:
    return Response(catalog.list_categories_json(), media_type="application/json")


@router.get("/categories/{ref}", response_model=CategoryPublic)
def category(ref: str) -> CategoryPublic:
    """One category by numeric id or slug."""
    return catalog.get_category(ref=ref)


_LIST_PARAMETERS = [
    {"name": name, "in": "query", "required": False, "description": text, "schema": schema}
    for name, text, schema in [
        ("search", "full-text query (name, descriptions, tags, vendor); last word may be a prefix; a word of 4+ "
                   "letters one typo from the catalogue's words also finds them, after the exact matches",
         {"type": "string"}),
        ("category", "category id or slug", {"type": "string"}),
        ("price", "free, 0-10, 10-50, 50-100, 100+, 1-25, 26-50, 51-100 (dollars)", {"type": "string"}),
        ("rating", "5, 4+, 3+, 2+ or any", {"type": "string"}),
        ("sort", "newest (default), popularity, rating, price-low, price-high, relevance", {"type": "string"}),
        ("tag", "repeatable; every tag must match", {"type": "array", "items": {"type": "string"}}),
        ("featured", "true: featured agents only", {"type": "boolean"}),
        ("limit", f"1-{catalog.MAX_LIMIT}, default {catalog.DEFAULT_LIMIT}", {"type": "integer"}),
        ("offset", "default 0", {"type": "integer"}),
    ]
]


@router.get(
    "/agents",
    response_model=list[AgentPublic],
    responses=total_answer(),
    openapi_extra={"parameters": _LIST_PARAMETERS},
)
def agents(request: Request) -> Response:
    """Live agents, filtered, sorted and paged. The query string is read directly (the service checks
    every value and names a bad one in a 422): declaring nine parameters costs FastAPI ~0.3 ms a call."""
    query = request.query_params
    listing = catalog.list_agents_json(
        featured=query.get("featured"), limit=query.get("limit"), offset=query.get("offset"),
        search=query.get("search"), category=query.get("category"), price=query.get("price"),
        rating=query.get("rating"), sort=query.get("sort"), tags=query.getlist("tag"),
    )
    return Response(listing.json, media_type="application/json", headers=total_headers(listing.total))


_FACET_PARAMETERS = [p for p in _LIST_PARAMETERS if p["name"] not in ("sort", "limit", "offset")]


@router.get("/agents/facets", response_model=AgentFacets, openapi_extra={"parameters": _FACET_PARAMETERS})
def agent_facets(request: Request) -> Response:
    """Per category, price filter and rating filter, how many agents `GET /api/agents` would list with that option
    and the same other filters (each facet ignores its own filter). Bad values: 422, as for the list."""
    query = request.query_params
    body = catalog.agent_facets_json(
        featured=query.get("featured"), search=query.get("search"), category=query.get("category"),
        price=query.get("price"), rating=query.get("rating"), tags=query.getlist("tag"),
    )
    return Response(body, media_type="application/json")


@router.get("/agents/{agent_id}", response_model=AgentPublic)
def agent(agent_id: str, request: Request) -> Response:
    """A live agent comes from the catalog cache without reading the session; a pending or rejected one is
    shown to its vendor and admins, so only then is the caller looked up."""
    body = catalog.get_agent_json(agent_id=agent_id, actor=lambda: optional_user(request))
    return Response(body, media_type="application/json")
