"""The head and JSON-LD builder of the public pages, and its HTML placement: escaping, offers, ratings, canonicals."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser

from marketplace.api.public_pages import FALLBACK_SHELL, render
from marketplace.config import settings
from marketplace.models import AgentPublic, CategoryRef, VendorRef
from marketplace.services.seo import page_head, previews
from marketplace.services.seo.public_pages import PageContent, PublicPage

NASTY = '</title><script>alert(1)</script>"&\'<b>'


def agent(**fields: object) -> AgentPublic:
    values: dict[str, object] = dict(
        id="a1", name="InvoiceFlow", short_description="Turns e-mails into invoices.",
        description="Long text.", price="29.99", pricing_model="monthly", tags=["finance"], is_featured=False,
        is_approved=True, status="approved", avg_rating="0.00", review_count=0,
        vendor=VendorRef(id="v1", username="acme"), category=CategoryRef(id=1, name="Finance", slug="finance",
                                                                         emoji="x"),
        created_at=datetime(2026, 1, 1, tzinfo=UTC), updated_at=datetime(2026, 2, 1, tzinfo=UTC))
    return AgentPublic(**{**values, **fields})


class Reader(HTMLParser):
    """What a bot reads: the title, the meta tags, the JSON-LD and the visible text, by element."""

    def __init__(self) -> None:
        super().__init__()
        self.title = ""
        self.meta: dict[str, str] = {}
        self.links: dict[str, str] = {}
        self.json_ld: list[dict] = []
        self.text: list[str] = []
        self.scripts = 0
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta[a.get("property") or a["name"]] = a.get("content", "")
        if tag == "link" and "rel" in a:
            self.links[a["rel"]] = a.get("href", "")
        if tag == "script" and a.get("type") != "application/ld+json":
            self.scripts += 1
        self._in.append(tag if not (tag == "script" and a.get("type") == "application/ld+json") else "ld")

    def handle_endtag(self, tag: str) -> None:
        if self._in:
            self._in.pop()

    def handle_data(self, data: str) -> None:
        where = self._in[-1] if self._in else ""
        if where == "title":
            self.title += data
        elif where == "ld":
            self.json_ld.append(json.loads(data))
        elif where not in ("script", "style"):
            self.text.append(data)


def read(html: str) -> Reader:
    reader = Reader()
    reader.feed(html)
    return reader


def page_of(head: page_head.PageHead, content: PageContent | None = None) -> str:
    return render(FALLBACK_SHELL.decode(), PublicPage(200, head, content or PageContent(heading="x")))


def test_agent_head_has_title_description_canonical_and_preview_tags():
    head = page_head.agent_head(agent())
    bot = read(page_of(head))
    base = settings.public_url.rstrip("/")
    assert bot.title == "InvoiceFlow: Turns e-mails into invoices. | AgentMarket"
    assert bot.meta["description"] == "Turns e-mails into invoices. $29.99/month."
    assert bot.links["canonical"] == f"{base}/agents/a1"
    assert bot.meta["og:type"] == "product"
    assert bot.meta["og:url"] == f"{base}/agents/a1"
    assert re.fullmatch(rf"{re.escape(base)}/og/agents/a1\.png\?v=[0-9a-f]+", bot.meta["og:image"])
    assert bot.meta["og:site_name"] == "AgentMarket"
    assert bot.meta["twitter:card"] == "summary_large_image"
    assert "robots" not in bot.meta


def test_monthly_offer_says_its_billing_period_and_one_time_does_not():
    monthly = page_head.agent_json_ld(agent())[0]["offers"]
    assert (monthly["price"], monthly["priceCurrency"], monthly["availability"]) == (
        "29.99", "USD", "https://schema.org/InStock")
    assert monthly["priceSpecification"]["billingDuration"] == "P1M"
    assert monthly["priceSpecification"]["referenceQuantity"]["unitCode"] == "MON"
    once = page_head.agent_json_ld(agent(pricing_model="one_time", price="49.00"))[0]["offers"]
    assert once["price"] == "49.00"
    assert "priceSpecification" not in once
    free = page_head.agent_json_ld(agent(price="0.00"))[0]["offers"]
    assert (free["price"], "priceSpecification" in free) == ("0.00", False)


def test_rating_only_when_reviews_exist():
    assert "aggregateRating" not in page_head.agent_json_ld(agent())[0]
    rated = page_head.agent_json_ld(agent(avg_rating="4.50", review_count=2))[0]["aggregateRating"]
    assert (rated["ratingValue"], rated["reviewCount"], rated["bestRating"]) == ("4.50", 2, 5)


def test_breadcrumbs_lead_through_the_category():
    crumbs = page_head.agent_json_ld(agent())[1]
    assert crumbs["@type"] == "BreadcrumbList"
    names = [item["name"] for item in crumbs["itemListElement"]]
    assert names == ["Home", "Agents", "Finance", "InvoiceFlow"]
    assert crumbs["itemListElement"][2]["item"].endswith("/agents?category=finance")
    uncategorised = page_head.agent_json_ld(agent(category=None))[1]
    assert [i["position"] for i in uncategorised["itemListElement"]] == [1, 2, 3]


def test_every_value_is_escaped():
    evil = agent(name=NASTY, short_description=NASTY, tags=[NASTY])
    html = page_of(page_head.agent_head(evil), PageContent(heading=NASTY, paragraphs=[NASTY]))
    assert "<script>alert(1)" not in html
    bot = read(html)
    assert bot.scripts == 3  # only the page's own: hide and remove the plain content, drop the server's title
    assert bot.title.startswith(NASTY)
    assert bot.meta["og:title"].startswith(NASTY)
    assert bot.json_ld[0]["name"] == NASTY  # the JSON-LD parses back to the very text
    assert NASTY in "".join(bot.text)


def test_the_preview_address_changes_when_what_it_shows_changes():
    first = previews.preview_path(agent=agent())
    assert previews.preview_path(agent=agent()) == first
    assert previews.preview_path(agent=agent(price="39.99")) != first
    assert previews.preview_path(agent=agent(avg_rating="5.00", review_count=1)) != first


def test_filter_addresses_canonicalise_to_category_and_page():
    head = page_head.agents_head(category_name="Finance", category_slug="finance", page=1, searching=False, total=3)
    assert head.path == "/agents?category=finance"
    assert head.title == "Finance AI Agents | AgentMarket"
    second = page_head.agents_head(category_name=None, category_slug=None, page=2, searching=False, total=30)
    assert second.path == "/agents?page=2"
    assert second.title == "Browse AI Agents, page 2 | AgentMarket"
    searched = page_head.agents_head(category_name=None, category_slug=None, page=1, searching=True, total=1)
    assert (searched.path, searched.indexable) == ("/agents", False)
    assert read(page_of(searched)).meta["robots"] == "noindex, follow"


def test_descriptions_are_clipped_at_a_word():
    long = "word " * 100
    clipped = page_head.clip(long)
    assert len(clipped) <= page_head.DESCRIPTION_MAX
    assert clipped.endswith("word…")


def test_render_replaces_the_generic_title_and_image_and_keeps_the_rest():
    shell = ('<!DOCTYPE html><html lang="en"><head><meta charSet="utf-8"/><title>AgentMarket</title>'
             '<meta content="favicon.ico" property="og:image"/><link rel="stylesheet" href="/x.css"/></head>'
             '<body class="b"><div id="root">app</div></body></html>')
    html = render(shell, PublicPage(200, page_head.home_head(), PageContent(heading="Hello")))
    assert html.count("<title>") == 1
    assert "favicon.ico" not in html
    assert '<link rel="stylesheet" href="/x.css"/>' in html
    assert '<meta charSet="utf-8"/><title>AgentMarket: the marketplace for AI agents</title>' in html  # in place
    assert html.index('<link rel="stylesheet" href="/x.css"/>') < html.index('<meta name="description"')
    assert '<body class="b"><div id="crawler-view">' in html
    assert html.index("crawler-view") < html.index('<div id="root">app</div>')
    bot = read(html)
    assert bot.json_ld[0]["@type"] == "WebSite"
    assert bot.scripts == 2  # the compiled title stays, so nothing needs to drop ours


def test_a_shell_without_a_title_gets_one_that_gives_way_to_the_apps():
    shell = '<html><head><meta charSet="utf-8"/></head><body></body></html>'
    html = render(shell, PublicPage(200, page_head.home_head(), PageContent(heading="Hello")))
    assert "<title data-server-title>AgentMarket: the marketplace for AI agents</title>" in html
    assert "title[data-server-title]" in html
