"""Vendor payouts service against the Stripe stand-in: account status, onboarding link, payouts, webhook sync."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx
import pytest

from marketplace import db
from marketplace.config import settings
from marketplace.integrations import payments
from marketplace.models import Role, User
from marketplace.services.errors import BadGateway, Forbidden, InvalidParameter, ServiceUnavailable, Unauthorized
from marketplace.services.vendors import payouts


@pytest.fixture
def vendor(make_user) -> User:
    return make_user(role=Role.VENDOR, vendor_approved=True)


def _row(user: User) -> User:
    with db.session_scope() as session:
        return session.get(User, user.id)


def _onboarding_url(vendor: User, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(settings, "public_url", "http://shop.test:3000/")
    return payouts.create_account_link(actor=vendor)


def test_not_connected_vendor(stripe_standin, vendor):
    status = payouts.account_status(actor=vendor, refresh=True)
    assert status == payouts.AccountStatus(
        connected=False, requires_action=False, account_status="not_connected", charges_enabled=False,
        payouts_enabled=False, requirements_due=[], country=None, default_currency=None)
    assert status.setup == "not_connected"
    assert payouts.list_payouts(actor=vendor) == payouts.PayoutsView(has_account=False, account_currency=None,
                                                                     payouts=[])


def test_link_creates_one_express_account_and_returns_to_the_vendor_page(stripe_standin, vendor, monkeypatch):
    url = _onboarding_url(vendor, monkeypatch)
    row = _row(vendor)
    assert row.stripe_account_id.startswith("acct_")
    assert (row.stripe_country, row.stripe_default_currency, row.stripe_details_submitted) == ("US", "usd", False)
    assert "external_account" in json.loads(row.stripe_requirements_due)
    assert row.stripe_disabled_reason == "requirements.past_due"
    account = stripe_standin.stripe.v1.accounts.retrieve(row.stripe_account_id)
    assert (account.type, account.email) == ("express", vendor.email)

    status = payouts.account_status(actor=vendor)
    assert (status.connected, status.account_status, status.requires_action) == (True, "pending", True)
    assert "external_account" in status.requirements_due and status.country == "US"
    assert status.setup == "needs_action"
    assert "Bank account for payouts" in payouts.requirement_labels(status.requirements_due)

    # The page sends the vendor back to /vendor; a used link goes to the refresh URL for a new one.
    back = httpx.post(url, data={"action": "complete"})
    assert back.headers["location"] == "http://shop.test:3000/vendor?stripe=return"
    assert httpx.get(url).headers["location"] == "http://shop.test:3000/vendor?stripe=refresh"

    again = payouts.create_account_link(actor=vendor)
    assert again != url and urlsplit(again).path.startswith("/_standin/connect/onboarding/")
    assert _row(vendor).stripe_account_id == row.stripe_account_id
    assert [a.id for a in stripe_standin.stripe.v1.accounts.list().data] == [row.stripe_account_id]

    active = payouts.account_status(actor=vendor, refresh=True)
    assert active == payouts.AccountStatus(
        connected=True, requires_action=False, account_status="active", charges_enabled=True, payouts_enabled=True,
        requirements_due=[], country="US", default_currency="usd")
    assert active.setup == "ready"


def test_concurrent_clicks_make_one_account(stripe_standin, vendor):
    with ThreadPoolExecutor(max_workers=3) as pool:
        urls = list(pool.map(lambda _: payouts.create_account_link(actor=vendor), range(3)))
    assert len(set(urls)) == 3
    accounts = stripe_standin.stripe.v1.accounts.list().data
    assert len(accounts) == 1 and _row(vendor).stripe_account_id == accounts[0].id


def test_restricted_when_requirements_are_due_or_charges_disabled(stripe_standin, vendor):
    payouts.create_account_link(actor=vendor)
    account_id = _row(vendor).stripe_account_id
    submitted = payments.ConnectedAccount(
        id=account_id, charges_enabled=False, payouts_enabled=False, details_submitted=True,
        currently_due=["individual.verification.document"], past_due=["external_account"],
        eventually_due=["individual.verification.document", "company.tax_id"],
        disabled_reason="requirements.past_due", country="de", default_currency="EUR")
    assert payouts.sync_account(submitted) is True
    row = _row(vendor)
    assert json.loads(row.stripe_requirements_due) == ["individual.verification.document", "external_account"]
    assert (row.stripe_country, row.stripe_default_currency, row.stripe_disabled_reason) == (
        "DE", "eur", "requirements.past_due")
    status = payouts.account_status(actor=vendor)
    assert (status.account_status, status.requires_action) == ("restricted", True)
    assert status.requirements_due == ["individual.verification.document", "external_account"]
    assert (status.country, status.default_currency) == ("DE", "eur")
    assert status.setup == "needs_action"
    assert payouts.requirement_labels(status.requirements_due) == ["Identity document", "Bank account for payouts"]

    charges_off = payments.ConnectedAccount(id=account_id, charges_enabled=False, payouts_enabled=True,
                                            details_submitted=True, currently_due=[], disabled_reason="under_review")
    payouts.sync_account(charges_off)
    assert payouts.account_status(actor=vendor).account_status == "restricted"
    assert payouts.account_status(actor=vendor).setup == "verifying"  # under review, nothing due: nothing to do

    # Charges work, payouts wait for the bank account to be verified: active, but it still needs the vendor.
    stripe_standin.onboard(account_id, action="payouts_pending")
    status = payouts.account_status(actor=vendor, refresh=True)
    assert (status.account_status, status.requires_action, status.payouts_enabled) == ("active", True, False)
    # ... which is Stripe verifying what was sent: nothing for the vendor to do, no requirement to name.
    assert (status.setup, status.requirements_due) == ("verifying", [])


def test_sync_account_ignores_unknown_accounts(stripe_standin, vendor):
    unknown = payments.ConnectedAccount(id="acct_nobody", charges_enabled=True, payouts_enabled=True,
                                        details_submitted=True, currently_due=[], disabled_reason=None)
    assert payouts.sync_account(unknown) is False
    assert _row(vendor).stripe_charges_enabled is False


def test_payout_history_reads_the_connected_account(stripe_standin, vendor):
    payouts.create_account_link(actor=vendor)
    account_id = _row(vendor).stripe_account_id
    stripe_standin.complete(account_id)
    payouts.account_status(actor=vendor, refresh=True)
    expected = []
    for amount, status in ((5000, "paid"), (2500, "failed"), (3000, "in_transit"), (1000, None)):
        stripe_standin.fund(account_id, amount, fee=amount // 5)
        payout = stripe_standin.pay_out(account_id).json()
        if status:
            assert stripe_standin.set_payout_status(payout["id"], status).status_code == 200
        expected.append((payout["id"], status or "pending"))
    view = payouts.list_payouts(actor=vendor)
    assert view.has_account and view.account_currency == "usd"
    assert [(p.id, p.status) for p in view.payouts] == expected[::-1]
    by_status = {p.status: p for p in view.payouts}
    assert by_status["failed"].failure_message == "The bank account has been closed."
    assert by_status["paid"].failure_message is None
    assert by_status["paid"].amount_cents == 4000 and by_status["paid"].currency == "usd"
    # The failed payout's 2000 went back to the balance and left again with the next payout.
    assert by_status["in_transit"].amount_cents == 2000 + 2400
    assert {(p.method, p.type) for p in view.payouts} == {("standard", "bank_account")}
    assert all(p.arrival_date > p.created for p in view.payouts)
    assert len(payouts.list_payouts(actor=vendor, limit=2).payouts) == 2
    for bad in (0, 101):
        with pytest.raises(InvalidParameter):
            payouts.list_payouts(actor=vendor, limit=bad)


def test_admins_may_act_as_vendors(stripe_standin, make_user):
    admin = make_user(role=Role.ADMIN)
    assert payouts.account_status(actor=admin).account_status == "not_connected"


@pytest.mark.parametrize("call", [
    lambda actor: payouts.account_status(actor=actor),
    lambda actor: payouts.create_account_link(actor=actor),
    lambda actor: payouts.list_payouts(actor=actor),
])
def test_only_approved_vendors(stripe_standin, make_user, call):
    with pytest.raises(Unauthorized):
        call(None)
    with pytest.raises(Forbidden, match="Vendor access required"):
        call(make_user())
    with pytest.raises(Forbidden):
        call(make_user(role=Role.VENDOR, vendor_approved=False))
    assert stripe_standin.stripe.v1.accounts.list().data == []


def test_provider_down_is_a_502_and_not_configured_a_503(stripe_standin, vendor, monkeypatch):
    payouts.create_account_link(actor=vendor)
    account_id = _row(vendor).stripe_account_id
    monkeypatch.setattr(settings, "stripe_api_base", "http://127.0.0.1:9")  # nothing listens on the discard port
    with pytest.raises(BadGateway, match="Could not load your payouts") as exc:
        payouts.list_payouts(actor=vendor)
    assert exc.value.status == 502
    with pytest.raises(BadGateway, match="Could not check your Stripe account"):
        payouts.account_status(actor=vendor, refresh=True)
    # Without a refresh the stored state answers, Stripe or not.
    assert payouts.account_status(actor=vendor).account_status == "pending"
    monkeypatch.setattr(settings, "stripe_secret_key", "")
    with pytest.raises(ServiceUnavailable) as exc:
        payouts.create_account_link(actor=vendor)
    assert exc.value.status == 503
    with pytest.raises(ServiceUnavailable):
        payouts.list_payouts(actor=vendor)
    assert _row(vendor).stripe_account_id == account_id


@pytest.mark.parametrize(("connected", "state", "due", "charges", "payouts_on", "setup"), [
    (False, "not_connected", [], False, False, "not_connected"),
    (True, "pending", [], False, False, "needs_action"),  # onboarding not finished, even with nothing listed
    (True, "pending", ["external_account"], False, False, "needs_action"),
    (True, "restricted", ["company.tax_id"], True, True, "needs_action"),
    (True, "restricted", [], False, True, "verifying"),
    (True, "active", [], True, False, "verifying"),
    (True, "active", [], True, True, "ready"),
])
def test_setup_says_what_the_vendor_has_to_do(connected, state, due, charges, payouts_on, setup):
    status = payouts.AccountStatus(connected=connected, requires_action=False, account_status=state,
                                   charges_enabled=charges, payouts_enabled=payouts_on, requirements_due=due,
                                   country=None, default_currency=None)
    assert status.setup == setup


def test_requirement_labels_name_each_need_once_and_survive_odd_keys():
    assert payouts.requirement_labels([]) == []
    assert payouts.requirement_labels(["individual.dob.day", "individual.dob.month", "external_account"]) == [
        "Date of birth", "Bank account for payouts"]
    assert payouts.requirement_labels(["individual.verification.additional_document"]) == [
        "Individual verification additional document"]
    assert payouts.requirement_labels(["", "   ", "<script>", None]) == ["Additional information"]  # type: ignore[list-item]
