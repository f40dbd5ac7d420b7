"""The admin's money journeys as people meet them (issue 34), in a real browser: every tab of the bar whole at
1024-1440 px, the Refunds filter inside its card on a phone, and a refunded sale's commission shown reversed with
its date whole in Sales & Commissions, and the audit log in words.

Demo data relied on (marketplace/services/demo.py): 'admin', refunds by an admin and under the guarantee (so
Sales & Commissions has refunded rows) and a waiting refund request.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.helpers import DEMO_ADMIN, PHONE, open_page, same_origin, shot, sign_in

pytestmark = pytest.mark.e2e

# Each tab's box, the bar's and the viewport's, and whether the tab's text is cut inside its own box.
_TAB_BOXES = """() => {
  const bar = document.querySelector('#admin-area [role=tablist]').getBoundingClientRect();
  return Array.from(document.querySelectorAll('#admin-area [role=tab]')).map(tab => {
    const box = tab.getBoundingClientRect();
    return {id: tab.id, left: box.left, right: box.right, top: box.top, bottom: box.bottom,
            cut: tab.scrollWidth > tab.clientWidth + 1, barLeft: bar.left, barRight: bar.right,
            barTop: bar.top, barBottom: bar.bottom, viewport: document.documentElement.clientWidth};
  });
}"""


@pytest.mark.parametrize("width", [1024, 1280, 1440])
def test_every_admin_tab_is_whole_from_1024_to_1440(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/admin")
    expect(page.locator("#admin-area")).to_be_visible()
    boxes = page.evaluate(_TAB_BOXES)
    assert len(boxes) == 13
    for box in boxes:
        # Inside the bar (which neither scrolls nor clips) and inside the window, its label not cut.
        assert box["barLeft"] - 1 <= box["left"] and box["right"] <= box["barRight"] + 1, box
        assert box["barTop"] - 1 <= box["top"] and box["bottom"] <= box["barBottom"] + 1, box
        assert box["right"] <= box["viewport"], box
        assert not box["cut"], box
    bar = page.locator("#admin-area [role=tablist]")
    assert bar.evaluate("bar => bar.scrollWidth <= bar.clientWidth"), "the tab bar scrolls sideways"
    if width == 1280:
        tops = {round(box["top"]) for box in boxes}
        assert len(tops) == 1, f"the tabs take {len(tops)} rows at 1280 px"
    shot(page, f"journeys-admin-tabs-{width}")
    page.locator("#tab-audit").click()
    expect(page.locator("#tab-audit")).to_have_attribute("data-state", "active")


def test_refund_filter_stays_inside_its_card_on_a_phone(page: Page) -> None:
    page.set_viewport_size(PHONE)
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/admin?tab=refunds")
    card = page.locator("#refunds-card")
    expect(card.locator(".refund-row").first).to_be_visible()
    picker = page.locator("#refunds-status-select")
    expect(picker).to_be_visible()
    expect(picker).to_have_text("Requested")
    card_box, filter_box = card.bounding_box(), picker.bounding_box()
    assert card_box and filter_box
    assert filter_box["x"] >= card_box["x"] and filter_box["x"] + filter_box["width"] <= card_box["x"] + \
        card_box["width"], f"the filter {filter_box} runs past the card {card_box}"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "journeys-refunds-filter-phone")
    picker.click()
    page.get_by_role("option", name="Refunded").click()
    expect(picker).to_have_text("Refunded")
    expect(card.locator(".refund-row .refund-status").first).to_have_text("Refunded")

    # From the sm breakpoint up the segments show, inside the card too.
    page.set_viewport_size({"width": 1280, "height": 900})
    segments = page.locator("#refunds-status")
    expect(segments.get_by_role("radio", name="Refunded")).to_be_checked()
    card_box, filter_box = card.bounding_box(), segments.bounding_box()
    assert card_box and filter_box and filter_box["x"] + filter_box["width"] <= card_box["x"] + card_box["width"]
    shot(page, "journeys-refunds-filter")


def test_a_refunded_sale_shows_its_commission_reversed_and_every_date_whole(page: Page) -> None:
    sign_in(page, *DEMO_ADMIN, api=True)
    open_page(page, "/admin?tab=sales")
    refunded = page.locator(".commission-row").filter(has=page.locator(".order-refunded")).first
    expect(refunded).to_be_visible()
    commission = refunded.locator(".commission-amount")
    expect(commission.locator(".commission-reversed")).to_have_text("Reversed")
    colour = commission.locator("span, p").first.evaluate("text => getComputedStyle(text).color")
    green = page.evaluate("""() => { const probe = document.createElement('span');
      probe.style.color = 'var(--green-11)'; document.body.append(probe);
      const colour = getComputedStyle(probe).color; probe.remove(); return colour; }""")
    assert colour != green, "a refunded sale's commission is still green"
    kept = page.locator(".commission-row").filter(has_not=page.locator(".order-refunded")).first
    expect(kept.locator(".commission-reversed")).to_have_count(0)

    # The Date column shows whole inside the table's visible box at 1280 px (and at 1440).
    for width in (1280, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        clipped = page.locator("#commissions-table").evaluate("""table => {
          const view = (table.querySelector('.rt-ScrollAreaViewport') || table).getBoundingClientRect();
          const outer = table.getBoundingClientRect();
          const right = Math.min(view.right, outer.right);
          return Array.from(table.querySelectorAll('.commission-date')).filter(cell =>
            cell.getBoundingClientRect().right > right + 1).length;
        }""")
        assert clipped == 0, f"{clipped} dates run past the table's edge at {width} px"
    page.set_viewport_size({"width": 1280, "height": 900})
    refunded.scroll_into_view_if_needed()
    shot(page, "journeys-sales-reversed")


def test_the_audit_log_reads_in_words(page: Page) -> None:
    sign_in(page, *DEMO_ADMIN, api=True)
    headers = same_origin(page)
    before = page.request.get("/api/admin/settings").json()
    rate = next(s["value"] for s in before if s["key"] == "commissionRate")
    for value in ("21%", rate):
        answer = page.request.put("/api/admin/settings/commissionRate", headers=headers,
                                  data={"value": value, "description": "Platform commission rate on each sale"})
        assert answer.ok, answer.text()
    entries = page.request.get("/api/admin/audit-log", params={"limit": 2}).json()
    assert [e["summary"] for e in entries] == [f"admin changed the commission rate 21% -> {rate}",
                                               f"admin changed the commission rate {rate} -> 21%"]

    open_page(page, "/admin?tab=audit")
    rows = page.locator(".audit-row")
    expect(rows.first.locator(".audit-summary")).to_have_text(f"admin changed the commission rate 21% -> {rate}")
    expect(rows.nth(1).locator(".audit-summary")).to_have_text(f"admin changed the commission rate {rate} -> 21%")
    shot(page, "journeys-audit-words")
    page.set_viewport_size(PHONE)
    expect(rows.first.locator("[data-cell=title]")).to_contain_text("changed the commission rate")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "journeys-audit-words-phone")
