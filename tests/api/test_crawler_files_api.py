"""robots.txt, the sitemap and the preview images over HTTP, through the app's whole middleware stack."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

import pytest
from PIL import Image

from marketplace import db
from marketplace.models import Agent, AgentStatus
from marketplace.services.seo import previews, sitemap
from tests.conftest import BASE_URL
from tests.factories import make_agent, make_category, make_vendor

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def _locs(body: bytes, tag: str = "url") -> list[str]:
    return [node.findtext("s:loc", namespaces=NS) or "" for node in ET.fromstring(body).findall(f"s:{tag}", NS)]


def test_robots_txt_allows_the_catalogue_and_names_the_sitemap(client):
    response = client.get("/robots.txt")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    assert response.headers["x-content-type-options"] == "nosniff"  # inside the security middlewares
    lines = response.text.splitlines()
    assert f"Sitemap: {BASE_URL}/sitemap.xml" in lines
    assert {"Disallow: /dashboard", "Disallow: /admin", "Disallow: /api/", "Allow: /api/agents"} <= set(lines)
    head = client.head("/robots.txt")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-length"] == str(len(response.content))


def test_other_methods_and_addresses_pass_through(client):
    assert client.post("/robots.txt").status_code != 200
    assert client.get("/robots.txt/x").status_code == 404
    assert client.get("/api/stats").status_code == 200


def test_sitemap_lists_live_agents_and_categories_only(client):
    vendor = make_vendor()
    make_category("Marketing", slug="marketing")
    live = make_agent(vendor, reviewed_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    hidden = [make_agent(vendor, status=AgentStatus.PENDING), make_agent(vendor, status=AgentStatus.REJECTED),
              make_agent(vendor, deleted_at=datetime.now(UTC))]
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/xml"
    assert _locs(response.content) == [f"{BASE_URL}/", f"{BASE_URL}/agents", f"{BASE_URL}/categories",
                                       f"{BASE_URL}/agents?category=marketing", f"{BASE_URL}/agents/{live.id}"]
    assert b"<lastmod>2026-01-02T03:04:05+00:00</lastmod>" in response.content
    assert not any(agent.id.encode() in response.content for agent in hidden)
    assert client.get("/sitemaps/1.xml").status_code == 404  # everything is in /sitemap.xml


def test_past_the_page_size_the_sitemap_is_an_index_of_paged_files(client, monkeypatch):
    monkeypatch.setattr(sitemap, "MAX_URLS", 3)
    vendor = make_vendor()
    agents = [make_agent(vendor, created_at=datetime(2025, 1, n, tzinfo=UTC)) for n in range(1, 5)]
    index = client.get("/sitemap.xml")
    assert index.status_code == 200 and index.headers["content-type"] == "application/xml"
    files = _locs(index.content, "sitemap")
    assert files == [f"{BASE_URL}/sitemaps/{n}.xml" for n in (1, 2, 3)]
    listed = []
    for address in files:
        page = client.get(address.removeprefix(BASE_URL))
        assert page.status_code == 200 and page.headers["content-type"] == "application/xml"
        listed += _locs(page.content)
    assert listed == [f"{BASE_URL}/", f"{BASE_URL}/agents", f"{BASE_URL}/categories",
                      *(f"{BASE_URL}/agents/{a.id}" for a in agents)]
    for missing in ("/sitemaps/4.xml", "/sitemaps/0.xml", "/sitemaps/99999999999.xml"):
        assert client.get(missing).status_code == 404


def _png(response) -> Image.Image:
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(response.content))
    image.load()
    return image


def test_an_agents_preview_image_is_a_1200x630_png_with_an_etag(client):
    agent = make_agent(make_vendor(), name="InvoiceFlow", category=make_category(), ratings=(5, 4))
    public = previews.catalog.get_agent(agent_id=agent.id)
    path = previews.preview_path(agent=public)
    stamp = path.partition("?v=")[2]

    response = client.get(path)
    image = _png(response)
    assert (image.format, image.size) == ("PNG", (1200, 630))
    assert response.headers["etag"] == f'"{stamp}"'
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert client.get(f"/og/agents/{agent.id}.png").headers["cache-control"] == "public, max-age=3600"

    again = client.get(path, headers={"If-None-Match": f'W/"other", "{stamp}"'})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == f'"{stamp}"'
    head = client.head(path)
    assert head.status_code == 200 and head.content == b"" and int(head.headers["content-length"]) > 1000

    with db.session_scope() as session:  # an approved edit: a new picture, a new ETag
        row = session.get(Agent, agent.id)
        assert row is not None
        row.price_cents, row.updated_at = 4900, datetime.now(UTC)
        session.add(row)
    changed = client.get(f"/og/agents/{agent.id}.png", headers={"If-None-Match": f'"{stamp}"'})
    assert changed.status_code == 200 and changed.headers["etag"] != f'"{stamp}"'
    assert changed.content != response.content


@pytest.mark.parametrize("fields", [{"status": AgentStatus.PENDING}, {"status": AgentStatus.REJECTED},
                                    {"deleted_at": datetime.now(UTC)}])
def test_only_a_live_agent_has_a_preview_image(client, fields):
    agent = make_agent(make_vendor(), **fields)
    assert client.get(f"/og/agents/{agent.id}.png").status_code == 404
    assert client.get("/og/agents/no-such-agent.png").status_code == 404
    assert client.get(f"/og/agents/{'x' * 65}.png").status_code == 404


def test_the_site_preview_image(client):
    response = client.get(previews.site_preview_path())
    image = _png(response)
    assert (image.format, image.size) == ("PNG", (1200, 630))
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert client.get("/og/site.png", headers={"If-None-Match": response.headers["etag"]}).status_code == 304
