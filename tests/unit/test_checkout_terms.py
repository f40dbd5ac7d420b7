"""The terms of a sale: priced from the database, written as Stripe metadata and read back by one parser."""

from __future__ import annotations

from decimal import Decimal

import pytest

from marketplace.models import Subscription, User
from marketplace.services import checkout_terms
from marketplace.services.checkout_terms import (
    CHARGES_DISABLED,
    DIRECT_REASON,
    NO_ACCOUNT,
    NO_VENDOR,
    REQUIRED_KEYS,
    CheckoutTerms,
    Route,
    TermsError,
)
from tests import factories
from tests.payments_fixtures import set_platform

SPLIT = Route(split=True, destination="acct_vendor")
DIRECT = Route(split=False, reason=NO_ACCOUNT)


def _terms(*, route: Route = SPLIT, price: int = 2999, currency: str = "usd", rate: str = "1",
           fee_rate: str = "20", vendor_id: str | None = "vendor1") -> CheckoutTerms:
    return CheckoutTerms.build(agent_id="agent1", buyer_id="buyer1", vendor_id=vendor_id, route=route,
                               price_usd_cents=price, currency=currency, rate=Decimal(rate), fee_rate=Decimal(fee_rate))


def _read(metadata: dict[str, str], *, destination: str | None = "acct_vendor",
          with_amount: bool = False) -> CheckoutTerms:
    return CheckoutTerms.from_metadata(metadata, destination=destination, with_amount=with_amount)


# --- the metadata Stripe objects carry ------------------------------------------------------------------------


def test_a_payment_intents_metadata_keeps_the_keys_and_formats_stripe_objects_already_carry():
    assert _terms(route=DIRECT, currency="eur", rate="0.92", fee_rate="12.5").to_metadata() == {
        "agentId": "agent1", "userId": "buyer1", "vendorId": "vendor1", "commissionRate": "12.50",
        "originalPriceUsdCents": "2999", "exchangeRate": "0.9200", "currency": "eur",
        "splitBlockReason": NO_ACCOUNT,
    }
    split = _terms(vendor_id=None).to_metadata(with_amount=True)  # a subscription's also names its amount
    assert split == {"agentId": "agent1", "userId": "buyer1", "vendorId": "", "commissionRate": "20.00",
                     "originalPriceUsdCents": "2999", "exchangeRate": "1.0000", "currency": "usd", "amount": "2999"}


@pytest.mark.parametrize("currency, rate", [("usd", "1"), ("eur", "0.92"), ("eur", "1.0837")])
@pytest.mark.parametrize("route", [SPLIT, DIRECT, Route(split=False, reason=NO_VENDOR)])
@pytest.mark.parametrize("with_amount", [False, True])
def test_terms_survive_the_round_trip_through_metadata(currency, rate, route, with_amount):
    terms = _terms(route=route, currency=currency, rate=rate, fee_rate="17.5",
                   vendor_id=None if route.reason == NO_VENDOR else "vendor1")
    back = _read(terms.to_metadata(with_amount=with_amount), destination=route.destination, with_amount=with_amount)
    assert back == terms


def test_a_direct_charge_without_a_reason_reads_as_processed_directly():
    metadata = _terms(route=SPLIT).to_metadata()
    back = _read(metadata, destination=None)  # the Stripe object has no transfer destination
    assert back.route == Route(split=False, reason=DIRECT_REASON) and back.fee == 600


def test_the_split_is_the_stripe_objects_not_the_metadatas():
    """A reason in the metadata does not make a destination charge direct: the transfer decides."""
    back = _read(_terms(route=DIRECT).to_metadata(), destination="acct_other")
    assert back.route == Route(split=True, destination="acct_other")


@pytest.mark.parametrize("key", REQUIRED_KEYS)
@pytest.mark.parametrize("value", [None, ""])
def test_a_missing_key_is_refused_naming_it(key, value):
    metadata = _terms().to_metadata()
    if value is None:
        del metadata[key]
    else:
        metadata[key] = value
    with pytest.raises(TermsError, match=f"'{key}' is missing") as refused:
        _read(metadata)
    assert refused.value.key == key and refused.value.missing


def test_a_subscription_without_its_amount_is_refused():
    with pytest.raises(TermsError, match="'amount' is missing"):
        _read(_terms().to_metadata(), with_amount=True)
    assert _read(_terms().to_metadata()).amount == 2999  # a PaymentIntent's has none: computed


@pytest.mark.parametrize(("key", "value"), [
    ("exchangeRate", "abc"), ("exchangeRate", "NaN"), ("exchangeRate", "Infinity"),
    ("exchangeRate", "0.5000"),  # USD is at rate 1
    ("currency", "gbp"), ("currency", "USD"),
    ("commissionRate", "100.01"), ("commissionRate", "-1"), ("commissionRate", "twenty"),
    ("originalPriceUsdCents", "-5"), ("originalPriceUsdCents", "29.99"), ("originalPriceUsdCents", "٣"),
    ("amount", "100"),  # not what the price at the rate gives
    ("amount", "29.99"),
])
def test_an_altered_key_is_refused_naming_it(key, value):
    metadata = {**_terms().to_metadata(with_amount=True), key: value}
    with pytest.raises(TermsError, match=f"'{key}' is malformed") as refused:
        _read(metadata, with_amount=True)
    assert refused.value.key == key and not refused.value.missing


def test_an_eur_rate_must_be_positive():
    metadata = {**_terms(currency="eur", rate="0.92").to_metadata(), "exchangeRate": "0"}
    with pytest.raises(TermsError, match="'exchangeRate' is malformed"):
        _read(metadata)


# --- the arithmetic -------------------------------------------------------------------------------------------


def test_eur_amount_fee_and_vendor_share_round_half_up_to_the_cent():
    terms = _terms(currency="eur", rate="0.92")  # 2999 * 0.92 = 2759.08; 20% of 2759 = 551.8
    assert (terms.amount, terms.fee, terms.vendor_share) == (2759, 552, 2207)


@pytest.mark.parametrize(("price", "rate", "fee_rate", "amount", "fee"), [
    (125, "0.9", "20", 113, 23),  # 112.5 -> 113 (half-up, not to even); 22.6 -> 23
    (2999, "1", "20", 2999, 600),  # 599.8 -> 600
    (1004, "1", "12.5", 1004, 126),  # 125.5 -> 126
    (2525, "1", "10", 2525, 253),  # 252.5 -> 253
    (1000, "1", "0", 1000, 0),
    (1000, "1", "100", 1000, 1000),
])
def test_rounding(price, rate, fee_rate, amount, fee):
    terms = _terms(price=price, rate=rate, fee_rate=fee_rate, currency="usd" if rate == "1" else "eur")
    assert (terms.amount, terms.fee, terms.vendor_share) == (amount, fee, amount - fee)


def test_an_invoice_is_recorded_at_its_subscriptions_terms_and_the_amount_paid():
    row = Subscription(user_id="buyer1", agent_id="agent1", vendor_id="vendor1", agent_name="Bot", price_cents=2759,
                       currency="eur", original_price_usd_cents=2999, exchange_rate=Decimal("0.9200"),
                       commission_rate=Decimal("15.00"), commission_split_enabled=False)
    terms = CheckoutTerms.of_subscription(row, amount=2759, split_reason=None)
    assert (terms.currency, terms.rate, terms.fee_rate, terms.fee, terms.vendor_share) == (
        "eur", Decimal("0.9200"), Decimal("15.00"), 414, 2345)
    assert terms.route == Route(split=False, reason=DIRECT_REASON)
    assert CheckoutTerms.of_subscription(row, amount=2759, split_reason=NO_ACCOUNT).route.reason == NO_ACCOUNT


# --- priced from the database ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("vendor", "route"), [
    (None, Route(split=False, reason=NO_VENDOR)),
    (User(username="v", email="v@example.com", deleted_at=factories.ago(days=1), stripe_account_id="acct_1",
          stripe_charges_enabled=True), Route(split=False, reason=NO_VENDOR)),
    (User(username="v", email="v@example.com"), Route(split=False, reason=NO_ACCOUNT)),
    (User(username="v", email="v@example.com", stripe_account_id="acct_1", stripe_charges_enabled=False),
     Route(split=False, reason=CHARGES_DISABLED)),
    (User(username="v", email="v@example.com", stripe_account_id="acct_1", stripe_charges_enabled=True),
     Route(split=True, destination="acct_1")),
])
def test_the_route_follows_the_vendors_connected_account(vendor, route):
    assert Route.for_vendor(vendor) == route


def test_price_reads_the_checkout_currency_and_rate_stored_now():
    vendor = factories.make_vendor()
    agent, buyer = factories.make_agent(vendor, price_cents=2999), factories.make_user()
    usd = checkout_terms.price(buyer=buyer, agent=agent, vendor=vendor, fee_rate=Decimal("20"))
    assert (usd.currency, usd.rate, usd.amount, usd.fee, usd.vendor_share) == ("usd", 1, 2999, 600, 2399)
    assert (usd.agent_id, usd.buyer_id, usd.vendor_id, usd.route) == (
        agent.id, buyer.id, vendor.id, Route(split=False, reason=NO_ACCOUNT))
    set_platform(currency="eur", rate="0.9200")
    eur = checkout_terms.price(buyer=buyer, agent=agent, vendor=vendor, fee_rate=Decimal("20"))
    assert (eur.currency, eur.rate, eur.amount, eur.fee, eur.vendor_share) == ("eur", Decimal("0.92"), 2759, 552, 2207)
    assert checkout_terms.quote(price_usd_cents=2999) == ("eur", Decimal("0.92"), 2759)
    assert eur.discount_cents is None and eur.trial_days is None


# --- a promotion code on the terms ----------------------------------------------------------------------------


def _coded(*, route: Route = SPLIT, price: int = 2999, currency: str = "usd", rate: str = "1",
           discount: int = 750) -> CheckoutTerms:
    return CheckoutTerms.build(agent_id="agent1", buyer_id="buyer1", vendor_id="vendor1", route=route,
                               price_usd_cents=price, currency=currency, rate=Decimal(rate), fee_rate=Decimal("20"),
                               discount_usd_cents=discount, promotion_code="SAVE25", promotion_code_id="code1")


@pytest.mark.parametrize(("currency", "rate", "amount", "fee", "share", "off"), [
    ("usd", "1", 2249, 450, 1799, 750),  # $29.99 - $7.50
    ("eur", "0.92", 2069, 414, 1655, 690),  # $22.49 at 0.92 = €20.69 (€27.59 without the code)
])
@pytest.mark.parametrize("route", [SPLIT, DIRECT])
def test_fee_and_share_are_computed_on_the_discounted_price(currency, rate, amount, fee, share, off, route):
    terms = _coded(route=route, currency=currency, rate=rate)
    assert (terms.amount, terms.fee, terms.vendor_share, terms.discount_amount) == (amount, fee, share, off)
    assert terms.fee + terms.vendor_share == terms.amount


@pytest.mark.parametrize("route", [SPLIT, DIRECT])
@pytest.mark.parametrize("with_amount", [False, True])
def test_a_code_survives_the_round_trip_through_metadata(route, with_amount):
    terms = _coded(route=route, currency="eur", rate="0.92")
    metadata = terms.to_metadata(with_amount=with_amount)
    assert (metadata["promotionCodeId"], metadata["promotionCode"], metadata["discountUsdCents"]) == (
        "code1", "SAVE25", "750")
    assert _read(metadata, destination=route.destination, with_amount=with_amount) == terms


def test_a_discount_never_exceeds_the_price_and_is_free_at_100_percent():
    terms = _coded(discount=5000)
    assert (terms.amount, terms.fee, terms.vendor_share, terms.discount_cents) == (0, 0, 0, 2999)


@pytest.mark.parametrize(("key", "value"), [("discountUsdCents", "3000"), ("discountUsdCents", "-1"),
                                            ("promotionCode", ""), ("promotionCodeId", "")])
def test_a_partial_or_altered_code_is_refused_naming_it(key, value):
    metadata = _coded().to_metadata()
    metadata[key] = value
    with pytest.raises(TermsError) as refused:
        _read(metadata)
    assert refused.value.key == key
