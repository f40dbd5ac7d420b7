"""The public catalog: stats, categories, browsing/searching agents, one agent, and what a user bought.

Only live agents (approved and not deleted) are public. Listing functions accept the raw query-string
values of `/api/agents` so that pages and the API validate them in one place; a bad value raises
`InvalidParameter` (422) naming the parameter. Every read returns API schemas (`AgentPublic`, ...),
built with a fixed number of queries per page (no N+1).

The modules, by what they hold (each imports the others directly; callers use the names below):
- `filters`: the query parameters: which price, rating and sort values exist and how an address's
  values read (`price_filter`, `rating_filter`), limits, `parse_filters`.
- `visibility`: who may see which agent (`LIVE`, `can_see`, `visible_agent`, `live_agent`) and marks.
- `counts`: price and rating bands and the `agent_listing_counts` table.
- `categories`: stats and categories.
- `listing_sql`: the SQL of one listing page; `listing`: `list_agents`, `get_agent`, serialisation.
- `listing_cache`: the per-process page cache; `version`: the catalog version that keys it; `reads`: the
  same cache for one agent, reviews, categories and stats.
- `search`: full-text search, one implementation per dialect, with typo corrections.
- `facets`: per filter option, how many agents the list would hold with it.
"""

from marketplace.services.catalog import reads
from marketplace.services.catalog.categories import (
    find_category,
    get_category,
    list_categories,
    list_categories_json,
    stats,
    stats_json,
)
from marketplace.services.catalog.counts import (
    PRICE_BAND_EDGES,
    PRICE_FILTER_BANDS,
    RATING_BAND_FLOORS,
    RATING_FILTER_BANDS,
    price_band,
    rating_band,
    rebuild_listing_counts,
)
from marketplace.services.catalog.facets import agent_facets, agent_facets_json
from marketplace.services.catalog.filters import (
    ANY,
    BROWSE_PRICES,
    DEFAULT_LIMIT,
    HOME_PRICES,
    MAX_TAGS,
    PRICE_RANGES,
    RATING_FILTERS,
    RATING_MINIMUMS,
    SORTS,
    AgentFilters,
    RawFilters,
    normalise_price,
    normalise_rating,
    parse_filters,
    price_filter,
    rating_filter,
)
from marketplace.services.catalog.listing import (
    AgentListing,
    agent_public,
    agents_public,
    get_agent,
    get_agent_json,
    list_agents,
    list_agents_json,
    live_agent_json,
    price_string,
    rating_string,
    search_agents,
    search_agents_json,
)
from marketplace.services.catalog.visibility import (
    AGENTS,
    LIVE,
    can_see,
    download_url,
    has_mark,
    is_live,
    live_agent,
    live_clause,
    purchased_agent_ids,
    visible_agent,
)
from marketplace.services.paging import MAX_LIMIT, MAX_OFFSET

__all__ = [
    "AGENTS",
    "ANY",
    "BROWSE_PRICES",
    "DEFAULT_LIMIT",
    "HOME_PRICES",
    "LIVE",
    "MAX_LIMIT",
    "MAX_OFFSET",
    "MAX_TAGS",
    "PRICE_BAND_EDGES",
    "PRICE_FILTER_BANDS",
    "PRICE_RANGES",
    "RATING_BAND_FLOORS",
    "RATING_FILTERS",
    "RATING_FILTER_BANDS",
    "RATING_MINIMUMS",
    "SORTS",
    "AgentFilters",
    "AgentListing",
    "RawFilters",
    "agent_facets",
    "agent_facets_json",
    "agent_public",
    "agents_public",
    "can_see",
    "download_url",
    "find_category",
    "get_agent",
    "get_agent_json",
    "get_category",
    "has_mark",
    "is_live",
    "list_agents",
    "list_agents_json",
    "list_categories",
    "list_categories_json",
    "live_agent",
    "live_agent_json",
    "live_clause",
    "normalise_price",
    "normalise_rating",
    "parse_filters",
    "price_band",
    "price_filter",
    "price_string",
    "purchased_agent_ids",
    "rating_band",
    "rating_filter",
    "rating_string",
    "reads",
    "rebuild_listing_counts",
    "search_agents",
    "search_agents_json",
    "stats",
    "stats_json",
    "visible_agent",
]
