"""Receipts over HTTP: `receiptNumber` in the order list, the HTML page and the PDF, who may read them, the
card of a payment made at the Stripe stand-in, the receipt details of the profile, the link in the receipt mail,
and 20 buyers opening their receipts at the same moment (gap-free numbers, on SQLite and PostgreSQL)."""

from __future__ import annotations

from functools import partial

from sqlmodel import select

from marketplace import db
from marketplace.models import Order, OrderStatus, Receipt, ReceiptCounter
from marketplace.models.base import utcnow
from marketplace.services import mail_texts
from tests import factories
from tests.live_api import LiveApi, fire
from tests.unit.test_receipts import pdf_text

PARALLEL = 20


def _order(buyer, price_cents: int = 2999, **fields) -> Order:
    return factories.make_order(factories.make_agent(factories.make_vendor(), name="Summarizer",
                                                     price_cents=price_cents), buyer, **fields)


def test_order_list_carries_receipt_numbers(client, login):
    buyer = factories.make_user()
    first, failed = _order(buyer, created_at=factories.ago(days=1)), _order(buyer, status=OrderStatus.FAILED)
    orders = login(buyer).get("/api/user/orders").json()
    assert {o["id"]: o["receiptNumber"] for o in orders} == {first.id: "R-000001", failed.id: None}


def test_receipt_page_and_pdf(client, login):
    buyer = factories.make_user(first_name="Bea", last_name="Buyer")
    order = _order(buyer)
    login(buyer)
    page = client.get(f"/api/user/orders/{order.id}/receipt")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["cache-control"] == "no-store"
    for text in ("Receipt <span class=\"number\">R-000001</span>", "$29.99", "Paid", "Bea Buyer", "AgentMarket",
                 "Summarizer: one-time license", f"/api/user/orders/{order.id}/receipt.pdf"):
        assert text in page.text
    pdf = client.get(f"/api/user/orders/{order.id}/receipt.pdf")
    assert pdf.status_code == 200
    assert pdf.headers["content-type"] == "application/pdf"
    assert pdf.headers["content-disposition"] == 'attachment; filename="receipt-R-000001.pdf"'
    text = pdf_text(pdf.content)
    assert "Receipt R-000001" in text and "$29.99" in text


def test_refunded_order_shows_its_credit_note(client, login):
    buyer = factories.make_user()
    order = _order(buyer)
    login(buyer).get(f"/api/user/orders/{order.id}/receipt")
    with db.session_scope() as session:
        row = session.get(Order, order.id)
        row.status, row.refunded_at = OrderStatus.REFUNDED, utcnow()
        session.add(row)
    page = client.get(f"/api/user/orders/{order.id}/receipt").text
    assert "Credit note <span class=\"number\">CN-000001</span>" in page
    assert "Refers to receipt <strong class=\"refers-to\">R-000001</strong>" in page and "-$29.99" in page
    assert "Credit note CN-000001" in pdf_text(client.get(f"/api/user/orders/{order.id}/receipt.pdf").content)


def test_who_reads_a_receipt(client, login):
    buyer, other = factories.make_user(), factories.make_user()
    order = _order(buyer)
    for suffix in ("receipt", "receipt.pdf"):
        path = f"/api/user/orders/{order.id}/{suffix}"
        assert client.get(path).status_code == 401
        login(other)
        answer = client.get(path)
        assert (answer.status_code, answer.json()) == (404, {"message": "Receipt not found"})
        login(factories.make_admin())
        assert client.get(path).status_code == 200
        login(buyer)
        assert client.get(path).status_code == 200
        client.post("/api/logout")


def test_card_of_a_payment_at_the_stand_in(client, login, stripe_standin):
    buyer = factories.make_user()
    order = factories.make_paid_order(stripe_standin.stripe, factories.make_agent(factories.make_vendor()), buyer)
    page = login(buyer).get(f"/api/user/orders/{order.id}/receipt").text
    assert "Paid with Visa •••• 4242" in page
    assert "Paid with Visa **** 4242" in pdf_text(client.get(f"/api/user/orders/{order.id}/receipt.pdf").content)


def test_profile_receipt_details(client, login):
    buyer = factories.make_user(first_name="Bea", last_name="Buyer")
    login(buyer)
    base = {"firstName": "Bea", "lastName": "Buyer", "email": buyer.email}
    bad = client.put("/api/user/profile", json={**base, "taxId": "DE<1>"})
    assert bad.status_code == 400
    assert bad.json()["message"] == "Tax ID may contain only letters, digits, spaces, dots, dashes and slashes"
    too_long = client.put("/api/user/profile", json={**base, "businessName": "x" * 201})
    assert too_long.status_code == 400
    assert too_long.json()["message"] == "Business name must be at most 200 characters"
    saved = client.put("/api/user/profile", json={**base, "businessName": "Bea Corp",
                                                  "billingAddress": "1 Main St\nSpringfield", "taxId": "DE 123"})
    assert saved.status_code == 200, saved.text
    assert {k: saved.json()[k] for k in ("businessName", "billingAddress", "taxId")} == {
        "businessName": "Bea Corp", "billingAddress": "1 Main St\nSpringfield", "taxId": "DE 123"}
    page = client.get(f"/api/user/orders/{_order(buyer).id}/receipt").text
    assert "Bea Corp<br>1 Main St<br>Springfield<br>Tax ID: DE 123" in page


def test_receipt_mail_links_the_receipt():
    text = mail_texts.receipt(to="b@example.com", name="Bea", agent_name="Bot", amount="1.00", currency="usd",
                              order_id="abc123", agent_id="a1", license_key="").text
    assert mail_texts.url("/api/user/orders/abc123/receipt") in text
    renewal = mail_texts.renewal_receipt(to="b@example.com", name="Bea", agent_name="Bot", amount="1.00",
                                         currency="usd", order_id="abc123", renews_on="1 Jan 2027").text
    assert mail_texts.url("/api/user/orders/abc123/receipt") in renewal


def test_twenty_buyers_open_their_receipts_at_the_same_moment(live_api: LiveApi):
    buyers = [factories.make_user() for _ in range(PARALLEL)]
    agent = factories.make_agent(factories.make_vendor(), price_cents=1000)
    orders = [factories.make_order(agent, buyer) for buyer in buyers]
    clients = [live_api.signed_in(buyer.username) for buyer in buyers]
    answers = fire([partial(c.get, f"/api/user/orders/{o.id}/receipt.pdf")
                    for c, o in zip(clients, orders, strict=True)])
    assert [a.status_code for a in answers] == [200] * PARALLEL
    with db.session_scope() as session:
        numbers = sorted(session.exec(select(Receipt.number)).all())
        assert session.get(ReceiptCounter, "receipt").last_number == PARALLEL
    assert numbers == list(range(1, PARALLEL + 1))
    shown = sorted(a.headers["content-disposition"] for a in answers)
    assert shown == sorted(f'attachment; filename="receipt-R-{n:06d}.pdf"' for n in range(1, PARALLEL + 1))


# --- numbered at payment -------------------------------------------------------------------------------------


def _bought(http, standin, agent) -> str:
    """Check out and pay `agent` at the stand-in as the signed-in `http` client; the PaymentIntent's id (the
    purchase is still to complete)."""
    intent = http.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    assert standin.confirm(intent["clientSecret"]).status_code == 200
    return intent["paymentIntentId"]


def test_a_purchase_numbers_its_receipt_when_paid(client, login, stripe_standin, make_agent, monkeypatch):
    vendor = factories.make_vendor()
    first_buyer, second_buyer = factories.make_user(), factories.make_user()
    agents = [make_agent(vendor, name="Summarizer", price_cents=2999), make_agent(vendor, name="Translator")]
    for buyer, agent in ((first_buyer, agents[0]), (second_buyer, agents[1])):
        intent_id = _bought(login(buyer), stripe_standin, agent)
        done = client.post("/api/purchase/complete", json={"paymentIntentId": intent_id})
        assert done.status_code == 200, done.text
        client.post("/api/logout")
    with db.session_scope() as session:
        rows = {r.number: r for r in session.exec(select(Receipt)).all()}
    # Numbered in the order of payment, before anyone read them, with the card the payment's retrieval gave.
    assert sorted(rows) == [1, 2]
    assert (rows[1].user_id, rows[2].user_id) == (first_buyer.id, second_buyer.id)
    assert (rows[1].card_brand, rows[1].card_last4, rows[1].total_cents) == ("visa", "4242", 2999)
    # Reading them asks Stripe nothing and numbers nothing.
    monkeypatch.setattr("marketplace.integrations.payments.card_of_payment", _no_stripe_call)
    orders = login(second_buyer).get("/api/user/orders").json()
    assert [o["receiptNumber"] for o in orders] == ["R-000002"]
    page = client.get(f"/api/user/orders/{orders[0]['id']}/receipt").text
    assert "R-000002" in page and "Paid with Visa •••• 4242" in page
    with db.session_scope() as session:
        assert session.get(ReceiptCounter, "receipt").last_number == 2


def _no_stripe_call(intent_id: str):
    raise AssertionError(f"a receipt read asked Stripe for the card of {intent_id}")


def test_twenty_parallel_purchases_take_gap_free_receipt_numbers(live_api: LiveApi, stripe_standin, make_agent):
    agent = make_agent(factories.make_vendor(), price_cents=1500)
    buyers = [factories.make_user() for _ in range(PARALLEL)]
    clients = [live_api.signed_in(buyer.username) for buyer in buyers]
    try:
        intents = [_bought(c, stripe_standin, agent) for c in clients]
        answers = fire([partial(c.post, "/api/purchase/complete", json={"paymentIntentId": i})
                        for c, i in zip(clients, intents, strict=True)])
    finally:
        for c in clients:
            c.close()
    assert [a.status_code for a in answers] == [200] * PARALLEL, [a.text for a in answers]
    with db.session_scope() as session:
        rows = session.exec(select(Receipt)).all()
        orders = {o.id: o for o in session.exec(select(Order)).all()}
        assert session.get(ReceiptCounter, "receipt").last_number == PARALLEL
    assert sorted(r.number for r in rows) == list(range(1, PARALLEL + 1))
    assert sorted(r.order_id for r in rows) == sorted(orders)  # one each
    assert {(r.card_brand, r.card_last4, r.total_cents) for r in rows} == {("visa", "4242", 1500)}
