"""Receipts: gap-free numbering (also with 20 orders read at the same moment), what a receipt and a credit note
say, who may read them, the buyer's receipt details, and the HTML and PDF renderings."""

from __future__ import annotations

import re
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import Order, OrderKind, OrderStatus, Receipt, ReceiptCounter, ReceiptKind, User
from marketplace.models.base import utcnow
from marketplace.services import receipts, users
from marketplace.services.errors import Invalid, InvalidParameter, NotFound, Unauthorized
from marketplace.services.receipts import buyer_details
from tests import factories

PARALLEL = 20


def _refund(order: Order) -> None:
    with db.session_scope() as session:
        row = session.get(Order, order.id)
        row.status, row.refunded_at = OrderStatus.REFUNDED, utcnow()
        session.add(row)


def _numbers(kind: str = ReceiptKind.RECEIPT) -> list[int]:
    with db.session_scope() as session:
        return sorted(session.exec(select(Receipt.number).where(Receipt.kind == kind)).all())


def _parallel(calls: list) -> list:
    start = threading.Barrier(len(calls))

    def run(call):
        start.wait()
        return call()

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))


def pdf_text(data: bytes) -> str:
    """The text a PDF shows: every (string) Tj of its content streams, inflated (fpdf2 compresses them)."""
    assert data.startswith(b"%PDF-")
    shown = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            content = zlib.decompress(stream)
        except zlib.error:
            content = stream
        for text in re.findall(rb"\(((?:\\.|[^\\)])*)\)\s*Tj", content):
            shown.append(re.sub(rb"\\(.)", rb"\1", text).decode("latin-1"))
    return "\n".join(shown)


# ---- numbering -----------------------------------------------------------------------------------------------


def test_numbers_start_at_one_and_follow_each_other():
    with db.session_scope() as session:
        first = receipts.take_number(session, sequence="receipt")
    with db.session_scope() as session:
        second = receipts.take_number(session, sequence="receipt")
        other = receipts.take_number(session, sequence="credit_note")
    assert (first, second, other) == (1, 2, 1)


def test_a_rolled_back_number_is_given_again():
    with pytest.raises(RuntimeError), db.session_scope() as session:
        assert receipts.take_number(session, sequence="receipt") == 1
        raise RuntimeError("the document was not written")
    with db.session_scope() as session:
        assert receipts.take_number(session, sequence="receipt") == 1


def test_twenty_parallel_orders_get_numbers_one_to_twenty():
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor, price_cents=1500)
    buyers = [factories.make_user() for _ in range(PARALLEL)]
    orders = [factories.make_order(agent, buyer) for buyer in buyers]
    views = _parallel([lambda o=o, b=b: receipts.receipt_of(actor=b, order_id=o.id) for o, b in zip(orders, buyers,
                                                                                                    strict=True)])
    assert _numbers() == list(range(1, PARALLEL + 1))
    assert sorted(v.receipt.number for v in views) == [f"R-{n:06d}" for n in range(1, PARALLEL + 1)]
    with db.session_scope() as session:
        assert session.get(ReceiptCounter, "receipt").last_number == PARALLEL


def _paid_now(order: Order, *, fail: bool = False) -> None:
    """Number `order`'s receipt as the transaction recording its payment does; `fail`: that transaction then
    rolls back (the payment was not recorded after all)."""
    with db.session_scope() as session:
        row = session.get(Order, order.id)
        buyer = session.get(User, order.user_id)
        receipts.issue_at_payment(session, row, buyer=buyer, seller_name="Vendor Ltd", card=None)
        if fail:
            raise RuntimeError("the payment was not recorded")


def test_twenty_parallel_payments_number_at_payment_gap_free_despite_rollbacks():
    agent = factories.make_agent(factories.make_vendor(), price_cents=1500)
    orders = [factories.make_order(agent, factories.make_user()) for _ in range(PARALLEL)]
    failing = set(range(0, PARALLEL, 5))  # every fifth payment's transaction rolls back after its number

    def pay(index: int):
        try:
            _paid_now(orders[index], fail=index in failing)
        except RuntimeError:
            return "rolled back"
        return "paid"

    assert sorted(_parallel([lambda i=i: pay(i) for i in range(PARALLEL)])).count("paid") == PARALLEL - len(failing)
    kept = PARALLEL - len(failing)
    assert _numbers() == list(range(1, kept + 1))  # the rolled-back numbers were given to the next payments
    with db.session_scope() as session:
        assert session.get(ReceiptCounter, "receipt").last_number == kept
        numbered = set(session.exec(select(Receipt.order_id)).all())
    assert numbered == {o.id for i, o in enumerate(orders) if i not in failing}


def test_a_receipt_at_payment_makes_its_missing_counter():
    with db.session_scope() as session:
        session.delete(session.get(ReceiptCounter, "receipt"))
    buyer = factories.make_user()
    first, second = (factories.make_order(factories.make_agent(factories.make_vendor()), buyer) for _ in range(2))
    _paid_now(first)
    _paid_now(second)
    assert _numbers() == [1, 2]
    assert receipts.receipt_of(actor=buyer, order_id=second.id).receipt.number == "R-000002"


def test_twenty_parallel_reads_of_one_order_number_it_once():
    buyer = factories.make_user()
    order = factories.make_order(factories.make_agent(factories.make_vendor()), buyer)
    views = _parallel([lambda: receipts.receipt_of(actor=buyer, order_id=order.id)] * PARALLEL)
    assert {v.receipt.number for v in views} == {"R-000001"}
    assert _numbers() == [1]
    with db.session_scope() as session:  # no number was used up by the losers
        assert session.get(ReceiptCounter, "receipt").last_number == 1
    other = factories.make_order(factories.make_agent(factories.make_vendor()), buyer)
    assert receipts.receipt_of(actor=buyer, order_id=other.id).receipt.number == "R-000002"


def test_the_order_list_numbers_paid_orders_only():
    buyer = factories.make_user()
    agent = factories.make_agent(factories.make_vendor())
    paid = factories.make_order(agent, buyer)
    waiting = factories.make_order(agent, buyer, status=OrderStatus.PROCESSING)
    someone_elses = factories.make_order(agent, factories.make_user())
    numbers = receipts.receipt_numbers(actor=buyer, orders=[paid, waiting, someone_elses])
    assert numbers == {paid.id: "R-000001"}
    assert receipts.receipt_numbers(actor=buyer, orders=[paid]) == {paid.id: "R-000001"}  # kept, not renumbered


# ---- credit notes --------------------------------------------------------------------------------------------


def test_a_refund_issues_a_credit_note_referring_to_the_receipt():
    buyer = factories.make_user()
    order = factories.make_order(factories.make_agent(factories.make_vendor(), price_cents=2999), buyer)
    assert receipts.receipt_of(actor=buyer, order_id=order.id).credit_note is None
    _refund(order)
    view = receipts.receipt_of(actor=buyer, order_id=order.id)
    note = view.credit_note
    assert note is not None
    assert (view.receipt.number, note.number, note.refers_to) == ("R-000001", "CN-000001", "R-000001")
    assert (note.total, note.status, note.title) == ("-$29.99", "Refunded", "Credit note")
    assert receipts.receipt_of(actor=buyer, order_id=order.id).credit_note.number == "CN-000001"  # once
    assert _numbers(ReceiptKind.CREDIT_NOTE) == [1]


def test_a_refunded_order_read_first_gets_its_receipt_then_its_credit_note():
    buyer = factories.make_user()
    order = factories.make_order(factories.make_agent(factories.make_vendor()), buyer,
                                 status=OrderStatus.REFUNDED, refunded_at=utcnow())
    view = receipts.receipt_of(actor=buyer, order_id=order.id)
    assert (view.receipt.number, view.credit_note.number, view.credit_note.refers_to) == (
        "R-000001", "CN-000001", "R-000001")


# ---- access --------------------------------------------------------------------------------------------------


def test_only_the_buyer_and_admins_read_a_receipt():
    buyer, other = factories.make_user(), factories.make_user()
    vendor = factories.make_vendor()
    order = factories.make_order(factories.make_agent(vendor), buyer)
    assert receipts.receipt_of(actor=buyer, order_id=order.id).receipt.number == "R-000001"
    assert receipts.receipt_of(actor=factories.make_admin(), order_id=order.id).receipt.number == "R-000001"
    for stranger in (other, vendor):
        with pytest.raises(NotFound):
            receipts.receipt_of(actor=stranger, order_id=order.id)
    with pytest.raises(Unauthorized):
        receipts.receipt_of(actor=None, order_id=order.id)
    for bad in ("no-such-order", "x" * 40, "../etc"):
        with pytest.raises(NotFound):
            receipts.receipt_of(actor=buyer, order_id=bad)


def test_an_unpaid_order_has_no_receipt():
    buyer = factories.make_user()
    order = factories.make_order(factories.make_agent(factories.make_vendor()), buyer, status=OrderStatus.FAILED)
    with pytest.raises(NotFound):
        receipts.receipt_of(actor=buyer, order_id=order.id)
    assert _numbers() == []


# ---- content -------------------------------------------------------------------------------------------------


def test_the_receipt_says_who_sold_what_to_whom():
    vendor = factories.make_vendor(first_name="Vera", last_name="Vendor")
    factories.make_application(vendor, status="approved", business_name="Vera Bots GmbH")
    buyer = factories.make_user(first_name="Bea", last_name="Buyer", email="bea@example.com",
                                business_name="Bea Corp", billing_address="1 Main St\nSpringfield",
                                tax_id="US-12-3456789")
    order = factories.make_order(factories.make_agent(vendor, name="Summarizer", price_cents=2999), buyer)
    doc = receipts.receipt_of(actor=buyer, order_id=order.id).receipt
    assert doc.operator == receipts.OPERATOR == "AgentMarket"
    assert doc.seller == "Vera Bots GmbH"
    assert doc.buyer == ["Bea Buyer", "bea@example.com", "Bea Corp", "1 Main St", "Springfield",
                         "Tax ID: US-12-3456789"]
    assert (doc.line, doc.subtotal, doc.discount, doc.total, doc.currency, doc.status) == (
        "Summarizer: one-time license", "$29.99", "$0.00", "$29.99", "USD", "Paid")
    assert doc.date == f"{order.created_at:%d %B %Y}"
    assert doc.card == ""  # not known for this order


def test_a_subscription_payment_names_its_period():
    buyer = factories.make_user()
    agent = factories.make_agent(factories.make_vendor(), name="Watcher")
    order = factories.make_order(agent, buyer, kind=OrderKind.RENEWAL, created_at=utcnow().replace(
        year=2026, month=1, day=31))
    line = receipts.receipt_of(actor=buyer, order_id=order.id).receipt.line
    assert line == "Watcher: monthly subscription, 31 Jan 2026 to 28 Feb 2026"


def test_buyer_details_are_a_snapshot_taken_when_numbered():
    buyer = factories.make_user(first_name="Bea", last_name="Buyer")
    agent = factories.make_agent(factories.make_vendor())
    first = factories.make_order(agent, buyer)
    assert receipts.receipt_of(actor=buyer, order_id=first.id).receipt.buyer[2:] == []
    users.update_profile(actor=buyer, first_name="Bea", last_name="Buyer", email=buyer.email,
                         business_name="  Bea Corp ", billing_address="1 Main St\r\n\r\nSpringfield ", tax_id="DE 123")
    assert receipts.receipt_of(actor=buyer, order_id=first.id).receipt.buyer[2:] == []  # numbered before
    later = factories.make_order(agent, buyer)
    assert receipts.receipt_of(actor=buyer, order_id=later.id).receipt.buyer[2:] == [
        "Bea Corp", "1 Main St", "Springfield", "Tax ID: DE 123"]


def test_html_receipt_is_escaped_and_links_the_pdf():
    buyer = factories.make_user(first_name="<b>Bea</b>", last_name="Buyer")
    order = factories.make_order(factories.make_agent(factories.make_vendor(), name="A & B", price_cents=1000),
                                 buyer)
    page = receipts.html(receipts.receipt_of(actor=buyer, order_id=order.id))
    assert "R-000001" in page and "$10.00" in page and "Paid" in page
    assert "&lt;b&gt;Bea&lt;/b&gt; Buyer" in page and "<b>Bea" not in page
    assert "A &amp; B: one-time license" in page
    assert f'href="/api/user/orders/{order.id}/receipt.pdf"' in page


def test_pdf_shows_the_number_total_and_credit_note():
    buyer = factories.make_user(first_name="Zoë", last_name="Buyer")
    order = factories.make_order(factories.make_agent(factories.make_vendor(), price_cents=4200), buyer,
                                 currency="eur", amount_cents=3864, exchange_rate="0.92")
    text = pdf_text(receipts.pdf(receipts.receipt_of(actor=buyer, order_id=order.id)))
    assert "Receipt R-000001" in text and "EUR 38.64" in text and "Paid" in text and "Zoë Buyer" in text
    _refund(order)
    text = pdf_text(receipts.pdf(receipts.receipt_of(actor=buyer, order_id=order.id)))
    assert "Credit note CN-000001" in text and "Refers to receipt R-000001" in text and "-EUR 38.64" in text


# ---- the buyer's receipt details -------------------------------------------------------------------------------


@pytest.mark.parametrize(("details", "field", "message"), [
    ({"business_name": "x" * 201}, "businessName", "Business name must be at most 200 characters"),
    ({"billing_address": "y" * 501}, "billingAddress", "Billing address must be at most 500 characters"),
    ({"billing_address": "\n".join("line"for _ in range(7))}, "billingAddress",
     "Billing address must be at most 6 lines"),
    ({"tax_id": "1" * 33}, "taxId", "Tax ID must be at most 32 characters"),
    ({"tax_id": "DE<123>"}, "taxId", buyer_details.TAX_ID_CHARACTERS),
    ({"tax_id": "-123"}, "taxId", buyer_details.TAX_ID_CHARACTERS),
])
def test_bad_receipt_details_are_refused_and_nothing_changes(details, field, message):
    buyer = factories.make_user(first_name="Bea", last_name="Buyer", business_name="Kept")
    with pytest.raises(Invalid) as refused:
        users.update_profile(actor=buyer, first_name="Changed", last_name="Buyer", email=buyer.email, **details)
    assert (refused.value.field, refused.value.message) == (field, message)
    with db.session_scope() as session:
        stored = session.get(type(buyer), buyer.id)
        assert (stored.first_name, stored.business_name) == ("Bea", "Kept")


def test_control_characters_in_receipt_details_are_refused():
    buyer = factories.make_user(first_name="Bea", last_name="Buyer")
    with pytest.raises(InvalidParameter):
        users.update_profile(actor=buyer, first_name="Bea", last_name="Buyer", email=buyer.email,
                             business_name="Bea\x00Corp")


def test_receipt_details_are_cleared_with_empty_text_and_kept_when_left_out():
    buyer = factories.make_user(first_name="Bea", last_name="Buyer", business_name="Bea Corp", tax_id="DE1")
    updated = users.update_profile(actor=buyer, first_name="Bea", last_name="Buyer", email=buyer.email,
                                   business_name="")
    assert (updated.business_name, updated.tax_id) == (None, "DE1")


def test_receipt_details_need_a_signed_in_user():
    with pytest.raises(Unauthorized):
        users.update_profile(actor=None, first_name="Bea", last_name="Buyer", email="bea@example.com",
                             business_name="Bea Corp")


def test_an_orders_tab_row_links_its_receipt_once_numbered():
    from zoneinfo import ZoneInfo

    from marketplace.state.dashboard import order_row

    order = factories.make_order(factories.make_agent(factories.make_vendor()), factories.make_user())
    row = order_row(order, ZoneInfo("UTC"), "", "R-000007")
    assert (row.receipt_number, row.receipt_url) == ("R-000007", f"/api/user/orders/{order.id}/receipt")
    assert order_row(order, ZoneInfo("UTC")).receipt_url == ""


def test_a_promotion_code_is_a_discount_line_and_named_on_the_receipt():
    buyer = factories.make_user()
    agent = factories.make_agent(factories.make_vendor(), name="Summarizer", price_cents=2999)
    order = factories.make_order(agent, buyer, amount_cents=2249, promotion_code="SAVE25", discount_cents=750)
    doc = receipts.receipt_of(actor=buyer, order_id=order.id).receipt
    assert (doc.line, doc.subtotal, doc.discount, doc.total) == (
        "Summarizer: one-time license (promotion code SAVE25)", "$29.99", "-$7.50", "$22.49")


# ---- plan payments -------------------------------------------------------------------------------------------


def test_a_plan_payment_recorded_before_plan_receipts_is_numbered_once_on_first_read():
    vendor = factories.make_vendor()
    payment = factories.make_plan_payment(vendor, "pro", 2900)
    order = factories.make_order(factories.make_agent(factories.make_vendor()), factories.make_user())
    receipts.receipt_of(actor=factories.make_admin(), order_id=order.id)  # one sequence with order receipts
    views = _parallel([lambda: receipts.plan_receipt_of(actor=vendor, payment_id=payment.id)] * 5)
    assert {v.receipt.number for v in views} == {"R-000002"}
    assert _numbers() == [1, 2]
    assert receipts.plan_payments(actor=vendor)[0].receipt_number == "R-000002"


@pytest.mark.parametrize("bad", [None, 42, "", "x" * 40, "a b", "../x", "nope"])
def test_bad_plan_payment_ids_are_not_found(bad):
    with pytest.raises(NotFound, match="Receipt not found"):
        receipts.plan_receipt_of(actor=factories.make_vendor(), payment_id=bad)
