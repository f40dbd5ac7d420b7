"""Catalog pages in a real browser: landing, home, /agents filters in the address, agent detail actions, categories.

The app runs with the deterministic demo data (marketplace/services/demo.py): 26 live agents in 10 categories,
six featured, and past sales by the demo reviewers (maria, kenji, ...). Other browser tests share the app and
may approve agents of their own, so the whole-catalogue totals are read from the API at the time of the check.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import Page, expect

from tests.e2e.helpers import buy, expect_toast, live_agent_id, open_page, shot, sign_in, sign_up

PAGE_SIZE = 12
MARKETING = {"AdCraft", "SEO Scout", "Social Scheduler"}
# Featured demo agents that the demo reviewer maria bought (demo.py seeds its sales with Random(42)).
MARIA_FEATURED_PURCHASES = {"BlogSmith", "CodeReviewer Pro"}


def _live_agents(page: Page) -> int:
    """Live agents right now: the demo's 26 plus any another browser test has had approved."""
    response = page.request.get("/api/agents?limit=1")
    assert response.ok
    return int(response.headers["x-total-count"])


def _query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def _card_names(page: Page) -> list[str]:
    return [n.strip() for n in page.locator("#agents-grid .agent-name").all_inner_texts()]


def _counted(label: str) -> re.Pattern[str]:
    """A filter option's text: its label, and on /agents the number of agents it would list ("Marketing (3)")."""
    return re.compile(rf"^{re.escape(label)}( \(\d+\))?$")


def _choose(page: Page, select_id: str, option: str) -> None:
    page.click(f"#{select_id}")
    page.get_by_role("option", name=_counted(option)).click()


# ---- /agents -------------------------------------------------------------------------------------


def test_category_from_address_filters_and_every_filter_goes_back_into_the_address(page: Page) -> None:
    open_page(page, "/agents?category=marketing")
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    expect(page.locator("#category-filter")).to_have_text(_counted("Marketing"))
    assert set(_card_names(page)) == MARKETING

    _choose(page, "sort-filter", "Price: Low to High")
    expect(page.locator("#agents-grid .agent-name")).to_have_text(["Social Scheduler", "SEO Scout", "AdCraft"])
    _choose(page, "price-filter", "$10 - $50")
    expect(page).to_have_url(re.compile(r"price=10-50"))
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    page.click("#tag-automation")
    expect(page.locator("#result-count")).to_have_text("1 agent found")
    assert _card_names(page) == ["Social Scheduler"]
    _choose(page, "rating-filter", "4+ stars")
    expect(page).to_have_url(re.compile(r"rating=4"))
    assert _query(page) == {"category": ["marketing"], "price": ["10-50"], "rating": ["4+"], "sort": ["price-low"],
                            "tag": ["automation"]}
    shot(page, "agents-filtered")

    # The address alone restores every filter (shareable link, reload).
    open_page(page, page.url)
    expect(page.locator("#result-count")).to_have_text("1 agent found")
    expect(page.locator("#category-filter")).to_have_text(_counted("Marketing"))
    expect(page.locator("#price-filter")).to_have_text(_counted("$10 - $50"))
    expect(page.locator("#rating-filter")).to_have_text(_counted("4+ stars"))
    expect(page.locator("#sort-filter")).to_have_text("Price: Low to High")
    expect(page.locator("#tag-automation")).to_have_attribute("aria-pressed", "true")

    page.click("#clear-filters-top")
    expect(page.locator("#result-count")).to_have_text(f"{_live_agents(page)} agents found")
    expect(page).to_have_url(re.compile(r"/agents/?$"))
    expect(page.locator("#category-filter")).to_have_text("All categories")


def test_empty_result_offers_clear_filters(page: Page) -> None:
    open_page(page, "/agents?category=marketing&price=free")
    expect(page.locator("#agents-empty")).to_be_visible()
    expect(page.locator("#result-count")).to_have_text("0 agents found")
    shot(page, "agents-empty")
    page.click("#clear-filters")
    expect(page.locator("#result-count")).to_have_text(f"{_live_agents(page)} agents found")
    expect(page.locator("#agents-grid .agent-card")).to_have_count(PAGE_SIZE)


def test_search_shows_best_match_first(page: Page) -> None:
    open_page(page, "/agents")
    page.fill("#agent-search", "blog")
    expect(page.locator("#agents-grid .agent-name").first).to_have_text("BlogSmith")
    expect(page).to_have_url(re.compile(r"search=blog"))
    expect(page.locator("#sort-filter")).to_have_text("Best match")
    shot(page, "agents-search")


def test_filter_options_show_their_counts_and_follow_the_filters(page: Page) -> None:
    open_page(page, "/agents?category=marketing")
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    # The counts as the service gives them now (other browser tests may have approved agents of their own).
    facets = page.request.get("/api/agents/facets?category=marketing").json()
    data = next(c["count"] for c in facets["categories"] if c["slug"] == "data-analysis")
    ten_to_fifty = next(p["count"] for p in facets["prices"] if p["value"] == "10-50")
    expect(page.locator("#category-filter")).to_have_text("Marketing (3)")  # its own filter ignored: all marketing
    page.click("#price-filter")
    expect(page.get_by_role("option", name=f"$10 - $50 ({ten_to_fifty})", exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    page.click("#category-filter")
    expect(page.get_by_role("option", name=f"Data Analysis ({data})", exact=True)).to_be_visible()
    page.keyboard.press("Escape")
    shot(page, "agents-filter-counts")

    # A filter changes the other filters' counts: with the tag `automation`, one marketing agent is left.
    page.click("#tag-automation")
    expect(page.locator("#result-count")).to_have_text("1 agent found")
    expect(page.locator("#category-filter")).to_have_text("Marketing (1)")
    facets = page.request.get("/api/agents/facets?category=marketing&tag=automation").json()
    automation = next(c["count"] for c in facets["categories"] if c["slug"] == "business-automation")
    page.click("#category-filter")
    expect(page.get_by_role("option", name=f"Business Automation ({automation})", exact=True)).to_be_visible()
    page.keyboard.press("Escape")


def test_a_search_with_a_typo_still_finds_the_agent(page: Page) -> None:
    open_page(page, "/agents?search=invoce")
    expect(page.locator("#agents-grid .agent-name").first).to_have_text("InvoiceFlow")
    expect(page.locator("#result-count")).to_have_text("1 agent found")
    page.fill("#agent-search", "anlytics")
    expect(page).to_have_url(re.compile(r"search=anlytics"))
    for name in ("InsightLens", "Churn Oracle", "Report Robot"):  # the demo's agents tagged `analytics`
        expect(page.locator("#agents-grid .agent-name", has_text=name)).to_have_count(1)


def test_paging_through_the_results(page: Page) -> None:
    open_page(page, "/agents")
    expect(page.locator("#result-count")).to_have_text(f"{_live_agents(page)} agents found")
    expect(page.locator("#agents-grid .agent-card")).to_have_count(PAGE_SIZE)
    first_page = _card_names(page)
    page.click("#page-next")
    expect(page).to_have_url(re.compile(r"page=2"))
    expect(page.locator("#page-of")).to_have_text("Page 2 of 3")
    expect(page.locator("#agents-grid .agent-card")).to_have_count(PAGE_SIZE)
    assert not set(_card_names(page)) & set(first_page)
    page.get_by_role("button", name="Page 3").click()
    expect(page.locator("#agents-grid .agent-card")).to_have_count(_live_agents(page) - 2 * PAGE_SIZE)
    expect(page.locator("#page-next")).to_be_disabled()
    shot(page, "agents-page-3")
    open_page(page, "/agents?page=3")  # a page is addressable too
    expect(page.locator("#agents-grid .agent-card")).to_have_count(_live_agents(page) - 2 * PAGE_SIZE)
    page.click("#page-prev")
    expect(page).to_have_url(re.compile(r"page=2"))
    # The address is written by the page, unseen by the client router; its link to plain /agents still starts over.
    open_page(page, "/agents")
    page.click("#page-next")
    expect(page.locator("#page-of")).to_have_text("Page 2 of 3")
    page.get_by_role("link", name="Browse Agents").first.click()
    expect(page).to_have_url(re.compile(r"/agents/?$"))
    expect(page.locator("#page-of")).to_have_text("Page 1 of 3")


def test_each_filter_change_is_a_history_entry_and_back_restores_the_filters(page: Page) -> None:
    open_page(page, "/agents")
    everything = f"{_live_agents(page)} agents found"
    expect(page.locator("#result-count")).to_have_text(everything)
    _choose(page, "category-filter", "Marketing")
    expect(page).to_have_url(re.compile(r"category=marketing"))
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    page.click("#tag-automation")
    expect(page).to_have_url(re.compile(r"tag=automation"))
    expect(page.locator("#result-count")).to_have_text("1 agent found")
    _choose(page, "sort-filter", "Price: Low to High")
    expect(page).to_have_url(re.compile(r"sort=price-low"))
    # A search typed in two goes is one entry: Back leaves the search at once.
    page.fill("#agent-search", "soc")
    expect(page).to_have_url(re.compile(r"search=soc"))
    page.fill("#agent-search", "social")
    expect(page).to_have_url(re.compile(r"search=social"))
    expect(page.locator("#result-count")).to_have_text("1 agent found")

    page.go_back()
    expect(page).to_have_url(re.compile(r"/agents/?\?category=marketing&sort=price-low&tag=automation$"))
    expect(page.locator("#agent-search")).to_have_value("")
    expect(page.locator("#sort-filter")).to_have_text("Price: Low to High")
    page.go_back()
    expect(page).to_have_url(re.compile(r"/agents/?\?category=marketing&tag=automation$"))
    expect(page.locator("#sort-filter")).to_have_text("Most Popular")
    expect(page.locator("#tag-automation")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#result-count")).to_have_text("1 agent found")
    page.go_back()
    expect(page).to_have_url(re.compile(r"/agents/?\?category=marketing$"))
    expect(page.locator("#tag-automation")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    assert set(_card_names(page)) == MARKETING
    page.go_back()
    expect(page).to_have_url(re.compile(r"/agents/?$"))
    expect(page.locator("#category-filter")).to_have_text("All categories")
    expect(page.locator("#result-count")).to_have_text(everything)
    page.go_forward()
    expect(page).to_have_url(re.compile(r"/agents/?\?category=marketing$"))
    expect(page.locator("#category-filter")).to_have_text(_counted("Marketing"))
    expect(page.locator("#result-count")).to_have_text("3 agents found")

    # Paging is an entry too, and a change made after Back starts a new branch of history.
    open_page(page, "/agents")
    page.click("#page-next")
    expect(page.locator("#page-of")).to_have_text("Page 2 of 3")
    page.go_back()
    expect(page).to_have_url(re.compile(r"/agents/?$"))
    expect(page.locator("#page-of")).to_have_text("Page 1 of 3")
    page.click("#tag-automation")
    expect(page).to_have_url(re.compile(r"tag=automation"))
    page.go_back()
    expect(page.locator("#tag-automation")).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#page-of")).to_have_text("Page 1 of 3")


def test_a_page_past_the_last_is_corrected_in_the_address(page: Page) -> None:
    open_page(page, "/agents?category=marketing")
    expect(page.locator("#result-count")).to_have_text("3 agents found")
    last = -(-_live_agents(page) // PAGE_SIZE)
    open_page(page, "/agents?sort=newest&page=99")
    expect(page.locator("#page-of")).to_have_text(f"Page {last} of {last}")
    expect(page).to_have_url(re.compile(rf"/agents/?\?sort=newest&page={last}$"))
    open_page(page, "/agents?page=0")
    expect(page.locator("#page-of")).to_have_text(f"Page 1 of {last}")
    expect(page).to_have_url(re.compile(r"/agents/?$"))
    # Corrections replace the entry they correct: Back goes to the pages visited before them.
    page.go_back()
    expect(page).to_have_url(re.compile(rf"page={last}$"))
    page.go_back()
    expect(page).to_have_url(re.compile(r"/agents/?\?category=marketing$"))
    expect(page.locator("#result-count")).to_have_text("3 agents found")


def test_open_an_agent_from_its_card_and_come_back(page: Page) -> None:
    open_page(page, "/agents?search=blog")
    page.locator("#agents-grid .agent-card").first.click()
    expect(page).to_have_url(re.compile(r"/agents/[0-9a-f]{32}/?$"))
    expect(page.locator("#agent-name")).to_have_text("BlogSmith")
    expect(page.locator("#status-badge")).to_have_text("Approved")
    expect(page.locator("#featured-badge")).to_be_visible()
    expect(page.locator("#agent-price")).to_have_text("$29.99")
    expect(page.locator("#info-category")).to_have_text("Content Creation")
    expect(page.locator("#try-demo")).to_have_attribute("target", "_blank")
    expect(page.locator("#get-agent")).to_be_visible()
    expect(page.locator("#agent-tags")).to_contain_text("writing")
    expect(page.locator(".review-item").first).to_be_visible()
    expect(page.locator(".verified-purchase").first).to_be_visible()
    expect(page.locator("#review-form")).to_have_count(0)  # signed out: no review form, no report button
    expect(page.locator("#report")).to_have_count(0)
    shot(page, "agent-detail")
    page.go_back()
    expect(page).to_have_url(re.compile(r"/agents/?\?search=blog$"))
    expect(page.locator("#agent-search")).to_have_value("blog")
    expect(page.locator("#agents-grid .agent-name").first).to_have_text("BlogSmith")


def test_get_this_agent_goes_to_checkout(page: Page) -> None:
    """A customer's button opens the agent's checkout (a signed-out visitor's passes through it to sign-in, too
    briefly to watch; tests/e2e/test_guest_checkout.py follows that path)."""
    sign_up(page, "getter")
    agent_id = live_agent_id(page, "InsightLens")
    open_page(page, f"/agents/{agent_id}")
    page.click("#get-agent")
    expect(page).to_have_url(re.compile(rf"/checkout/{agent_id}/?$"))
    expect(page.locator("#order-summary")).to_be_visible()


def test_demo_agents_show_their_own_long_cached_pictures(page: Page) -> None:
    pictures = {}
    for name in ("BlogSmith", "InsightLens"):
        with page.expect_response(re.compile(r"/api/demo-images/[a-z-]+\.svg\?v=[0-9a-f]{12}$")) as answer:
            open_page(page, f"/agents/{live_agent_id(page, name)}")
        assert answer.value.status == 200
        assert answer.value.headers["cache-control"] == "public, max-age=31536000, immutable"
        image = page.locator("img.agent-image").first
        expect(image).to_have_attribute("referrerpolicy", "no-referrer")
        expect(image).to_have_attribute("loading", "lazy")
        page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
        pictures[name] = image.get_attribute("src")
    assert pictures["BlogSmith"] != pictures["InsightLens"]  # not the same robot for everyone
    shot(page, "agent-detail-picture")


def test_missing_agent_shows_not_found(page: Page) -> None:
    with page.expect_response(lambda r: r.url.endswith("/agents/0123456789abcdef0123456789abcdef")) as answer:
        open_page(page, "/agents/0123456789abcdef0123456789abcdef")
    assert answer.value.status == 404  # what a crawler is told; the person sees the page below
    expect(page.locator("#agent-not-found")).to_contain_text("Agent Not Found")
    page.get_by_role("link", name="Back to Agents").click()
    expect(page).to_have_url(re.compile(r"/agents/?$"))


# ---- favourites, reviews, reports ---------------------------------------------------------------


def test_favourite_needs_sign_in(page: Page) -> None:
    open_page(page, f"/agents/{live_agent_id(page, 'AdCraft')}")
    page.click("#favorite")
    expect_toast(page, "Please sign in", "You need to be signed in to add favorites")
    shot(page, "favourite-signed-out")


def test_favourite_toggles_when_signed_in(page: Page) -> None:
    sign_up(page, "cat")
    agent_id = live_agent_id(page, "AdCraft")
    open_page(page, f"/agents/{agent_id}")
    favourite = page.locator("#favorite")
    expect(favourite).to_have_attribute("aria-pressed", "false")
    favourite.click()
    expect_toast(page, "Added to favorites")
    expect(favourite).to_have_attribute("aria-pressed", "true")
    expect(favourite).to_have_text("Favorited")
    open_page(page, f"/agents/{agent_id}")
    expect(page.locator("#favorite")).to_have_attribute("aria-pressed", "true")
    assert [a["name"] for a in page.request.get("/api/favorites").json()] == ["AdCraft"]
    page.click("#favorite")
    expect_toast(page, "Removed from favorites")
    expect(page.locator("#favorite")).to_have_attribute("aria-pressed", "false")
    assert page.request.get("/api/favorites").json() == []


def test_post_a_review(page: Page) -> None:
    username = sign_up(page, "cat")
    agent_id = live_agent_id(page, "SupportPilot")  # no reviews in the demo data
    buy(page, agent_id)  # only customers who bought an agent review it (issue 33)
    open_page(page, f"/agents/{agent_id}")
    expect(page.locator("#no-reviews")).to_be_visible()
    expect(page.locator("#agent-review-count")).to_have_text("No reviews yet")
    expect(page.locator("#agent-rating")).to_have_count(0)
    expect(page.locator("#review-rating")).to_have_text("5 stars")
    submit = page.locator("#submit-review")
    expect(submit).to_be_disabled()
    page.fill("#review-comment", "   ")
    expect(submit).to_be_disabled()
    _choose(page, "review-rating", "4 stars")
    page.fill("#review-comment", "Answers most tickets on its own.")
    expect(submit).to_be_enabled()
    submit.click()
    expect_toast(page, "Review submitted", "Thank you for your feedback!")
    review = page.locator(".review-item").first
    expect(review).to_contain_text(username)
    expect(review).to_contain_text("Answers most tickets on its own.")
    expect(page.locator(".verified-purchase")).to_have_text("Verified purchase")  # every review is a buyer's
    expect(page.locator("#agent-review-count")).to_have_text("(1 review)")
    expect(page.locator("#agent-rating")).to_have_text("4.0")
    expect(page.locator("#reviews-heading")).to_have_text("Reviews (1)")
    expect(page.locator("#review-comment")).to_have_value("")
    shot(page, "review-posted")


def test_report_an_agent(page: Page) -> None:
    sign_up(page, "cat")
    agent_id = live_agent_id(page, "Contract Clerk")
    open_page(page, f"/agents/{agent_id}")
    page.click("#report")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    page.click("#submit-report")
    expect_toast(page, "Missing information", "Please select a report type and provide a reason.")
    page.click("#report-type")
    labels = [t.strip() for t in page.get_by_role("option").all_inner_texts()]
    assert labels == ["Agent Not Working", "Misleading Description", "Inappropriate Content", "Spam/Low Quality",
                      "Other Issue"]
    page.get_by_role("option", name="Misleading Description").click()
    page.fill("#report-reason", "It does not read PDFs as promised")
    shot(page, "report-dialog")
    page.click("#submit-report")
    expect_toast(page, "Report submitted", "Our team will review it shortly")
    expect(dialog).to_have_count(0)
    expect(page.locator("#report")).to_be_disabled()
    expect(page.locator("#report")).to_have_text("Reported")
    open_page(page, f"/agents/{agent_id}")
    expect(page.locator("#report")).to_be_disabled()
    assert page.request.get(f"/api/agents/{agent_id}/reported").json() == {"hasReported": True}


# ---- /categories, landing, home --------------------------------------------------------------------


def test_categories_page_links_to_filtered_agents(page: Page) -> None:
    open_page(page, "/categories")
    expect(page.get_by_role("heading", name="AI Agent Categories")).to_be_visible()
    cards = page.locator(".category-card")
    expect(cards).to_have_count(10)
    expect(page.locator(".explore-link")).to_have_count(10)
    expect(page.locator("#request-category")).to_contain_text("Can't find what you're looking for?")
    expect(page.locator("#request-category").get_by_role("link", name="Request Category")).to_have_attribute(
        "href", "/contact")
    marketing = page.locator('.category-card[data-slug="marketing"]')
    expect(marketing.locator(".agent-count")).to_have_text("3 agents")
    shot(page, "categories")
    marketing.get_by_role("link", name="Explore Agents").click()
    expect(page).to_have_url(re.compile(r"/agents/?\?category=marketing$"))
    expect(page.locator("#category-filter")).to_have_text(_counted("Marketing"))
    expect(page.locator("#result-count")).to_have_text("3 agents found")


def test_landing_page_stats_categories_featured_and_quick_search(page: Page) -> None:
    open_page(page, "/")
    expect(page.locator("#landing")).to_be_visible()
    expect(page.locator("#stat-agents")).to_have_text(str(_live_agents(page)))
    expect(page.locator("#stat-categories")).to_have_text("10")
    expect(page.locator("#stat-uptime")).to_have_text("99.9%")
    expect(page.locator("#home-categories .category-tile")).to_have_count(8)
    expect(page.locator("#featured-agents .agent-card")).to_have_count(6)
    expect(page.locator(".bought-marker")).to_have_count(0)
    shot(page, "landing")

    page.fill("#quick-search-text", "insight")
    _choose(page, "quick-search-category", "Data Analysis")
    _choose(page, "quick-search-price", "$51 - $100")
    page.click("#quick-search-submit")
    expect(page).to_have_url(re.compile(r"/agents/?\?"))
    assert _query(page) == {"search": ["insight"], "category": ["data-analysis"], "price": ["51-100"]}
    expect(page.locator("#price-filter")).to_have_text(_counted("$51 - $100"))
    expect(page.locator("#category-filter")).to_have_text(_counted("Data Analysis"))
    expect(page.locator("#agent-search")).to_have_value("insight")
    expect(page.locator("#result-count")).to_have_text("1 agent found")
    assert _card_names(page) == ["InsightLens"]
    shot(page, "landing-quick-search")


def test_landing_category_card_opens_its_agents(page: Page) -> None:
    open_page(page, "/")
    page.locator("#home-categories .category-tile").filter(has_text="Customer Support").click()
    expect(page).to_have_url(re.compile(r"/agents/?\?category=\d+$"))  # the landing page links by id
    expect(page.locator("#category-filter")).to_have_text(_counted("Customer Support"))
    expect(page.locator("#result-count")).to_have_text("3 agents found")


def test_home_marks_bought_featured_agents_and_its_search_works(page: Page) -> None:
    sign_in(page, "maria", "customer123", api=True)
    open_page(page, "/")
    expect(page.locator("#home")).to_be_visible()
    cards = page.locator("#featured-agents .agent-card")
    expect(cards).to_have_count(6)
    marked = cards.filter(has=page.locator(".bought-marker"))
    expect(marked).to_have_count(len(MARIA_FEATURED_PURCHASES))
    assert {n.strip() for n in marked.locator(".agent-name").all_inner_texts()} == MARIA_FEATURED_PURCHASES
    expect(page.locator("#apply-vendor")).to_have_attribute("href", "/dashboard?tab=account")
    expect(page.locator("#stat-uptime")).to_have_text("99.9%")
    shot(page, "home-already-bought")

    marked.first.click()
    expect(page.locator("#already-bought")).to_be_disabled()
    expect(page.locator("#get-agent")).to_have_count(0)

    open_page(page, "/")
    page.fill("#home-search-text", "blog")
    _choose(page, "home-search-price", "$26 - $50")
    page.click("#home-search-submit")
    expect(page).to_have_url(re.compile(r"/agents/?\?"))
    assert _query(page) == {"search": ["blog"], "price": ["26-50"]}
    expect(page.locator("#agents-grid .agent-name").first).to_have_text("BlogSmith")
