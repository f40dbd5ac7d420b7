"""The one access rule: a licence for good, a subscription until its paid period (and grace) ends, nothing
while a dispute suspends it; downloads, 'Already Bought' and reviews follow it."""

from __future__ import annotations

import ast
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import select

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


# --- one writer of access_until ------------------------------------------------------------------------------


def _access_writes(source: str) -> list[int]:
    """Lines that write `access_until`: an assignment to `<row>.access_until` (plain or in a tuple),
    `Purchase(..., access_until=...)` or `update(...).values(access_until=...)`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                elements = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
                if any(isinstance(e, ast.Attribute) and e.attr == "access_until" for e in elements):
                    found.append(node.lineno)
        if isinstance(node, ast.Call) and any(k.arg == "access_until" for k in node.keywords):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in ("Purchase", "values"):
                found.append(node.lineno)
    return found


def test_only_the_access_service_writes_access_until():
    services = Path(access.__file__).parent
    offenders = [f"{path.relative_to(services.parent.parent)}:{line}"
                 for path in sorted(services.rglob("*.py")) if path != Path(access.__file__)
                 for line in _access_writes(path.read_text(encoding="utf-8"))]
    assert offenders == [], "write access through services/access.set_until"
    assert _access_writes(Path(access.__file__).read_text(encoding="utf-8")) != []


@pytest.mark.parametrize("source", [
    "purchase.access_until = None",
    "purchase.order_id, purchase.access_until = order.id, until",
    "Purchase(user_id=u, agent_id=a, access_until=until)",
    "session.execute(update(Purchase).where(x).values(access_until=now))",
])
def test_the_scan_finds_each_way_of_writing_access(source):
    assert _access_writes(source) == [1]


def test_the_scan_lets_reads_and_mail_texts_be():
    assert _access_writes("mail_texts.payment_failed(to=e, access_until=long_date(until)); x = p.access_until") == []


def _until(purchase_id: str):
    with db.session_scope() as session:
        return session.get(Purchase, purchase_id).access_until


def test_set_until_extends_only_later_and_ends_only_sooner(bought):
    agent, buyer = bought
    now = utcnow()
    subscription = f.make_subscription(agent, buyer, access_until=now + timedelta(days=3))
    with db.session_scope() as session:
        purchase_id = session.exec(select(Purchase.id).where(Purchase.subscription_id == subscription.id)).one()
    for days, only, expected in ((1, "later", 3), (5, "later", 5), (9, "sooner", 5), (2, "sooner", 2), (1, None, 1)):
        with db.session_scope() as session:
            access.set_until(session, where=Purchase.id == purchase_id, until=now + timedelta(days=days), only=only)
        assert _until(purchase_id) == now + timedelta(days=expected), (days, only)


def test_set_until_leaves_a_licence_for_good_unless_it_ends(bought):
    agent, buyer = bought
    purchase, now = f.make_purchase(buyer, agent), utcnow()
    with db.session_scope() as session:
        access.set_until(session, where=Purchase.id == purchase.id, until=now + timedelta(days=5), only="later")
    assert _until(purchase.id) is None and _has(buyer, agent)
    with db.session_scope() as session:
        access.set_until(session, where=Purchase.id == purchase.id, until=now, only="sooner")
    assert _until(purchase.id) == now and not _has(buyer, agent)
