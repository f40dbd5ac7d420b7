"""Stripe's refund and dispute webhooks against the stand-in's own events: a refund made in Stripe's dashboard is
mirrored once, our own refunds are recognised, disputes suspend access and tell the admins, and every event may
come twice, under a new id, or before the payment's own event."""

from __future__ import annotations

import copy
from typing import Any

import httpx
from sqlmodel import select

from marketplace import db
from marketplace.models import Notification, Order, OrderStatus, OutboxMail, Purchase, Refund, RefundStatus
from marketplace.services import access, purchases, refunds
from marketplace.services.refunds.requests import open_refund
from tests import factories
from tests.payments_fixtures import event_body, sign


def _events(standin, event_type: str, intent_id: str) -> list[dict[str, Any]]:
    found = [e.to_dict() for e in standin.stripe.v1.events.list(params={"type": event_type, "limit": 100}).data]
    return [e for e in found if e["data"]["object"].get("payment_intent") == intent_id]


def _deliver(event: dict[str, Any], *, new_id: str | None = None) -> str:
    """The app's answer to one delivery (`new_id`: the same event as a distinct one, as a replayed copy is)."""
    if new_id:
        event = copy.deepcopy(event) | {"id": new_id}
    payload = event_body(event)
    return purchases.handle_webhook(payload=payload, signature=sign(payload)).result


def _order(order_id: str) -> Order:
    with db.session_scope() as session:
        return session.get(Order, order_id)


def _refund_rows(order_id: str) -> list[Refund]:
    with db.session_scope() as session:
        return list(session.exec(select(Refund).where(Refund.order_id == order_id)).all())


def _count(model, *where) -> int:
    with db.session_scope() as session:
        return len(session.exec(select(model).where(*where)).all())


def _access(user_id: str, agent_id: str) -> bool:
    with db.session_scope() as session:
        return access.has_access(session, user_id=user_id, agent_id=agent_id)


def test_a_dashboard_refund_is_mirrored_once(stripe_standin, make_vendor, make_agent):
    vendor = make_vendor("enabled")
    agent, buyer = make_agent(vendor, price_cents=4900), factories.make_user()
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    made = httpx.post(f"{stripe_standin.base}/_standin/refund", data={"payment_intent": order.payment_intent_id})
    assert made.status_code == 200, made.text
    [event] = _events(stripe_standin, "charge.refunded", order.payment_intent_id)

    assert _deliver(event) == "refunded"
    assert _deliver(event) == "duplicate"
    assert _deliver(event, new_id="evt_copy_1") == "already-recorded"
    [row] = _refund_rows(order.id)
    assert (row.source, row.status, row.stripe_refund_id) == ("stripe", "succeeded", made.json()["id"])
    assert _order(order.id).status == OrderStatus.REFUNDED and not _access(buyer.id, agent.id)
    assert _count(Notification, Notification.user_id == vendor.id) == 1
    assert _count(Notification, Notification.user_id == buyer.id, Notification.title == "Refund approved") == 1


def test_our_own_refund_and_its_webhook_make_one_refund(stripe_standin, make_agent):
    agent, buyer = make_agent(price_cents=1500), factories.make_user()
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    refunds.request_refund(actor=buyer, order_id=order.id, reason="Changed my mind")
    [event] = _events(stripe_standin, "charge.refunded", order.payment_intent_id)
    assert _deliver(event) == "already-recorded"
    assert _deliver(event, new_id="evt_copy_2") == "already-recorded"
    assert len(_refund_rows(order.id)) == 1
    assert _count(OutboxMail, OutboxMail.recipient == buyer.email) == 1


def test_the_webhook_may_settle_our_refund_before_our_request_does(stripe_standin, make_agent):
    """Stripe's event can overtake the request that made the refund: whichever settles first wins, once."""
    agent, buyer = make_agent(price_cents=1500), factories.make_user()
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    with db.session_scope() as session:
        row = open_refund(session=session, order=order, user_id=buyer.id, requested_by=buyer, source="customer",
                          reason="Race", status=RefundStatus.PENDING)
    stripe_standin.stripe.v1.refunds.create(params={"payment_intent": order.payment_intent_id},
                                            options={"idempotency_key": f"refund-order-{row.id}"})
    [event] = _events(stripe_standin, "charge.refunded", order.payment_intent_id)
    assert _deliver(event) == "refunded"
    from marketplace.services.refunds.settle import pay_back

    assert pay_back(row.id).status == RefundStatus.SUCCEEDED  # our request, late: reads the result
    assert [r.status for r in _refund_rows(order.id)] == ["succeeded"]
    assert _count(OutboxMail, OutboxMail.recipient == buyer.email) == 1


def test_a_refund_event_before_the_payment_event_records_then_refunds(stripe_standin, make_agent):
    # A one-off payment (a licence): its own payment_intent.succeeded records it (a subscription's invoice.paid).
    agent, buyer = make_agent(price_cents=2500, pricing_model="one_time"), factories.make_user()
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    stripe_standin.confirm(intent.client_secret)
    httpx.post(f"{stripe_standin.base}/_standin/refund", data={"payment_intent": intent.payment_intent_id})
    [refunded] = _events(stripe_standin, "charge.refunded", intent.payment_intent_id)
    assert _deliver(refunded) == "refunded"
    succeeded = stripe_standin.event_for(intent.payment_intent_id, "payment_intent.succeeded")
    assert _deliver(succeeded) == "already-recorded"
    with db.session_scope() as session:
        order = session.exec(select(Order).where(Order.payment_intent_id == intent.payment_intent_id)).one()
    assert order.status == OrderStatus.REFUNDED and not _access(buyer.id, agent.id)


def test_a_dispute_suspends_access_and_tells_every_admin_once(stripe_standin, make_agent, mailbox):
    admins = [factories.make_admin(), factories.make_admin()]
    agent, buyer = make_agent(price_cents=9900, name="Mail Agent"), factories.make_user()
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    opened = httpx.post(f"{stripe_standin.base}/_standin/disputes", data={"payment_intent": order.payment_intent_id,
                                                                          "reason": "fraudulent"})
    assert opened.status_code == 200, opened.text
    [event] = _events(stripe_standin, "charge.dispute.created", order.payment_intent_id)
    assert _deliver(event) == "suspended"
    assert _deliver(event, new_id="evt_copy_3") == "duplicate"
    assert _order(order.id).disputed_at is not None and not _access(buyer.id, agent.id)
    with db.session_scope() as session:
        assert session.exec(select(Purchase).where(Purchase.order_id == order.id)).one().suspended_at is not None
    for admin in admins:
        assert _count(Notification, Notification.user_id == admin.id, Notification.title == "Payment disputed") == 1
        assert "fraudulent" in mailbox.last(admin.email, "Payment disputed: Mail Agent").text
    assert _order(order.id).status == OrderStatus.COMPLETED  # the money is the bank's question, not a refund


def test_a_dispute_before_the_payment_event_records_the_payment_first(stripe_standin, make_agent):
    factories.make_admin()
    agent, buyer = make_agent(price_cents=2500, pricing_model="one_time"), factories.make_user()  # a one-off payment
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    stripe_standin.confirm(intent.client_secret)
    httpx.post(f"{stripe_standin.base}/_standin/disputes", data={"payment_intent": intent.payment_intent_id})
    [event] = _events(stripe_standin, "charge.dispute.created", intent.payment_intent_id)
    assert _deliver(event) == "suspended"
    succeeded = stripe_standin.event_for(intent.payment_intent_id, "payment_intent.succeeded")
    assert _deliver(succeeded) == "already-recorded"
    assert not _access(buyer.id, agent.id)


def test_events_about_payments_that_are_not_ours_are_ignored(stripe_standin):
    intent = stripe_standin.stripe.v1.payment_intents.create(params={"amount": 500, "currency": "usd"})
    stripe_standin.stripe.v1.payment_intents.confirm(intent.id, params={"payment_method": "pm_card_visa"})
    httpx.post(f"{stripe_standin.base}/_standin/refund", data={"payment_intent": intent.id})
    [event] = _events(stripe_standin, "charge.refunded", intent.id)
    assert _deliver(event) == "ignored"
    partial = copy.deepcopy(event)
    partial["data"]["object"]["refunded"] = False
    assert _deliver(partial, new_id="evt_partial") == "ignored"


def test_the_webhook_route_answers_the_mirror(client, stripe_standin, make_agent):
    agent, buyer = make_agent(price_cents=1000), factories.make_user()
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    httpx.post(f"{stripe_standin.base}/_standin/refund", data={"payment_intent": order.payment_intent_id})
    [event] = _events(stripe_standin, "charge.refunded", order.payment_intent_id)
    body = event_body(event)
    headers = {"Stripe-Signature": sign(body), "Content-Type": "application/json"}
    answer = client.post("/api/stripe/webhook", content=body, headers=headers)
    assert answer.status_code == 200 and answer.json() == {"received": True, "result": "refunded"}
