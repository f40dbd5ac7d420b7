"""The public pages in the built app: what a bot reads without JavaScript, and that people still get the app
unchanged (the server's plain content is never painted and React keeps the server's styles)."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import open_page, shot
from tests.unit.test_page_head import read

# Records, at the moment the parser adds the server's plain content, whether it would be painted.
WATCH_PLAIN_CONTENT = """
window.__plainShown = [];
new MutationObserver((changes) => {
  for (const change of changes) for (const node of change.addedNodes)
    if (node.id === "crawler-view") window.__plainShown.push(getComputedStyle(node).display);
}).observe(document, {childList: true, subtree: true});
"""


@pytest.fixture(scope="module")
def live_agent(app_server: str) -> dict:
    agents = httpx.get(f"{app_server}/api/agents", params={"search": "invoiceflow"}).json()
    return next(a for a in agents if a["name"] == "InvoiceFlow")


def test_a_bot_reads_every_public_page(app_server: str, live_agent: dict) -> None:
    agent = httpx.get(f"{app_server}/agents/{live_agent['id']}")
    assert agent.status_code == 200
    bot = read(agent.text)
    assert bot.title.startswith("InvoiceFlow: ")
    assert live_agent["shortDescription"] in bot.meta["description"]
    assert bot.meta["og:image"].startswith(app_server + f"/og/agents/{live_agent['id']}.png")
    offer = bot.json_ld[0]["offers"]
    assert (offer["price"], offer["priceCurrency"]) == (live_agent["price"], "USD")
    assert "InvoiceFlow" in bot.text
    assert bot.links["canonical"] == f"{app_server}/agents/{live_agent['id']}"
    assert agent.text.count("<title") == 1  # one title, however the compiled page came

    missing = httpx.get(f"{app_server}/agents/no-such-agent")
    assert missing.status_code == 404
    assert read(missing.text).title == "Agent Not Found | AgentMarket"

    listing = httpx.get(f"{app_server}/agents")
    assert listing.status_code == 200
    assert f'href="/agents/{live_agent["id"]}"' in listing.text or 'href="/agents?page=2">Next page' in listing.text
    assert "Loading agents..." in listing.text  # the app's own page is still there, behind the plain content
    titles = {"/": "AgentMarket: the marketplace for AI agents", "/categories": "Categories | AgentMarket"}
    for path, title in titles.items():
        response = httpx.get(app_server + path)
        assert response.status_code == 200
        page = read(response.text)
        assert page.title == title
        assert page.meta["og:image"].startswith(f"{app_server}/og/site.png?v=")
        assert page.meta["description"]


@pytest.mark.parametrize("width", [1280, 390])
def test_people_get_the_app_unchanged(page: Page, live_agent: dict, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    page.add_init_script(WATCH_PLAIN_CONTENT)
    open_page(page, f"/agents/{live_agent['id']}")
    expect(page.locator("#agent-name")).to_have_text("InvoiceFlow")
    assert page.evaluate("window.__plainShown") == ["none"]  # hidden from the moment it was parsed
    expect(page.locator("#crawler-view")).to_have_count(0)
    assert page.title() == read(httpx.get(page.url).text).title
    assert page.evaluate("document.querySelectorAll('title').length") == 1
    # React kept the server's styles: the top bar's links are hidden on a phone, as on every other page.
    links = page.locator(".top-bar-link").first
    if width == 1280:
        expect(links).to_be_visible()
    else:
        expect(links).to_be_hidden()
    shot(page, f"public-agent-page-{width}")

    # A client-side move to another agent retitles the tab.
    open_page(page, "/agents")
    expect(page).to_have_title("Browse AI Agents | AgentMarket")
    other = page.locator("#agents-grid a[href^='/agents/']").filter(has_not_text="InvoiceFlow").first
    other.click()
    expect(page.locator("#agent-name")).not_to_have_text("InvoiceFlow")
    name = page.locator("#agent-name").inner_text()
    expect(page).to_have_title(re.compile("^" + re.escape(name) + ": .+ [|] AgentMarket$"))
