"""The refund services against the Stripe stand-in: the 30-day guarantee, the 90-day abuse limit, admin requests
and refunds, subscriptions cancelled, and every refusal (permission, bad input, state)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.integrations import payments
from marketplace.models import (
    AuditEntry,
    Notification,
    Order,
    OrderKind,
    OrderStatus,
    OutboxMail,
    Purchase,
    Receipt,
    ReceiptKind,
    Refund,
    RefundSource,
    RefundStatus,
    Subscription,
    SubscriptionStatus,
)
from marketplace.models.base import utcnow
from marketplace.services import access, receipts, refunds
from marketplace.services.errors import (
    BadGateway,
    Conflict,
    Forbidden,
    Invalid,
    InvalidParameter,
    NotFound,
    Unauthorized,
)
from marketplace.services.refunds import rules
from tests import factories


@pytest.fixture
def shop(stripe_standin, make_vendor, make_agent):
    """A vendor with an onboarded account, its agent, a buyer and an admin."""
    vendor = make_vendor("enabled")
    agent = make_agent(vendor, price_cents=121583, name="Ledger Agent")
    return vendor, agent, factories.make_user("buyer", first_name="Carla"), factories.make_admin()


def _row(model, row_id):
    with db.session_scope() as session:
        return session.get(model, row_id)


def _subjects(to: str) -> list[str]:
    with db.session_scope() as session:
        return sorted(session.exec(select(OutboxMail.subject).where(OutboxMail.recipient == to)).all())


def _titles(user_id: str) -> list[str]:
    with db.session_scope() as session:
        return sorted(session.exec(select(Notification.title).where(Notification.user_id == user_id)).all())


def test_a_split_order_is_refunded_at_once_with_transfer_and_fee_back(stripe_standin, shop):
    vendor, agent, buyer, _ = shop
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    with db.session_scope() as session:
        assert access.has_access(session, user_id=buyer.id, agent_id=agent.id)
    done = refunds.request_refund(actor=buyer, order_id=order.id, reason="Not what I needed")
    assert done.status == RefundStatus.SUCCEEDED

    stored = _row(Order, order.id)
    assert stored.status == OrderStatus.REFUNDED and stored.refunded_at is not None
    refund = _row(Refund, done.refund_id)
    assert (refund.status, refund.source, refund.amount_cents) == ("succeeded", "customer", 121583)
    assert refund.stripe_refund_id == stored.refund_id and refund.stripe_refund_id.startswith("re_")
    at_stripe = stripe_standin.stripe.v1.refunds.retrieve(refund.stripe_refund_id)
    assert at_stripe.amount == 121583 and at_stripe.transfer_reversal  # the vendor's share came back
    fee = stripe_standin.stripe.v1.application_fees.list(params={"limit": 1}).data[0]
    assert fee.amount_refunded == fee.amount  # and the platform's fee
    with db.session_scope() as session:
        assert not access.has_access(session, user_id=buyer.id, agent_id=agent.id)
    assert _titles(vendor.id) == ["Sale refunded"]
    assert _subjects(vendor.email) == ["Refund: Ledger Agent"]
    assert _subjects(buyer.email) == ["Your refund: Ledger Agent"]


def test_the_refund_numbers_its_credit_note_when_the_money_goes_back(stripe_standin, shop):
    """The credit note is numbered in the refund's own transaction, not when someone first reads it."""
    _, agent, buyer, _ = shop
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    receipt = receipts.receipt_of(actor=buyer, order_id=order.id).receipt  # numbered (a factory's order has none)
    refunds.request_refund(actor=buyer, order_id=order.id, reason="Not what I needed")
    with db.session_scope() as session:
        notes = session.exec(select(Receipt).where(Receipt.order_id == order.id,
                                                   Receipt.kind == ReceiptKind.CREDIT_NOTE)).all()
    assert [(n.number, n.refers_to_number, n.total_cents) for n in notes] == [(1, int(receipt.number[2:]), 121583)]
    assert receipts.receipt_of(actor=buyer, order_id=order.id).credit_note.number == "CN-000001"  # read: the same


def test_the_confirmation_greets_by_name_with_thousands_separators(stripe_standin, shop, mailbox):
    _, agent, buyer, _ = shop
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    refunds.request_refund(actor=buyer, order_id=order.id, reason="Too slow")
    text = mailbox.last(buyer.email, "Your refund").text
    assert text.startswith("Hi Carla,") and "Amount: $1,215.83\n" in text and "Access to the agent has ended." in text


def test_a_second_request_and_other_refusals(stripe_standin, shop):
    _, agent, buyer, _ = shop
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    refunds.request_refund(actor=buyer, order_id=order.id, reason="No")
    with pytest.raises(Conflict, match="already been refunded"):
        refunds.request_refund(actor=buyer, order_id=order.id, reason="Again")
    old = factories.make_order(factories.make_agent(), buyer, created_at=factories.ago(days=31))
    with pytest.raises(Conflict, match="30-day money-back guarantee has ended"):
        refunds.request_refund(actor=buyer, order_id=old.id, reason="Late")
    pending = factories.make_order(factories.make_agent(), buyer, status=OrderStatus.PROCESSING)
    with pytest.raises(Conflict, match="Only a completed order"):
        refunds.request_refund(actor=buyer, order_id=pending.id, reason="Why")
    free = factories.make_order(factories.make_agent(price_cents=0), buyer, amount_cents=0)
    with pytest.raises(Conflict, match="free"):
        refunds.request_refund(actor=buyer, order_id=free.id, reason="Free")
    with db.session_scope() as session:
        assert len(session.exec(select(Refund)).all()) == 1  # refusals wrote nothing


def test_permission_denied_and_bad_input(stripe_standin, shop):
    _, agent, buyer, admin = shop
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    stranger = factories.make_user()
    with pytest.raises(Unauthorized):
        refunds.request_refund(actor=None, order_id=order.id, reason="x")
    with pytest.raises(NotFound, match="Order not found"):
        refunds.request_refund(actor=stranger, order_id=order.id, reason="x")  # not theirs: as unknown
    with pytest.raises(NotFound):
        refunds.request_refund(actor=buyer, order_id="no-such-id!", reason="x")
    with pytest.raises(Invalid, match="orderId is required"):
        refunds.request_refund(actor=buyer, order_id="", reason="x")
    with pytest.raises(Invalid, match="tell us why"):
        refunds.request_refund(actor=buyer, order_id=order.id, reason="   ")
    with pytest.raises(Invalid, match="at most 1000"):
        refunds.request_refund(actor=buyer, order_id=order.id, reason="x" * 1001)
    with pytest.raises(InvalidParameter):
        refunds.request_refund(actor=buyer, order_id=order.id, reason="bad\x00text")
    for call in (lambda u: refunds.refund_order(actor=u, order_id=order.id),
                 lambda u: refunds.list_refunds(actor=u),
                 lambda u: refunds.approve(actor=u, refund_id="abc"),
                 lambda u: refunds.reject(actor=u, refund_id="abc")):
        with pytest.raises(Forbidden):
            call(buyer)
        with pytest.raises(Unauthorized):
            call(None)
    with pytest.raises(NotFound, match="Refund not found"):
        refunds.approve(actor=admin, refund_id="abc")
    with pytest.raises(Invalid, match="at most 1000"):
        refunds.refund_order(actor=admin, order_id=order.id, reason="y" * 1001)
    with pytest.raises(InvalidParameter, match="status must be"):
        refunds.list_refunds(actor=admin, status="bogus")
    assert _row(Order, order.id).status == OrderStatus.COMPLETED


def test_the_third_refund_in_90_days_waits_for_an_admin_who_approves(stripe_standin, shop, mailbox):
    _, agent, buyer, admin = shop
    for days in (10, 80):
        factories.make_refund(factories.make_order(factories.make_agent(), buyer), created_at=factories.ago(days=days))
    factories.make_refund(factories.make_order(factories.make_agent(), buyer), created_at=factories.ago(days=91))
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    done = refunds.request_refund(actor=buyer, order_id=order.id, reason="Third one")
    assert done.status == RefundStatus.REQUESTED
    assert _row(Order, order.id).status == OrderStatus.COMPLETED  # nothing paid back yet
    assert stripe_standin.stripe.v1.refunds.list(params={"payment_intent": order.payment_intent_id}).data == []
    assert refunds.refund_marks(actor=buyer) == {order.id: "requested"}
    with pytest.raises(Conflict, match="waiting for an admin"):
        refunds.request_refund(actor=buyer, order_id=order.id, reason="Again")

    rows, total = refunds.list_refunds(actor=admin, status="requested")
    assert total == 1 and rows[0].id == done.refund_id and rows[0].customer == "buyer"
    assert rows[0].reason == "Third one" and rows[0].amount_cents == 121583
    assert refunds.requested_count(actor=admin) == 1

    approved = refunds.approve(actor=admin, refund_id=done.refund_id)
    assert approved.status == RefundStatus.SUCCEEDED
    refund = _row(Refund, done.refund_id)
    assert refund.decided_by_id == admin.id and refund.decided_at is not None
    assert _row(Order, order.id).status == OrderStatus.REFUNDED
    assert _titles(buyer.id) == ["Refund approved"]
    assert "Your refund: Ledger Agent" in _subjects(buyer.email)
    with db.session_scope() as session:
        entry = session.exec(select(AuditEntry).where(AuditEntry.target_id == refund.id)).one()
    assert entry.action == "refund.approve" and entry.actor_id == admin.id
    with pytest.raises(Conflict, match="waiting for review"):
        refunds.approve(actor=admin, refund_id=done.refund_id)
    assert refunds.list_refunds(actor=admin, status="requested")[1] == 0
    assert refunds.list_refunds(actor=admin, status="all")[1] == 4


def test_a_rejected_request_keeps_access_and_tells_the_customer_why(stripe_standin, shop, mailbox):
    _, agent, buyer, admin = shop
    for _ in range(2):
        factories.make_refund(factories.make_order(factories.make_agent(), buyer))
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    done = refunds.request_refund(actor=buyer, order_id=order.id, reason="Third")
    refunds.reject(actor=admin, refund_id=done.refund_id, reason="  Three refunds this month  ")
    refund = _row(Refund, done.refund_id)
    assert (refund.status, refund.decision_reason) == ("rejected", "Three refunds this month")
    assert _row(Order, order.id).status == OrderStatus.COMPLETED
    with db.session_scope() as session:
        assert access.has_access(session, user_id=buyer.id, agent_id=agent.id)
    assert _titles(buyer.id) == ["Refund request declined"]
    assert "Reason: Three refunds this month" in mailbox.last(buyer.email, "Your refund request").text
    assert factories.audit_actions()[-1][0] == "refund.reject"
    with pytest.raises(Conflict):
        refunds.approve(actor=admin, refund_id=done.refund_id)
    # A rejected request frees the order: the customer may ask again (another request for an admin).
    assert refunds.request_refund(actor=buyer, order_id=order.id, reason="Please").status == "requested"


def test_an_admin_refunds_any_order_even_after_30_days(stripe_standin, shop):
    _, agent, buyer, admin = shop
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer, created_at=factories.ago(days=45))
    with pytest.raises(Conflict, match="has ended"):
        refunds.request_refund(actor=buyer, order_id=order.id, reason="Late")
    done = refunds.refund_order(actor=admin, order_id=order.id, reason="Goodwill")
    refund = _row(Refund, done.refund_id)
    assert (refund.status, refund.source, refund.requested_by_id) == ("succeeded", RefundSource.ADMIN, admin.id)
    assert _titles(buyer.id) == ["Refund approved"]
    assert factories.audit_actions()[-1][0] == "refund.create"
    with pytest.raises(Conflict, match="already been refunded"):
        refunds.refund_order(actor=admin, order_id=order.id)
    with pytest.raises(NotFound):
        refunds.refund_order(actor=admin, order_id="unknown1")


def test_a_refunded_subscription_is_cancelled_at_stripe_and_ends(stripe_standin, make_agent):
    client = stripe_standin.stripe
    buyer, agent = factories.make_user(), make_agent(price_cents=2999)
    price = client.v1.prices.create(params={"unit_amount": 2999, "currency": "usd", "recurring": {"interval": "month"},
                                            "product_data": {"name": "Agent"}})
    customer = client.v1.customers.create(params={"email": buyer.email})
    sub = client.v1.subscriptions.create(params={
        "customer": customer.id, "items": [{"price": price.id}], "payment_behavior": "default_incomplete",
        "payment_settings": {"save_default_payment_method": "on_subscription"},
        "expand": ["latest_invoice.confirmation_secret"]})
    assert stripe_standin.confirm(sub.latest_invoice.confirmation_secret.client_secret).json()["status"] == "succeeded"
    intent_id = sub.latest_invoice.confirmation_secret.client_secret.split("_secret_")[0]
    row = factories.make_subscription(agent, buyer)
    order = factories.make_order(agent, buyer, split=False, kind=OrderKind.SUBSCRIPTION, subscription_id=row.id)
    with db.session_scope() as session:  # the rows as checkout leaves them, naming what Stripe made
        stored, subscription = session.get(Order, order.id), session.get(Subscription, row.id)
        stored.payment_intent_id, subscription.stripe_subscription_id = intent_id, sub.id
        session.add_all([stored, subscription])

    refunds.request_refund(actor=buyer, order_id=order.id, reason="Cancel it")
    assert client.v1.subscriptions.retrieve(sub.id).status == "canceled"
    ended = _row(Subscription, row.id)
    assert ended.status == SubscriptionStatus.CANCELED and ended.ended_at is not None
    with db.session_scope() as session:
        purchase = session.exec(select(Purchase).where(Purchase.subscription_id == row.id)).one()
        assert not access.has_access(session, user_id=buyer.id, agent_id=agent.id)
    assert purchase.access_until is not None


def test_a_failed_stripe_refund_frees_the_order(stripe_standin, shop, monkeypatch):
    _, agent, buyer, _ = shop
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)

    def down(**_: object) -> str:
        raise payments.PaymentProviderError("Stripe is down")

    with monkeypatch.context() as patched:
        patched.setattr(payments, "refund_payment", down)
        with pytest.raises(BadGateway, match="could not be made"):
            refunds.request_refund(actor=buyer, order_id=order.id, reason="x")
    with db.session_scope() as session:
        failed = session.exec(select(Refund)).one()
    assert failed.status == RefundStatus.FAILED and failed.failure_reason
    assert _row(Order, order.id).status == OrderStatus.COMPLETED
    assert refunds.request_refund(actor=buyer, order_id=order.id, reason="x").status == "succeeded"


def test_refundable_orders_are_recent_completed_and_paid(shop):
    _, agent, buyer, _ = shop
    fresh = factories.make_order(agent, buyer)
    factories.make_order(factories.make_agent(), buyer, created_at=utcnow() - rules.GUARANTEE - timedelta(minutes=1))
    factories.make_order(factories.make_agent(), buyer, status=OrderStatus.REFUNDED)
    factories.make_order(factories.make_agent(price_cents=0), buyer, amount_cents=0)
    factories.make_order(factories.make_agent(), factories.make_user())
    assert refunds.refund_marks(actor=buyer) == {fresh.id: "refundable"}


def test_the_admin_row_and_the_orders_mark_say_what_happened():
    from zoneinfo import ZoneInfo

    from marketplace.state.admin.refunds import refund_view
    from marketplace.state.dashboard import order_row

    row = refunds.RefundRow(
        id="r1", order_id="o" * 24 + "abcd1234", agent_id="a1", agent_name="Ledger Agent", customer="carla",
        customer_email="c@example.com", amount_cents=121583, currency="usd", status="succeeded", source="stripe",
        reason="Refunded in Stripe's dashboard", decision_reason=None, failure_reason=None, decided_by=None,
        created_at=utcnow(), decided_at=utcnow())
    view = refund_view(row, ZoneInfo("UTC"))
    assert (view.amount, view.status_label, view.source, view.order_number) == (
        "$1,215.83 USD", "Refunded", "Stripe dashboard", "abcd1234")
    rejected = refund_view(refunds.RefundRow(**{**row.__dict__, "status": "rejected", "decision_reason": "No"}),
                           ZoneInfo("UTC"))
    assert (rejected.status_label, rejected.decision) == ("Rejected", "No")
    order = factories.make_order(factories.make_agent(), factories.make_user())
    assert order_row(order, ZoneInfo("UTC"), "refundable").refund == "refundable"
    assert order_row(order, ZoneInfo("UTC")).refund == ""
