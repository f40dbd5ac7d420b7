"""The stand-in's Connect money: balances fed by destination charges, payouts on behalf of an account, dev routes."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
import stripe

from tests.payments_fixtures import SECRET_KEY, StandIn, start_standin, stop_standin


def _onboarded(standin: StandIn, funded: int = 0) -> str:
    account = standin.stripe.v1.accounts.create(params={"type": "express", "email": "v@example.com"})
    standin.complete(account.id)
    if funded:
        standin.fund(account.id, funded, fee=funded // 5)
    return account.id


def _as(account_id: str) -> dict[str, str]:
    return {"stripe_account": account_id}


def test_complete_route_onboards_and_announces_it(stripe_standin):
    client = stripe_standin.stripe
    account = client.v1.accounts.create(params={"type": "express", "email": "v@example.com", "country": "DE"})
    assert (account.country, account.default_currency, account.details_submitted) == ("DE", "eur", False)
    assert "external_account" in account.requirements.currently_due
    assert account.requirements.disabled_reason == "requirements.past_due"
    done = stripe_standin.complete(account.id)
    assert done["charges_enabled"] and done["payouts_enabled"] and done["details_submitted"]
    assert done["requirements"]["currently_due"] == [] and done["requirements"]["disabled_reason"] is None
    assert done["external_accounts"]["data"][0]["object"] == "bank_account"
    event = client.v1.events.list(params={"type": "account.updated"}).data[0].to_dict()
    assert event["account"] == account.id and event["data"]["object"]["charges_enabled"] is True
    assert httpx.post(f"{stripe_standin.base}/_standin/connect/accounts/acct_missing/complete").status_code == 404


def test_destination_charges_feed_the_connected_balance(stripe_standin):
    client = stripe_standin.stripe
    account_id = _onboarded(stripe_standin)
    stripe_standin.fund(account_id, 5000, fee=1000)
    stripe_standin.fund(account_id, 2500, fee=500)
    balance = client.v1.balance.retrieve(options=_as(account_id)).to_dict()
    assert balance["object"] == "balance"
    assert balance["available"] == [{"amount": 6000, "currency": "usd", "source_types": {"card": 6000}}]
    assert balance["pending"][0]["amount"] == 0
    # The platform keeps the application fees.
    assert client.v1.balance.retrieve().available[0].amount == 1500
    # A destination charge transfers the whole amount and collects the fee from the account (as Stripe does):
    # reversing the transfer alone takes all of it back while the platform keeps its fee.
    intent = stripe_standin.fund(account_id, 1000, fee=200)
    client.v1.refunds.create(params={"payment_intent": intent, "reverse_transfer": True})
    assert client.v1.balance.retrieve(options=_as(account_id)).available[0].amount == 5800
    assert client.v1.balance.retrieve().available[0].amount == 1700
    # Refunding the application fee too leaves neither side anything of the refunded sale.
    intent = stripe_standin.fund(account_id, 1000, fee=200)
    client.v1.refunds.create(params={"payment_intent": intent, "reverse_transfer": True,
                                     "refund_application_fee": True})
    assert client.v1.balance.retrieve(options=_as(account_id)).available[0].amount == 5800
    assert client.v1.balance.retrieve().available[0].amount == 1700


def test_payouts_take_from_the_available_balance_like_stripe(stripe_standin):
    client = stripe_standin.stripe
    account_id = _onboarded(stripe_standin, funded=5000)  # 4000 available
    payout = client.v1.payouts.create(params={"amount": 1500, "currency": "usd", "description": "Weekly"},
                                      options=_as(account_id))
    assert (payout.object, payout.status, payout.method, payout.type, payout.automatic) == (
        "payout", "pending", "standard", "bank_account", False)
    assert payout.destination.startswith("ba_") and payout.failure_message is None
    assert payout.arrival_date > payout.created
    assert datetime.fromtimestamp(payout.arrival_date, UTC).hour == 0
    assert client.v1.balance.retrieve(options=_as(account_id)).available[0].amount == 2500
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.payouts.create(params={"amount": 2501, "currency": "usd"}, options=_as(account_id))
    assert exc.value.code == "balance_insufficient" and "insufficient funds" in exc.value.user_message
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.payouts.create(params={"amount": 100, "currency": "usd", "method": "wire"},
                                 options=_as(account_id))
    assert exc.value.param == "method"
    instant = client.v1.payouts.create(params={"amount": 100, "currency": "usd", "method": "instant"},
                                       options=_as(account_id))
    assert instant.arrival_date == instant.created
    # Scoped to the account the request acts for: the platform does not see it, an unknown account is refused.
    assert client.v1.payouts.retrieve(payout.id, options=_as(account_id)).id == payout.id
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.payouts.retrieve(payout.id)
    assert exc.value.http_status == 404 and exc.value.code == "resource_missing"
    assert client.v1.payouts.list().data == []
    with pytest.raises(stripe.PermissionError):
        client.v1.payouts.list(options=_as("acct_unknown"))


def test_accounts_without_payouts_cannot_pay_out(stripe_standin):
    client = stripe_standin.stripe
    account = client.v1.accounts.create(params={"type": "express", "email": "v@example.com"})
    stripe_standin.onboard(account.id, action="payouts_pending")
    stripe_standin.fund(account.id, 1000)
    with pytest.raises(stripe.InvalidRequestError) as exc:
        client.v1.payouts.create(params={"amount": 500, "currency": "usd"}, options=_as(account.id))
    assert exc.value.code == "payouts_not_allowed"
    assert stripe_standin.pay_out(account.id).json()["error"]["code"] == "payouts_not_allowed"


def test_list_is_newest_first_with_limit_and_cursors(stripe_standin):
    client = stripe_standin.stripe
    account_id = _onboarded(stripe_standin, funded=10000)
    ids = [client.v1.payouts.create(params={"amount": 100 * (n + 1), "currency": "usd"}, options=_as(account_id)).id
           for n in range(4)]
    page = client.v1.payouts.list(params={"limit": 3}, options=_as(account_id))
    assert [p.id for p in page.data] == ids[::-1][:3] and page.has_more
    rest = client.v1.payouts.list(params={"limit": 3, "starting_after": page.data[-1].id}, options=_as(account_id))
    assert [p.id for p in rest.data] == [ids[0]] and not rest.has_more
    before = client.v1.payouts.list(params={"ending_before": ids[0]}, options=_as(account_id))
    assert [p.id for p in before.data] == ids[::-1][:3]
    with pytest.raises(stripe.InvalidRequestError):
        client.v1.payouts.list(params={"limit": 101}, options=_as(account_id))
    # Backdated automatic payouts sort by their own creation time.
    old = stripe_standin.pay_out(account_id, created=1_700_000_000).json()
    assert old["automatic"] and old["amount"] == 8000 - 1000
    listed = client.v1.payouts.list(params={"limit": 10}, options=_as(account_id)).data
    assert listed[-1].id == old["id"] and len(listed) == 5
    assert client.v1.payouts.list(params={"status": "pending"}, options=_as(account_id)).data[0].id == ids[-1]


def test_payout_lifecycle_routes(stripe_standin):
    client = stripe_standin.stripe
    account_id = _onboarded(stripe_standin, funded=5000)  # 4000 available
    paid = stripe_standin.pay_out(account_id).json()
    assert paid["amount"] == 4000 and paid["automatic"] is True
    assert stripe_standin.pay_out(account_id).json()["error"]["code"] == "balance_insufficient"
    assert stripe_standin.set_payout_status(paid["id"], "in_transit").json()["status"] == "in_transit"
    assert stripe_standin.set_payout_status(paid["id"], "paid").json()["status"] == "paid"
    refused = stripe_standin.set_payout_status(paid["id"], "failed")
    assert refused.status_code == 400 and "cannot become failed" in refused.json()["error"]["message"]
    event = client.v1.events.list(params={"type": "payout.paid"}).data[0].to_dict()
    assert event["account"] == account_id and event["data"]["object"]["id"] == paid["id"]

    stripe_standin.fund(account_id, 2500, fee=500)
    failing = client.v1.payouts.create(params={"amount": 2000, "currency": "usd"}, options=_as(account_id))
    assert client.v1.balance.retrieve(options=_as(account_id)).available[0].amount == 0
    failed = stripe_standin.set_payout_status(failing.id, "failed").json()
    assert (failed["status"], failed["failure_code"], failed["failure_message"]) == (
        "failed", "account_closed", "The bank account has been closed.")
    # A failed payout returns its amount to the balance.
    assert client.v1.balance.retrieve(options=_as(account_id)).available[0].amount == 2000
    other = client.v1.payouts.create(params={"amount": 500, "currency": "usd"}, options=_as(account_id))
    custom = stripe_standin.set_payout_status(other.id, "failed", failure_code="no_account").json()
    assert custom["failure_message"].startswith("The bank account details on file are probably incorrect")
    assert stripe_standin.set_payout_status(other.id, "lost").status_code == 400
    assert stripe_standin.set_payout_status("po_missing", "paid").status_code == 404

    pending = client.v1.payouts.create(params={"amount": 300, "currency": "usd"}, options=_as(account_id))
    assert client.v1.payouts.cancel(pending.id, options=_as(account_id)).status == "canceled"
    assert client.v1.balance.retrieve(options=_as(account_id)).available[0].amount == 2000


def test_state_file_keeps_balances_and_payouts_across_restarts(tmp_path):
    state = tmp_path / "standin.pickle"
    proc, base, log = start_standin("--state-file", str(state))
    try:
        standin = StandIn(base=base, stripe=stripe.StripeClient(SECRET_KEY, base_addresses={"api": base}))
        account_id = _onboarded(standin, funded=5000)
        payout = standin.pay_out(account_id).json()
    finally:
        stop_standin(proc)
        log.unlink(missing_ok=True)
    proc, base, log = start_standin("--state-file", str(state))
    try:
        client = stripe.StripeClient(SECRET_KEY, base_addresses={"api": base})
        assert client.v1.payouts.retrieve(payout["id"], options=_as(account_id)).amount == 4000
        assert client.v1.accounts.retrieve(account_id).charges_enabled
    finally:
        stop_standin(proc)
        log.unlink(missing_ok=True)


def test_accounts_take_controller_and_still_the_deprecated_type(stripe_standin):
    """`controller` describes an account as Stripe now wants it; `type` is deprecated but Stripe still accepts
    it (and maps it onto the same properties), so the stand-in refuses neither."""
    from marketplace.integrations import payments

    client = stripe_standin.stripe
    made = payments.create_connected_account(email="v@example.com", idempotency_key="acct-v1")
    account = client.v1.accounts.retrieve(made.id).to_dict()
    assert account["type"] == "express"
    assert account["controller"] == {"fees": {"payer": "application"}, "is_controller": True,
                                     "losses": {"payments": "application"}, "requirement_collection": "stripe",
                                     "stripe_dashboard": {"type": "express"}, "type": "application"}
    assert sorted(account["capabilities"]) == ["card_payments", "transfers"]
    assert client.v1.accounts.login_links.create(made.id).url  # an Express Dashboard, as `type: express` had
    legacy = client.v1.accounts.create(params={"type": "express", "email": "w@example.com"}).to_dict()
    assert legacy["controller"] == account["controller"]
    full = client.v1.accounts.create(params={"controller": {"stripe_dashboard": {"type": "full"}}}).to_dict()
    assert full["type"] == "standard" and full["controller"]["fees"] == {"payer": "account"}
    for bad, param in (({"losses": {"payments": "application"}}, "controller[losses][payments]"),
                       ({"stripe_dashboard": {"type": "partial"}}, "controller[stripe_dashboard][type]"),
                       ({"colour": "blue"}, "controller[colour]")):
        with pytest.raises(stripe.InvalidRequestError) as exc:
            client.v1.accounts.create(params={"controller": bad})
        assert exc.value.param == param, bad
