"""Free trials in a real browser against the Stripe stand-in (issue 31): a new vendor's monthly agent with a 7-day
trial; a customer sees 'Free for 7 days, then $29.99/month' on its page, checkout promises the trial's terms,
the Payment Element saves the card (confirmSetup, nothing charged), and My Agents says 'Trial ends on {date}',
at 1280 and at 390 px. Every test signs up its own customer; the agent is one new vendor's, made once."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import open_page
from tests.e2e.helpers import (
    admin_client,
    api_client,
    expect_fits_phone,
    pay_with_test_card,
    phone,
    shot,
    unique,
    wait_for_scans,
)

AGENT_FILE = b"def run(task: str) -> str:\n    return task\n"
DAY = r"[A-Z][a-z]{2} \d{1,2}, \d{4}"
CHECKOUT_TRIAL = re.compile(
    rf"^Free for 7 days, then \$29\.99/month starting ({DAY})\. Cancel before then and you "
    rf"pay nothing\.$"
)


@pytest.fixture(scope="module")
def trial_agent(app_server: str) -> Iterator[dict[str, str]]:
    """A live monthly agent at $29.99 with a 7-day free trial, of a vendor made for this module."""
    with admin_client(app_server) as admin, api_client(app_server) as vendor:
        username = unique("trialseller")
        vendor.post(
            "/api/register",
            json={"username": username, "email": f"{username}@example.com", "password": "Trial-pass-1234"},
        ).raise_for_status()
        vendor.post("/api/login", json={"username": username, "password": "Trial-pass-1234"}).raise_for_status()
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
    yield {"id": agent_id, "name": name}


def _sign_up(page: Page) -> None:
    username = unique("trialist")
    origin = page.request.get("/ping").url.split("/ping")[0]
    answer = page.request.post(
        "/api/register",
        data={"username": username, "email": f"{username}@example.com", "password": "Trial-pass-1234"},
        headers={"Origin": origin},
    )
    assert answer.status == 201, answer.text()


def _start_trial(page: Page, agent: dict[str, str], shots: str) -> None:
    _sign_up(page)
    open_page(page, f"/agents/{agent['id']}")
    expect(page.locator("#agent-trial-offer")).to_have_text("Free for 7 days, then $29.99/month")
    shot(page, f"{shots}-agent-page")
    open_page(page, f"/checkout/{agent['id']}")
    promise = page.locator("#summary-trial")
    expect(promise).to_have_text(CHECKOUT_TRIAL)
    match = CHECKOUT_TRIAL.match(promise.inner_text())
    assert match is not None
    starts = match.group(1)
    # Nothing is due today: the Total says so, and what is charged when the trial ends.
    expect(page.locator("#summary-total")).to_have_text("$0.00")
    expect(page.locator("#summary-then")).to_have_text(f"Then $29.99/month from {starts}")
    expect(page.locator("#submit-payment")).to_have_text("Start Free Trial")
    expect(page.locator("#submit-payment")).to_be_enabled()
    shot(page, f"{shots}-checkout")
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


def test_a_customer_starts_a_free_trial_and_sees_its_end_in_my_agents(page: Page, trial_agent: dict) -> None:
    _start_trial(page, trial_agent, "trial")


def test_a_customer_starts_a_free_trial_on_a_phone(page: Page, trial_agent: dict) -> None:
    phone(page)
    _start_trial(page, trial_agent, "trial-phone")
    expect_fits_phone(page, ".subscription-box", "trial-phone-my-agents")
