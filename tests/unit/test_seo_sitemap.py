"""The sitemap builder: live agents only, each with its last approved change, categories' addresses, escaping, and
an index of paged files past the page size."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from marketplace.config import settings
from marketplace.models import AgentStatus
from marketplace.services.admin import moderation
from marketplace.services.seo import sitemap
from marketplace.services.vendors import agents
from marketplace.services.vendors.drafts import AgentDraft
from tests.factories import make_admin, make_agent, make_category, make_vendor

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}
BASE = settings.public_url.rstrip("/")
APPROVED_AT = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


def _urls(body: bytes) -> dict[str, str | None]:
    """loc -> lastmod (None when absent) of a urlset, parsed as a crawler parses it."""
    root = ET.fromstring(body)
    assert root.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}urlset"
    return {url.findtext("s:loc", namespaces=NS): url.findtext("s:lastmod", namespaces=NS)
            for url in root.findall("s:url", NS)}


def _index(body: bytes) -> list[str]:
    root = ET.fromstring(body)
    assert root.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemapindex"
    return [entry.findtext("s:loc", namespaces=NS) for entry in root.findall("s:sitemap", NS)]


def test_lists_the_public_pages_the_categories_and_only_live_agents_with_their_approval_time():
    vendor = make_vendor()
    category = make_category("Data Analysis", slug="data-analysis")
    live = make_agent(vendor, category=category, reviewed_at=APPROVED_AT)
    never_reviewed = make_agent(vendor)  # made live without the approval service: no time to tell
    hidden = [make_agent(vendor, status=AgentStatus.PENDING), make_agent(vendor, status=AgentStatus.REJECTED),
              make_agent(vendor, deleted_at=datetime.now(UTC), reviewed_at=APPROVED_AT)]

    urls = _urls(sitemap.sitemap_xml())

    assert urls == {
        f"{BASE}/": None, f"{BASE}/agents": None, f"{BASE}/categories": None,
        f"{BASE}/agents?category=data-analysis": None,
        f"{BASE}/agents/{live.id}": "2026-03-04T05:06:07+00:00",
        f"{BASE}/agents/{never_reviewed.id}": None,
    }
    assert not any(agent.id in loc for agent in hidden for loc in urls)
    assert sitemap.sitemap_page_xml(number=1) is None  # one file holds everything: no paged files


def test_lastmod_is_the_last_approved_change_not_a_pending_edit():
    admin, vendor = make_admin(), make_vendor()
    category = make_category()
    agent = make_agent(vendor, category=category, reviewed_at=APPROVED_AT, files=1)
    loc = f"{BASE}/agents/{agent.id}"
    draft = AgentDraft(name="Renamed", short_description="Short", description="Long text", price="29.99",
                       category_id=category.id, tags=[])
    agents.update_agent(actor=vendor, agent_id=agent.id, draft=draft)  # a revision waits: the page is unchanged
    assert _urls(sitemap.sitemap_xml())[loc] == "2026-03-04T05:06:07+00:00"

    before = datetime.now(UTC).replace(microsecond=0)
    moderation.approve(actor=admin, agent_id=agent.id)
    lastmod = datetime.fromisoformat(_urls(sitemap.sitemap_xml())[loc] or "")
    assert before <= lastmod <= datetime.now(UTC)


def test_past_the_page_size_it_answers_an_index_of_files_that_hold_every_address_once():
    vendor = make_vendor()
    make_category("Marketing", slug="marketing")
    start = datetime(2025, 1, 1, tzinfo=UTC)
    live = [make_agent(vendor, created_at=start + timedelta(days=n), reviewed_at=start + timedelta(days=n, hours=1))
            for n in range(6)]
    make_agent(vendor, status=AgentStatus.PENDING)

    # 3 pages + 1 category + 6 agents = 10 addresses, 4 per file -> 3 files.
    assert _index(sitemap.sitemap_xml(page_size=4)) == [f"{BASE}/sitemaps/{n}.xml" for n in (1, 2, 3)]
    files = [_urls(sitemap.sitemap_page_xml(number=n, page_size=4) or b"") for n in (1, 2, 3)]
    assert [len(f) for f in files] == [4, 4, 2]
    assert list(files[0]) == [f"{BASE}/", f"{BASE}/agents", f"{BASE}/categories", f"{BASE}/agents?category=marketing"]
    agent_locs = [loc for f in files[1:] for loc in f]
    assert agent_locs == [f"{BASE}/agents/{a.id}" for a in live]  # oldest first: a new agent goes last
    assert files[2][f"{BASE}/agents/{live[5].id}"] == "2025-01-06T01:00:00+00:00"
    for missing in (0, 4, 10**6):
        assert sitemap.sitemap_page_xml(number=missing, page_size=4) is None

    # A file that starts inside the fixed addresses and ends among the agents.
    assert list(_urls(sitemap.sitemap_page_xml(number=1, page_size=6) or b"")) == [
        f"{BASE}/", f"{BASE}/agents", f"{BASE}/categories", f"{BASE}/agents?category=marketing",
        f"{BASE}/agents/{live[0].id}", f"{BASE}/agents/{live[1].id}"]
    # Exactly one file's worth: no index.
    assert len(_urls(sitemap.sitemap_xml(page_size=10))) == 10


def test_addresses_are_url_encoded_and_xml_escaped(monkeypatch):
    monkeypatch.setattr(settings, "public_url", "https://shop.example/market&co/")
    make_category("Odd", slug="a&b <c>\"'")
    body = sitemap.sitemap_xml()
    assert b"&co" not in body.replace(b"&amp;", b"")  # no bare ampersand anywhere
    urls = _urls(body)
    assert "https://shop.example/market&co/agents?category=a%26b%20%3Cc%3E%22%27" in urls
    assert "https://shop.example/market&co/" in urls
