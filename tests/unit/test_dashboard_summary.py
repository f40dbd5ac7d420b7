"""The customer dashboard's figures and money labels: counts, per-currency totals, split labels."""

from __future__ import annotations

from decimal import Decimal

import pytest

from marketplace import db
from marketplace.models import Order, OrderStatus, Purchase
from marketplace.services import money, purchases
from marketplace.services.errors import Unauthorized


def _buy(user, agent, *, cents: int, currency: str = "usd", status: str = OrderStatus.COMPLETED,
         purchase: bool = True) -> None:
    with db.session_scope() as session:
        order = Order(user_id=user.id, agent_id=agent.id, vendor_id=agent.vendor_id, agent_name=agent.name,
                      status=status, currency=currency, total_amount_cents=cents, original_price_usd_cents=cents,
                      commission_rate=Decimal(20), payment_intent_id=f"pi_{user.id}_{agent.id}_{status}")
        session.add(order)
        session.flush()
        if purchase:
            session.add(Purchase(user_id=user.id, agent_id=agent.id, order_id=order.id,
                                 purchase_price_cents=cents, currency=currency))


def test_summary_counts_and_sums_per_currency(make_user, make_agent):
    buyer, other = make_user("buyer"), make_user("other")
    a, b, c, d = (make_agent() for _ in range(4))
    _buy(buyer, a, cents=2999)
    _buy(buyer, b, cents=1001)
    _buy(buyer, c, cents=2759, currency="eur")
    _buy(buyer, d, cents=500, status=OrderStatus.PROCESSING, purchase=False)  # not completed, not owned
    _buy(other, a, cents=9999)

    summary = purchases.spending_summary(actor=buyer)
    assert summary.agents_owned == 3
    assert summary.completed_orders == 3
    assert summary.total_spent == {"usd": 4000, "eur": 2759}
    assert money.format_totals(summary.total_spent) == "$40.00 + €27.59"


def test_summary_of_a_new_user_is_zero(make_user):
    summary = purchases.spending_summary(actor=make_user("fresh"))
    assert (summary.agents_owned, summary.completed_orders) == (0, 0)
    assert money.format_totals(summary.total_spent) == "$0.00"


def test_summary_needs_a_user():
    with pytest.raises(Unauthorized):
        purchases.spending_summary(actor=None)


def test_free_claims_count_as_owned_with_zero_spent(make_user, make_agent):
    buyer = make_user("claimer")
    _buy(buyer, make_agent(price_cents=0), cents=0)
    summary = purchases.spending_summary(actor=buyer)
    assert (summary.agents_owned, summary.completed_orders, summary.total_spent) == (1, 1, {"usd": 0})


def test_format_totals_hides_empty_currencies_but_never_prints_nothing():
    assert money.format_totals({"usd": 0, "eur": 500}) == "€5.00"
    assert money.format_totals({"usd": 0}) == "$0.00"
    assert money.format_totals({}) == "$0.00"


@pytest.mark.parametrize(
    ("rate", "label"),
    [("20", "80/20"), ("20.00", "80/20"), ("12.5", "87.5/12.5"), ("0", "100/0"), ("100", "0/100"),
     ("15.25", "84.75/15.25")],
)
def test_split_label_follows_the_snapshotted_rate(rate, label):
    assert money.split_label(Decimal(rate)) == label


def test_renewals_count_and_refunds_and_ended_access_do_not(make_user, make_agent):
    from marketplace.models import OrderKind
    from tests import factories

    buyer = make_user("subscriber")
    monthly, refunded = make_agent(price_cents=1000), make_agent(price_cents=4000)
    factories.make_subscription(monthly, buyer)
    factories.make_order(monthly, buyer, amount_cents=1000, kind=OrderKind.SUBSCRIPTION)
    factories.make_order(monthly, buyer, amount_cents=1000, kind=OrderKind.RENEWAL)
    _buy(buyer, refunded, cents=4000, status=OrderStatus.REFUNDED)
    with db.session_scope() as session:
        row = session.exec(Purchase.__table__.select().where(Purchase.agent_id == refunded.id)).one()
        session.get(Purchase, row.id).access_until = factories.ago(seconds=1)

    summary = purchases.spending_summary(actor=buyer)
    assert (summary.agents_owned, summary.completed_orders, summary.total_spent) == (1, 2, {"usd": 2000})
