"""The Payment tab's history: every paid order as a charge and every refund that went through, newest first,
from the database only; nothing of another customer's, nothing unpaid or merely requested."""

from __future__ import annotations

import pytest

from marketplace.models import OrderStatus
from marketplace.services import purchases
from marketplace.services.errors import Unauthorized
from tests import factories


def test_charges_and_refunds_newest_first():
    buyer, other = factories.make_user("buyer"), factories.make_user("other")
    ledger = factories.make_agent(name="Ledger Bot", price_cents=1200)
    mailer = factories.make_agent(name="Mail Bot", price_cents=500)
    first = factories.make_order(ledger, buyer, created_at=factories.ago(days=10))
    refunded = factories.make_order(mailer, buyer, status=OrderStatus.REFUNDED, created_at=factories.ago(days=5),
                                    refunded_at=factories.ago(days=4))
    refund = factories.make_refund(refunded, decided_at=factories.ago(days=4))
    factories.make_order(ledger, buyer, status=OrderStatus.FAILED, created_at=factories.ago(days=3))
    asked = factories.make_order(ledger, buyer, created_at=factories.ago(days=2))
    factories.make_refund(asked, status="requested")  # waits for an admin: no money moved yet
    factories.make_order(ledger, other)
    entries = purchases.payment_history(actor=buyer)
    assert [(e.kind, e.id, e.description, e.amount_cents) for e in entries] == [
        ("charge", asked.id, "Ledger Bot", 1200),
        ("refund", refund.id, "Mail Bot", -500),
        ("charge", refunded.id, "Mail Bot", 500),
        ("charge", first.id, "Ledger Bot", 1200),
    ]
    assert {e.currency for e in entries} == {"usd"}
    # Each line opens its receipt; a refund's, the receipt of the order it refunds (which carries the credit note).
    assert [e.order_id for e in entries] == [asked.id, refunded.id, refunded.id, first.id]
    assert purchases.payment_history(actor=factories.make_user("new")) == []


def test_signed_out_is_refused():
    with pytest.raises(Unauthorized):
        purchases.payment_history(actor=None)
