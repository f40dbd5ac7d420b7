"""The demo vendor's Stripe seeding (dev tooling) against the stand-in: what it makes, and only once."""

from __future__ import annotations

from dev.stripe_standin import seed_demo
from marketplace import db
from marketplace.models import Role, User
from marketplace.services.vendors import payouts


def test_seeds_a_ready_account_with_a_payout_history_once(stripe_standin, make_user):
    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    other = make_user("nova_labs", role=Role.VENDOR, vendor_approved=True)
    account_id = seed_demo.seed(stripe_standin.base)
    assert seed_demo.seed(stripe_standin.base) == account_id
    assert [a.id for a in stripe_standin.stripe.v1.accounts.list().data] == [account_id]

    status = payouts.account_status(actor=vendor)
    assert (status.account_status, status.requires_action, status.default_currency) == ("active", False, "usd")
    view = payouts.list_payouts(actor=vendor)
    assert [p.status for p in view.payouts] == ["pending", "in_transit", "failed", "paid", "paid"]
    assert view.payouts[2].failure_message == "The bank account has been closed."
    assert view.payouts[1].amount_cents == 6400 + 1600  # the failed payout's money left with the next one
    assert view.payouts[-1].created < view.payouts[0].created
    assert stripe_standin.balance(account_id)["available"] == {"usd": 2000}
    assert payouts.account_status(actor=other).account_status == "not_connected"


def test_an_account_the_standin_forgot_is_replaced(stripe_standin, make_user):
    vendor = make_user("vendor", role=Role.VENDOR, vendor_approved=True)
    with db.session_scope() as session:
        row = session.get(User, vendor.id)
        row.stripe_account_id = "acct_forgotten"
        session.add(row)
    account_id = seed_demo.seed(stripe_standin.base)
    assert account_id != "acct_forgotten"
    assert payouts.account_status(actor=vendor).account_status == "active"


def test_nothing_to_do_without_the_demo_vendor(stripe_standin):
    assert seed_demo.seed(stripe_standin.base) is None
    assert stripe_standin.stripe.v1.accounts.list().data == []
