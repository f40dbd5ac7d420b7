"""Reviews from buyers (issue 33) in the browser: a customer who never bought an agent reads why there is no review
form; the agent's vendor answers a review and the answer shows under it, on a desktop and at 390 px; the average
is drawn with half stars."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from playwright.sync_api import Locator, Page, expect

from tests.e2e.helpers import (
    expect_fits_phone,
    expect_toast,
    open_page,
    phone,
    same_origin,
    shot,
    sign_in,
    sign_up,
    unique,
)

BUYERS_ONLY = "Only customers who bought this agent can review it."
DEMO_VENDOR = ("vendor", "vendor123")
DEMO_ADMIN = ("admin", "admin123")


def _vendor_agent_with_reviews(page: Page, minimum: int, *, most: bool = True) -> dict:
    """A live agent of the demo vendor with at least `minimum` (demo buyers') reviews: the most reviewed one, or
    (`most=False`) the least."""
    agents = page.request.get("/api/agents", params={"limit": 100}).json()
    mine = [a for a in agents if (a.get("vendor") or {}).get("username") == DEMO_VENDOR[0]
            and a["reviewCount"] >= minimum]
    assert mine, "the demo vendor has reviewed agents"
    return (max if most else min)(mine, key=lambda a: (a["reviewCount"], a["name"]))


def _expected_stars(average: str) -> tuple[int, int]:
    halves = int((Decimal(average) * 2).quantize(Decimal("1"), rounding=ROUND_HALF_UP))
    return halves // 2, halves % 2


def test_a_customer_who_did_not_buy_sees_why_there_is_no_review_form(page: Page) -> None:
    sign_up(page, "browser")
    agent = _vendor_agent_with_reviews(page, 1)
    open_page(page, f"/agents/{agent['id']}")
    expect(page.locator("#review-buyers-only")).to_have_text(BUYERS_ONLY)
    expect(page.locator("#review-form")).to_have_count(0)
    expect(page.locator("#submit-review")).to_have_count(0)
    # The demo's reviews are its buyers': each says so.
    expect(page.locator(".review-item").first).to_be_visible()
    assert page.locator(".verified-purchase").count() == page.locator(".review-item").count() > 0
    expect(page.locator(".verified-purchase").first).to_have_text("Verified purchase")
    # The average with half stars: a half star exactly when the average rounds to a half.
    _full, half = _expected_stars(agent["avgRating"])
    expect(page.locator("#agent-stars .star-half")).to_have_count(half)
    shot(page, "reviews-buyers-only")
    # The API refuses the same way.
    refused = page.request.post(f"/api/agents/{agent['id']}/reviews", data={"rating": 5, "comment": "Never used"},
                                headers=same_origin(page))
    assert (refused.status, refused.json()) == (403, {"message": BUYERS_ONLY})
    # At phone width the explanation stays in the page.
    expect_fits_phone(page, "#review-buyers-only", "reviews-buyers-only-phone")


def _answer(page: Page, review: Locator, text: str) -> None:
    review.locator(".answer-review").click()
    page.fill("#reply-text", text)
    page.click("#save-reply")
    expect_toast(page, "Answer published", "The reviewer has been notified.")


def test_the_vendor_answers_a_review_and_it_shows(page: Page) -> None:
    sign_in(page, *DEMO_VENDOR)
    agent = _vendor_agent_with_reviews(page, 2)
    open_page(page, f"/agents/{agent['id']}")
    unanswered = page.locator(".review-item").filter(has_not=page.locator(".vendor-reply"))
    review = unanswered.first
    comment = review.locator(".review-comment").inner_text()
    text = f"Thanks for the review! {unique('ref-')}"
    _answer(page, review, text)
    answered = page.locator(".review-item").filter(has_text=comment).filter(has_text=text)
    expect(answered.locator(".vendor-reply-text")).to_have_text(text)
    expect(answered.locator(".answer-review")).to_have_text("Edit answer")
    shot(page, "review-answered")
    replies = [r["vendorReply"] for r in page.request.get(f"/api/agents/{agent['id']}/reviews").json()]
    assert text in [r["text"] for r in replies if r]

    # At 390 px: another review answered, and the answer edited; the page does not scroll sideways.
    phone(page)
    open_page(page, f"/agents/{agent['id']}")
    second = page.locator(".review-item").filter(has_not=page.locator(".vendor-reply")).first
    phone_text = f"Glad it helps. {unique('ref-')}"
    _answer(page, second, phone_text)
    expect(page.locator(".vendor-reply-text").filter(has_text=phone_text)).to_be_visible()
    edited = f"{text} (edited)"
    page.locator(".review-item").filter(has_text=text).locator(".answer-review").click()
    expect(page.locator("#reply-text")).to_have_value(text)
    page.fill("#reply-text", edited)
    page.click("#save-reply")
    expect_toast(page, "Answer published")
    expect(page.locator(".vendor-reply-text").filter(has_text=edited)).to_be_visible()
    expect_fits_phone(page, "#reviews-list", "review-answered-phone")

    # A visitor reads the answers under the reviews.
    page.context.clear_cookies()
    open_page(page, f"/agents/{agent['id']}")
    expect(page.locator(".vendor-reply-text").filter(has_text=edited)).to_be_visible()
    expect(page.locator(".answer-review")).to_have_count(0)


def test_an_admin_removes_an_answer_and_a_review_giving_a_reason(page: Page) -> None:
    sign_in(page, *DEMO_VENDOR, api=True)
    agent = _vendor_agent_with_reviews(page, 1, most=False)
    target = page.request.get(f"/api/agents/{agent['id']}/reviews").json()[0]
    answer = f"An answer to remove {unique('ref-')}"
    put = page.request.put(f"/api/vendor/reviews/{target['id']}/reply", data={"reply": answer},
                           headers=same_origin(page))
    assert put.status == 200, put.text()
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, f"/agents/{agent['id']}")
    item = page.locator(".review-item").filter(has_text=answer)
    item.locator(".remove-reply").click()
    expect(page.locator("#confirm-removal")).to_be_disabled()  # a reason is required
    page.fill("#removal-reason", "Personal details of the reviewer")
    page.click("#confirm-removal")
    expect_toast(page, "Answer removed", "The removal and its reason are in the audit log.")
    expect(page.locator(".vendor-reply-text").filter(has_text=answer)).to_have_count(0)

    count = agent["reviewCount"]
    page.locator(".review-item").first.locator(".remove-review").click()
    page.fill("#removal-reason", "Off-topic")
    page.click("#confirm-removal")
    expect_toast(page, "Review removed")
    expect(page.locator("#reviews-heading")).to_have_text(f"Reviews ({count - 1})")
    after = page.request.get(f"/api/agents/{agent['id']}").json()
    assert after["reviewCount"] == count - 1
    log = page.request.get("/api/admin/audit-log", params={"search": "review."}).json()
    assert {"review.remove", "review.reply_remove"} <= {e["action"] for e in log}
