"""The one access rule: a licence for good, a subscription until its paid period (and grace) ends, nothing
while a dispute suspends it; downloads, 'Already Bought' and reviews follow it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from marketplace import db
from marketplace.models import Purchase
from marketplace.models.base import utcnow
from marketplace.services import access, downloads
from marketplace.services.catalog.visibility import purchased_agent_ids
from tests import factories as f


def _has(user, agent) -> bool:
    with db.session_scope() as session:
        return access.has_access(session, user_id=user.id, agent_id=agent.id)


def _set(purchase_id: str, **values: object) -> None:
    with db.session_scope() as session:
        row = session.get(Purchase, purchase_id)
        for name, value in values.items():
            setattr(row, name, value)


@pytest.fixture
def bought():
    vendor = f.make_vendor()
    agent = f.make_agent(vendor=vendor, price_cents=900)
    buyer = f.make_user()
    return agent, buyer


def test_a_licence_gives_access_for_good(bought):
    agent, buyer = bought
    f.make_purchase(buyer, agent)
    assert _has(buyer, agent)
    assert agent.id in purchased_agent_ids(actor=buyer)


def test_a_subscription_gives_access_until_its_period_ends(bought):
    agent, buyer = bought
    subscription = f.make_subscription(agent, buyer)
    assert _has(buyer, agent)
    with db.session_scope() as session:
        purchase = session.exec(Purchase.__table__.select().where(
            Purchase.subscription_id == subscription.id)).first()
    _set(purchase.id, access_until=utcnow() - timedelta(seconds=1))
    assert not _has(buyer, agent)
    assert agent.id not in purchased_agent_ids(actor=buyer)
    with db.session_scope() as session:
        assert not downloads.can_download(session, user=buyer, agent=agent)


def test_a_dispute_suspends_even_a_licence(bought):
    agent, buyer = bought
    purchase = f.make_purchase(buyer, agent)
    _set(purchase.id, suspended_at=utcnow())
    assert not _has(buyer, agent)


def test_nobody_else_has_access(bought):
    agent, buyer = bought
    f.make_purchase(buyer, agent)
    assert not _has(f.make_user(), agent)


def _note(buyer, agent) -> str:
    from marketplace.services import purchases

    [record] = [r for r in purchases.list_purchases(actor=buyer) if r.agent.id == agent.id]
    return record.access_note


def test_my_agents_says_why_an_agent_can_no_longer_be_used(bought):
    from marketplace.models import Order, OrderStatus
    from marketplace.services.purchases import history

    agent, buyer = bought
    purchase = f.make_purchase(buyer, agent)
    assert _note(buyer, agent) == ""
    _set(purchase.id, suspended_at=utcnow())
    assert _note(buyer, agent) == history.ACCESS_SUSPENDED
    _set(purchase.id, suspended_at=None, access_until=utcnow())
    with db.session_scope() as session:
        session.get(Order, purchase.order_id).status = OrderStatus.REFUNDED
    assert _note(buyer, agent) == history.ACCESS_REFUNDED

    other = f.make_agent(vendor=f.make_vendor(), price_cents=500)
    f.make_subscription(other, buyer, access_until=utcnow() - timedelta(days=1))
    assert _note(buyer, other) == history.ACCESS_ENDED
