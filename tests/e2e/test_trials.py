"""Free trials in a real browser against the Stripe stand-in (issue 31): a new vendor's monthly agent with a 7-day
trial; a customer sees 'Free for 7 days, then $29.99/month' on its page, checkout promises the trial's terms,
the Payment Element saves the card (confirmSetup, nothing charged), and My Agents says 'Trial ends on {date}',
at 1280 and at 390 px. With the vendor's code (25% off the first 3 months) checkout also shows the code and its
discount, and the demo clock advanced past the trial's end shows the first, discounted, charge with its code in
the customer's Orders and in the vendor's sales. Every test signs up its own customer; the agent is one new
vendor's, made once."""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page
from tests.e2e.helpers import (
    PHONE,
    admin_client,
    advance_demo_clock,
    api_client,
    expect_fits_phone,
    pay_with_test_card,
    phone,
    shot,
    sign_in,
    sign_up,
    unique,
    vendor_code,
    wait_for_scans,
)

AGENT_FILE = b"def run(task: str) -> str:\n    return task\n"
VENDOR_PASSWORD = "Trial-pass-1234"
# The vendor's code takes 25% off the $29.99 agent: $7.50 off each of the first 3 months.
DISCOUNT, DISCOUNTED = "-$7.50", "$22.49"
DAY = r"[A-Z][a-z]{2} \d{1,2}, \d{4}"
CHECKOUT_TRIAL = re.compile(
    rf"^Free for 7 days, then \$29\.99/month starting ({DAY})\. Cancel before then and you "
    rf"pay nothing\.$"
)


@pytest.fixture(scope="module")
def trial_agent(app_server: str) -> Iterator[dict[str, str]]:
    """A live monthly agent at $29.99 with a 7-day free trial, of a vendor made for this module (`vendor`: its
    username, its password VENDOR_PASSWORD)."""
    with admin_client(app_server) as admin, api_client(app_server) as vendor:
        username = unique("trialseller")
        vendor.post(
            "/api/register",
            json={"username": username, "email": f"{username}@example.com", "password": VENDOR_PASSWORD},
        ).raise_for_status()
        vendor.post("/api/login", json={"username": username, "password": VENDOR_PASSWORD}).raise_for_status()
        vendor.post(
            "/api/vendor/apply",
            json={
                "businessName": f"{username} Ltd",
                "website": "https://t.example",
                "businessDescription": "Agents with free trials.",
            },
        ).raise_for_status()
        user_id = vendor.get("/api/auth/user").json()["id"]
        admin.post(f"/api/admin/vendor/{user_id}/approve").raise_for_status()
        category = vendor.get("/api/categories").json()[0]["id"]
        name = unique("Trial Bot ")
        created = vendor.post(
            "/api/vendor/agents",
            json={
                "name": name,
                "shortDescription": "Tries before you buy",
                "price": "29.99",
                "categoryId": category,
                "description": "A monthly agent with a free week, for the trial browser test.",
                "trialDays": 7,
            },
        )
        assert created.status_code == 201, created.text
        agent_id = created.json()["id"]
        url = vendor.post("/api/objects/upload", params={"filename": "agent.py", "type": "text/x-python"}).json()[
            "uploadURL"
        ]
        assert vendor.put(url, content=AGENT_FILE, headers={"Content-Type": "text/x-python"}).is_success
        assert vendor.put("/api/agent-files", json={"agentId": agent_id, "agentFileURL": url}).is_success
        wait_for_scans(admin, agent_id)
        assert admin.post(f"/api/admin/agents/{agent_id}/approve").status_code == 200
    assert httpx.get(f"{app_server}/api/agents/{agent_id}").json()["trialDays"] == 7
    yield {"id": agent_id, "name": name, "vendor": username}


def _start_trial(page: Page, agent: dict[str, str], shots: str, code: str = "") -> str:
    """Sign up and start the agent's trial (with the vendor's `code` if given), checking what the agent page,
    checkout and My Agents promise. Returns the new customer's username."""
    username = sign_up(page, "trialist")
    open_page(page, f"/agents/{agent['id']}")
    expect(page.locator("#agent-trial-offer")).to_have_text("Free for 7 days, then $29.99/month")
    shot(page, f"{shots}-agent-page")
    open_page(page, f"/checkout/{agent['id']}")
    if code:
        page.fill("#promotionCode", code.lower())
        page.click("#apply-promotion-code")
        expect(page.locator("#summary-code")).to_have_text(code)
        expect(page.locator("#summary-discount")).to_have_text(DISCOUNT)
        expect(page.locator("#summary-code-months")).to_have_text("First 3 months, then $29.99/month")
    promise = page.locator("#summary-trial")
    expect(promise).to_have_text(CHECKOUT_TRIAL)
    match = CHECKOUT_TRIAL.match(promise.inner_text())
    assert match is not None
    starts = match.group(1)
    # Nothing is due today: the Total says so, and what is charged when the trial ends.
    expect(page.locator("#summary-total")).to_have_text("$0.00")
    then = f"Then {DISCOUNTED} on {starts}, $29.99/month after the discount" if code else \
        f"Then $29.99/month from {starts}"
    expect(page.locator("#summary-then")).to_have_text(then)
    expect(page.locator("#submit-payment")).to_have_text("Start Free Trial")
    expect(page.locator("#submit-payment")).to_be_enabled()
    shot(page, f"{shots}-checkout")
    width = page.viewport_size["width"] if page.viewport_size else 1280
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    pay_with_test_card(page)
    expect(page).to_have_url(re.compile(r"/dashboard/?$"))
    card = page.locator(f".purchase-card[data-agent='{agent['name']}']")
    expect(card.locator(".subscription-status")).to_have_text("Free trial")
    expect(card.locator(".subscription-renewal")).to_have_text(f"Trial ends on {starts}")
    shot(page, f"{shots}-my-agents")
    [subscription] = page.request.get("/api/user/subscriptions").json()
    assert subscription["status"] == "trialing" and subscription["trialEnd"]
    assert page.request.get("/api/user/orders").json() == []  # nothing charged
    [bought] = page.request.get("/api/user/purchases").json()
    assert bought["licenseKey"] and bought["agent"]["fileUrl"]
    assert page.request.get(bought["agent"]["fileUrl"]).ok  # the download works during the trial
    return username


def _trial_with_code(page: Page, agent: dict[str, str], shots: str) -> None:
    """The vendor makes a code for the agent; a new customer starts the trial with it; the demo clock moves past
    the trial's end, and the first charge, discounted, shows its code in the customer's Orders and in the
    vendor's Recent sales (at the page's width)."""
    sign_in(page, agent["vendor"], VENDOR_PASSWORD, api=True)
    code = vendor_code(page, agent["id"], "TRIALCODE")
    page.context.clear_cookies()
    username = _start_trial(page, agent, shots, code)
    advance_demo_clock(page, 8)  # past the trial's end and the hour before Stripe charges its first invoice
    open_page(page, "/dashboard?tab=orders")
    order = page.locator(".order-row").filter(has_text=agent["name"])
    expect(order).to_have_count(1)
    expect(order).to_contain_text(DISCOUNTED)
    expect(order.locator(".order-discount")).to_have_text(f"Code {code}: {DISCOUNT}")
    on_phone = page.viewport_size == PHONE
    _keep(page, on_phone, ".order-discount", f"{shots}-orders")
    page.context.clear_cookies()
    sign_in(page, agent["vendor"], VENDOR_PASSWORD, api=True)
    open_page(page, "/vendor")
    sale = page.locator(".sale-row").filter(has_text=f"{username}@example.com")
    expect(sale).to_have_count(1)
    expect(sale.locator(".sale-kind")).to_have_text("Subscription")  # the first charge after the trial
    expect(sale.locator(".sale-total")).to_have_text(DISCOUNTED)
    expect(sale.locator(".sale-discount")).to_have_text(f"Code {code}: {DISCOUNT}")
    [row] = [s for s in page.request.get("/api/vendor/sales").json() if s["customerEmail"] == f"{username}@example.com"]
    assert (row["totalAmount"], row["promotionCode"], row["discountAmount"]) == ("22.49", code, "7.50")
    # The vendor's share and the platform's fee are both taken from the discounted price.
    assert Decimal(row["vendorEarnings"]) + Decimal(row["platformFee"]) == Decimal("22.49")
    _keep(page, on_phone, f".sale-row[data-order='{row['orderId']}'] .sale-discount", f"{shots}-vendor-sales")


def _keep(page: Page, on_phone: bool, marker: str, name: str) -> None:
    """The screenshot `name` of the page showing `marker`; on a phone, the page must not scroll sideways."""
    if on_phone:
        expect_fits_phone(page, marker, name)
        return
    expect(page.locator(marker)).to_be_visible()
    shot(page, name)


def test_a_customer_starts_a_free_trial_and_sees_its_end_in_my_agents(page: Page, trial_agent: dict) -> None:
    _start_trial(page, trial_agent, "trial")


def test_a_customer_starts_a_free_trial_on_a_phone(page: Page, trial_agent: dict) -> None:
    phone(page)
    _start_trial(page, trial_agent, "trial-phone")
    expect_fits_phone(page, ".subscription-box", "trial-phone-my-agents")


def test_a_trial_with_a_code_and_its_discounted_first_charge_in_orders_and_the_vendors_sales(
        page: Page, trial_agent: dict) -> None:
    _trial_with_code(page, trial_agent, "trial-code")


def test_a_trial_with_a_code_on_a_phone(page: Page, trial_agent: dict) -> None:
    phone(page)
    _trial_with_code(page, trial_agent, "trial-code-phone")
