"""The public pages over HTTP as a bot reads them (no JavaScript): status codes, head and content.

The bare API app has no compiled pages, so these pages are filled into the fallback shell; the browser tests read
the same pages from the built app (tests/e2e/test_public_pages.py)."""

from __future__ import annotations

from marketplace.models import AgentStatus, Role
from marketplace.services.seo.public_pages import BROWSE_PAGE_SIZE
from tests.factories import ago, make_agent, make_category
from tests.unit.test_page_head import read


def test_live_agent_page_is_readable_without_javascript(client, make_user):
    vendor = make_user("acme", role=Role.VENDOR, vendor_approved=True)
    finance = make_category("Finance", slug="finance")
    agent = make_agent(vendor, "InvoiceFlow", short_description="Turns e-mails into invoices.",
                       description="Reads your inbox.\n\nWrites the invoices.", price_cents=2999, category=finance,
                       ratings=(5, 4))
    response = client.get(f"/agents/{agent.id}")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    bot = read(response.text)
    assert bot.title.startswith("InvoiceFlow: Turns e-mails into invoices.")
    assert bot.meta["description"] == "Turns e-mails into invoices. $29.99/month."
    assert bot.meta["og:image"].split("?")[0].endswith(f"/og/agents/{agent.id}.png")
    app, crumbs = bot.json_ld
    assert (app["offers"]["price"], app["offers"]["priceCurrency"]) == ("29.99", "USD")
    assert app["aggregateRating"]["reviewCount"] == 2
    assert crumbs["itemListElement"][2]["name"] == "Finance"
    text = " ".join(bot.text)
    for shown in ("InvoiceFlow", "Reads your inbox.", "Writes the invoices.", "$29.99/month", "acme", "Finance",
                  "Rated 4.50 out of 5 (2 reviews)"):
        assert shown in text


def test_a_free_trial_is_in_the_page_bots_read(client, make_user):
    agent = make_agent(make_user("acme", role=Role.VENDOR, vendor_approved=True), "TrialBot", price_cents=1999,
                       trial_days=7)
    text = " ".join(read(client.get(f"/agents/{agent.id}").text).text)
    assert "Free for 7 days, then $19.99/month" in text


def test_agent_pages_that_are_not_live_answer_404(client, make_user):
    vendor = make_user("acme", role=Role.VENDOR, vendor_approved=True)
    hidden = [make_agent(vendor, "P", status=AgentStatus.PENDING), make_agent(vendor, "R", status=AgentStatus.REJECTED),
              make_agent(vendor, "D", deleted_at=ago(days=1))]
    for address in [*(f"/agents/{a.id}" for a in hidden), "/agents/no-such-agent"]:
        response = client.get(address)
        assert response.status_code == 404, address
        bot = read(response.text)
        assert bot.title == "Agent Not Found | AgentMarket"
        assert bot.meta["robots"] == "noindex, follow"
        assert "Agent Not Found" in bot.text


def test_head_answers_like_get_without_a_body(client, make_user):
    agent = make_agent(make_user("acme", role=Role.VENDOR, vendor_approved=True), "Live")
    assert (client.head(f"/agents/{agent.id}").status_code, client.head("/agents/nope").status_code) == (200, 404)
    assert client.head("/agents").content == b""


def test_an_unchanged_page_answers_304(client, make_user):
    agent = make_agent(make_user("acme", role=Role.VENDOR, vendor_approved=True), "Live")
    first = client.get(f"/agents/{agent.id}")
    again = client.get(f"/agents/{agent.id}", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304


def test_agents_page_lists_the_first_page_as_links_with_paging(client, make_user):
    vendor = make_user("acme", role=Role.VENDOR, vendor_approved=True)
    agents = [make_agent(vendor, f"Agent {n:02d}", created_at=ago(minutes=n)) for n in range(BROWSE_PAGE_SIZE + 2)]
    make_agent(vendor, "Secret", status=AgentStatus.PENDING)
    response = client.get("/agents")
    assert response.status_code == 200
    html = response.text
    assert f'href="/agents/{agents[0].id}"' in html
    assert f'href="/agents/{agents[-1].id}"' not in html  # on page 2
    assert "Secret" not in html
    assert 'href="/agents?page=2">Next page' in html
    bot = read(html)
    assert bot.title == "Browse AI Agents | AgentMarket"
    second = client.get("/agents?page=2").text
    assert f'href="/agents/{agents[-1].id}"' in second
    assert 'href="/agents">Previous page' in second
    assert read(second).links["canonical"].endswith("/agents?page=2")


def test_filter_addresses_keep_their_filters_and_canonicalise(client, make_user):
    vendor = make_user("acme", role=Role.VENDOR, vendor_approved=True)
    finance = make_category("Finance", slug="finance")
    inside = make_agent(vendor, "InvoiceFlow", category=finance)
    outside = make_agent(vendor, "Other")
    html = client.get("/agents?category=finance&sort=rating&price=nonsense").text
    assert f"/agents/{inside.id}" in html and f"/agents/{outside.id}" not in html
    bot = read(html)
    assert bot.title == "Finance AI Agents | AgentMarket"
    assert bot.links["canonical"].endswith("/agents?category=finance")
    searched = read(client.get("/agents?search=invoiceflow").text)
    assert searched.links["canonical"].endswith("/agents")
    assert searched.meta["robots"] == "noindex, follow"
    assert client.get("/agents?sort=nonsense").status_code == 200  # a value the list refuses: the first page


def test_home_and_categories_pages(client, make_user):
    vendor = make_user("acme", role=Role.VENDOR, vendor_approved=True)
    finance = make_category("Finance", slug="finance", description="Money matters")
    featured = make_agent(vendor, "Star", category=finance, is_featured=True)
    home = client.get("/")
    assert home.status_code == 200
    bot = read(home.text)
    assert bot.title == "AgentMarket: the marketplace for AI agents"
    assert bot.meta["description"].startswith("AgentMarket is a marketplace for AI agents")
    assert "/og/site.png?v=" in bot.meta["og:image"]
    assert f'href="/agents/{featured.id}"' in home.text and 'href="/agents?category=finance"' in home.text
    categories = client.get("/categories")
    assert categories.status_code == 200
    assert read(categories.text).title == "Categories | AgentMarket"
    assert 'href="/agents?category=finance">Finance</a>' in categories.text
    assert "Money matters (1 agent)" in categories.text


def test_other_addresses_pass_through(client):
    assert client.get("/agents/a/b").status_code == 404
    assert client.post("/agents").status_code != 200


def test_a_browser_asking_for_compressed_or_cached_pages_gets_the_filled_page(client, make_user):
    agent = make_agent(make_user("acme", role=Role.VENDOR, vendor_approved=True), "Live")
    response = client.get(f"/agents/{agent.id}", headers={"Accept-Encoding": "gzip, br",
                                                           "If-None-Match": '"stale"'})
    assert response.status_code == 200
    assert read(response.text).title.startswith("Live: ")


def test_if_none_match_lists_and_weak_tags_are_understood(client, make_user):
    agent = make_agent(make_user("acme", role=Role.VENDOR, vendor_approved=True), "Live")
    etag = client.get(f"/agents/{agent.id}").headers["etag"]
    assert client.get(f"/agents/{agent.id}", headers={"If-None-Match": f'"other", W/{etag}'}).status_code == 304
    assert client.get(f"/agents/{agent.id}", headers={"If-None-Match": etag[:-3] + '"'}).status_code == 200
