"""The head of a public page as data: title, description, canonical URL, Open Graph/Twitter tags and JSON-LD.

Reflex fills titles in the browser and prerenders no page with a parameter, so link previews and crawlers that
read only the HTML saw one shell for every agent. The HTTP layer places what is built here (`api/public_pages.py`);
every value is plain text here and is escaped there, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from marketplace.models import AgentPublic
from marketplace.models.billing import PricingModel
from marketplace.services.money import price_label
from marketplace.services.seo import previews
from marketplace.services.seo.addresses import absolute, agent_path, category_path

SITE_NAME = "AgentMarket"
SITE_DESCRIPTION = ("AgentMarket is a marketplace for AI agents: find, buy and download agents for content, "
                    "automation, analysis, customer support and more, from independent vendors.")
HOME_TITLE = f"{SITE_NAME}: the marketplace for AI agents"
DESCRIPTION_MAX = 200  # characters; search engines show about 155-160
CURRENCY = "USD"  # agents are priced in US dollars (checkout may convert; the listed price is this)
SCHEMA = "https://schema.org"


@dataclass(frozen=True)
class PageHead:
    title: str
    description: str
    path: str  # canonical path and query, from the site's root
    og_type: str = "website"
    image_path: str = ""  # the site's picture when empty
    indexable: bool = True
    json_ld: list[dict[str, Any]] = field(default_factory=list)

    @property
    def canonical(self) -> str:
        return absolute(self.path)

    @property
    def image(self) -> str:
        return absolute(self.image_path or previews.site_preview_path())


def clip(text: str, limit: int = DESCRIPTION_MAX) -> str:
    """One line of at most `limit` characters, cut at a word with an ellipsis."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] or line[: limit - 1]
    return cut.rstrip(" ,.;:") + "…"


def price_cents(agent: AgentPublic) -> int:
    return int(Decimal(agent.price) * 100)


def agent_price_label(agent: AgentPublic) -> str:
    return price_label(price_cents(agent), pricing_model=agent.pricing_model)


def has_rating(agent: AgentPublic) -> bool:
    return agent.review_count > 0


def _offer(agent: AgentPublic, url: str) -> dict[str, Any]:
    price = f"{Decimal(agent.price):.2f}"
    offer: dict[str, Any] = {"@type": "Offer", "price": price, "priceCurrency": CURRENCY,
                             "availability": f"{SCHEMA}/InStock", "url": url}
    if agent.vendor is not None:
        offer["seller"] = {"@type": "Organization", "name": agent.vendor.username}
    if agent.pricing_model == PricingModel.MONTHLY and price_cents(agent) > 0:
        offer["priceSpecification"] = {
            "@type": "UnitPriceSpecification", "price": price, "priceCurrency": CURRENCY,
            "billingDuration": "P1M", "unitCode": "MON",
            "referenceQuantity": {"@type": "QuantitativeValue", "value": 1, "unitCode": "MON"},
        }
    return offer


def agent_json_ld(agent: AgentPublic) -> list[dict[str, Any]]:
    """`SoftwareApplication` with its offer (a monthly price says its billing period), a rating only when
    reviews exist (structured data may not claim a rating nobody gave), and the breadcrumb trail."""
    url = absolute(agent_path(agent.id))
    app: dict[str, Any] = {
        "@context": SCHEMA, "@type": "SoftwareApplication", "name": agent.name,
        "description": agent.short_description, "url": url, "image": absolute(previews.preview_path(agent=agent)),
        "applicationCategory": "BusinessApplication", "operatingSystem": "Any",
        "offers": _offer(agent, url),
    }
    if agent.category is not None:
        app["applicationSubCategory"] = agent.category.name
    if agent.tags:
        app["keywords"] = ", ".join(agent.tags)
    if has_rating(agent):
        app["aggregateRating"] = {"@type": "AggregateRating", "ratingValue": agent.avg_rating,
                                  "reviewCount": agent.review_count, "bestRating": 5, "worstRating": 1}
    trail = [("Home", "/"), ("Agents", "/agents")]
    if agent.category is not None:
        trail.append((agent.category.name, category_path(agent.category.slug)))
    trail.append((agent.name, agent_path(agent.id)))
    crumbs = {"@context": SCHEMA, "@type": "BreadcrumbList", "itemListElement": [
        {"@type": "ListItem", "position": n, "name": name, "item": absolute(path)}
        for n, (name, path) in enumerate(trail, start=1)
    ]}
    return [app, crumbs]


def agent_title(*, name: str, short_description: str) -> str:
    """The agent page's title, the same in the server's HTML and in the browser's tab."""
    return f"{name}: {clip(short_description, 90)} | {SITE_NAME}"


def agent_head(agent: AgentPublic) -> PageHead:
    return PageHead(
        title=agent_title(name=agent.name, short_description=agent.short_description),
        description=clip(f"{agent.short_description} {agent_price_label(agent)}."),
        path=agent_path(agent.id), og_type="product", image_path=previews.preview_path(agent=agent),
        json_ld=agent_json_ld(agent),
    )


def missing_agent_head(agent_id: str) -> PageHead:
    return PageHead(title=f"Agent Not Found | {SITE_NAME}", description="This agent is not available.",
                    path=agent_path(agent_id), indexable=False)


def home_head() -> PageHead:
    website = {"@context": SCHEMA, "@type": "WebSite", "name": SITE_NAME, "url": absolute("/"),
               "potentialAction": {"@type": "SearchAction", "target": absolute("/agents?search={query}"),
                                   "query-input": "required name=query"}}
    return PageHead(title=HOME_TITLE, description=SITE_DESCRIPTION, path="/",
                    json_ld=[website])


def categories_head() -> PageHead:
    return PageHead(title=f"Categories | {SITE_NAME}",
                    description="Browse AI agents by category: content, automation, analytics, support and more.",
                    path="/categories")


def agents_head(*, category_name: str | None, category_slug: str | None, page: int, searching: bool,
                total: int) -> PageHead:
    """A filter address canonicalises to its category and page: search words, price, rating, sort and tags only
    narrow or reorder the same listing, and a search's results are not a page to index."""
    query: dict[str, str] = {}
    if category_slug:
        query["category"] = category_slug
    if page > 1:
        query["page"] = str(page)
    path = "/agents" + ("?" + urlencode(query) if query else "")
    if category_name:
        title = f"{category_name} AI Agents | {SITE_NAME}"
        description = f"{total} {category_name} AI agents on {SITE_NAME}: compare prices, ratings and vendors."
    else:
        title = f"Browse AI Agents | {SITE_NAME}"
        description = f"Browse {total} AI agents on {SITE_NAME}: compare prices, ratings and vendors."
    if page > 1:
        title = title.replace(f" | {SITE_NAME}", f", page {page} | {SITE_NAME}")
    return PageHead(title=title, description=description, path=path, indexable=not searching)
