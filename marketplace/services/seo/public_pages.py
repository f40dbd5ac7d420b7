"""The public pages as the server sends them: for `/`, `/agents` (with its filters), `/agents/{id}` and
`/categories`, the status, the head (`page_head`) and the page's main content as plain data.

Reads go through the catalogue's per-version caches, so a page costs no statement while nothing changed. Only
live agents are public: an unknown, pending, rejected or deleted agent's page is a 404.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

from marketplace.models import AgentPublic, CategoryPublic
from marketplace.services import catalog, pricing
from marketplace.services.errors import DomainError
from marketplace.services.seo import addresses, page_head
from marketplace.services.seo.page_head import PageHead
from marketplace.services.versions import history

BROWSE_PAGE_SIZE = 12  # agents per page of /agents (the page's own size: BrowseState reads it from here)
FEATURED_LIMIT = 6
MAX_PAGE = 100_000


@dataclass(frozen=True)
class Link:
    href: str
    text: str
    note: str = ""  # a line under the link (a listing's description, price and rating)


@dataclass(frozen=True)
class ChangelogEntry:
    """One version in an agent page's Changelog: its label, release day (UTC) and notes as safe HTML."""

    label: str
    day: str
    notes_html: str


@dataclass(frozen=True)
class PageContent:
    heading: str
    paragraphs: list[str] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)  # label, value
    facts_link: Link | None = None  # the category, linked
    links_heading: str = ""
    links: list[Link] = field(default_factory=list)
    pager: list[Link] = field(default_factory=list)  # previous / next page
    changelog: list[ChangelogEntry] = field(default_factory=list)  # an agent's versions, newest first


@dataclass(frozen=True)
class PublicPage:
    status: int
    head: PageHead
    content: PageContent


def rating_text(agent: AgentPublic) -> str:
    if not page_head.has_rating(agent):
        return "No reviews yet"
    reviews = "review" if agent.review_count == 1 else "reviews"
    return f"Rated {agent.avg_rating} out of 5 ({agent.review_count} {reviews})"


def _listing_link(agent: AgentPublic) -> Link:
    note = " · ".join((agent.short_description, page_head.agent_price_label(agent), rating_text(agent)))
    return Link(href=addresses.agent_path(agent.id), text=agent.name, note=note)


def agent_page(agent_id: str) -> PublicPage:
    found = catalog.live_agent_json(agent_id)
    if found is None:
        return PublicPage(404, page_head.missing_agent_head(agent_id), PageContent(
            heading="Agent Not Found",
            paragraphs=["The agent you're looking for doesn't exist or has been removed."],
            links=[Link(href="/agents", text="Browse Agents")]))
    agent = AgentPublic.model_validate_json(found)
    facts = [("Price", page_head.agent_price_label(agent)), ("Rating", rating_text(agent))]
    offer = pricing.trial_offer(trial_days=agent.trial_days, pricing_model=agent.pricing_model,
                                price_cents=page_head.price_cents(agent))
    if offer:  # what the page's own offer says, for bots and link previews too
        facts.insert(1, ("Free trial", offer))
    if agent.vendor is not None:
        facts.append(("Vendor", agent.vendor.username))
    if agent.tags:
        facts.append(("Tags", ", ".join(agent.tags)))
    category = (Link(href=addresses.category_path(agent.category.slug), text=agent.category.name)
                if agent.category else None)
    return PublicPage(200, page_head.agent_head(agent), PageContent(
        heading=agent.name, paragraphs=list(dict.fromkeys([agent.short_description, *agent.description.split("\n\n")])),
        facts=facts, facts_link=category, changelog=changelog(agent_id)))


def changelog(agent_id: str) -> list[ChangelogEntry]:
    """A live agent's versions for its page (cached with the catalogue: services/versions/history.py)."""
    found = history.live_versions_json(agent_id)
    if found is None:
        return []
    return [ChangelogEntry(label=v.label, day=f"{v.released_at:%b} {v.released_at.day}, {v.released_at.year}",
                           notes_html=v.release_notes_html) for v in history.VERSIONS.validate_json(found)]


def _category_link(category: CategoryPublic) -> Link:
    agents = "agent" if category.agent_count == 1 else "agents"
    return Link(href=addresses.category_path(category.slug), text=category.name,
                note=f"{category.description} ({category.agent_count} {agents})")


def home_page() -> PublicPage:
    featured = catalog.list_agents(featured="true", limit=FEATURED_LIMIT).items
    categories = catalog.list_categories()
    links = [_listing_link(a) for a in featured] + [_category_link(c) for c in categories]
    return PublicPage(200, page_head.home_head(), PageContent(
        heading="Discover AI agents for every task", paragraphs=[page_head.SITE_DESCRIPTION],
        links_heading="Featured agents and categories", links=links,
        pager=[Link(href="/agents", text="Browse all agents"), Link(href="/categories", text="All categories")]))


def categories_page() -> PublicPage:
    return PublicPage(200, page_head.categories_head(), PageContent(
        heading="Categories", paragraphs=["Browse AI agents by what they do."],
        links=[_category_link(c) for c in catalog.list_categories()]))


def _first_values(query: str) -> tuple[dict[str, str], list[str]]:
    first: dict[str, str] = {}
    tags: list[str] = []
    for name, value in parse_qsl(query, keep_blank_values=False):
        first.setdefault(name, value.strip())
        if name == "tag" and value.strip():
            tags.append(value.strip().lower())
    return first, tags


def agents_page(query: str) -> PublicPage:
    """The first page of a filter address as links, with previous/next page links; the address's values are
    read as the page reads them (an unknown price or rating is ignored, as the page ignores it)."""
    first, tags = _first_values(query)
    search = first.get("search", "")
    price, rating = catalog.price_filter(first.get("price")), catalog.rating_filter(first.get("rating"))
    page_text = first.get("page", "1")
    page = int(page_text) if page_text.isdigit() and 0 < int(page_text) <= MAX_PAGE else 1
    slug = first.get("category", "").lower() or None
    category = catalog.find_category(ref=slug) if slug else None
    filters: dict[str, Any] = {"search": search or None, "category": category.slug if category else None,
               "price": None if price == catalog.ANY else price, "rating": None if rating == catalog.ANY else rating,
               "sort": first.get("sort") or None, "tags": tags[: catalog.MAX_TAGS]}
    try:
        listing = catalog.list_agents(**filters, limit=BROWSE_PAGE_SIZE, offset=(page - 1) * BROWSE_PAGE_SIZE)
    except DomainError:  # a value the list refuses (a sort it does not know): the unfiltered first page
        filters = {}
        page = 1
        listing = catalog.list_agents(limit=BROWSE_PAGE_SIZE)
    pages = max((listing.total + BROWSE_PAGE_SIZE - 1) // BROWSE_PAGE_SIZE, 1)
    kept = [(k, v) for k, v in parse_qsl(query) if k != "page"] if filters else []
    pager = []
    if page > 1:
        pager.append(Link(href=_page_address(kept, page - 1), text="Previous page"))
    if page < pages:
        pager.append(Link(href=_page_address(kept, page + 1), text="Next page"))
    heading = f"{category.name} AI Agents" if category else "Browse AI Agents"
    head = page_head.agents_head(category_name=category.name if category else None,
                                 category_slug=category.slug if category else None, page=page,
                                 searching=bool(search), total=listing.total)
    found = "agent" if listing.total == 1 else "agents"
    return PublicPage(200, head, PageContent(
        heading=heading, paragraphs=[f"{listing.total} {found} found. Page {page} of {pages}."],
        links=[_listing_link(a) for a in listing.items], pager=pager))


def _page_address(kept: list[tuple[str, str]], page: int) -> str:
    query = kept + ([("page", str(page))] if page > 1 else [])
    return "/agents" + ("?" + urlencode(query) if query else "")


def public_page(path: str, query: str) -> PublicPage | None:
    """The page for a public address, or None for any other address."""
    if path == "/":
        return home_page()
    if path == "/agents":
        return agents_page(query)
    if path == "/categories":
        return categories_page()
    parts = path.split("/")
    if len(parts) == 3 and parts[1] == "agents" and parts[2]:
        return agent_page(parts[2])
    return None
