"""/api/admin/settings: only admins read or change platform settings; values are validated and normalised."""

from __future__ import annotations

import pytest

from marketplace.models import Role
from marketplace.services import platform


@pytest.fixture
def admin(make_user):
    return make_user("boss", role=Role.ADMIN)


def test_signed_out_gets_401_and_nothing_changes(client):
    assert client.get("/api/admin/settings").status_code == 401
    response = client.put("/api/admin/settings/checkoutCurrency", json={"value": "eur"})
    assert response.status_code == 401 and response.json() == {"message": "Unauthorized"}
    assert platform.get_setting(platform.CHECKOUT_CURRENCY) == "usd"


@pytest.mark.parametrize("role", [Role.USER, Role.VENDOR])
def test_customers_and_vendors_get_403(client, login, make_user, role):
    login(make_user(role=role, vendor_approved=role == Role.VENDOR))
    assert client.get("/api/admin/settings").status_code == 403
    for key, value in (("checkoutCurrency", "eur"), ("usdToEurRate", "0.5000"), ("commissionRate", "50%")):
        response = client.put(f"/api/admin/settings/{key}", json={"value": value})
        assert response.status_code == 403 and response.json() == {"message": "Admin access required"}
    assert platform.get_setting(platform.CHECKOUT_CURRENCY) == "usd"
    assert platform.get_setting(platform.USD_TO_EUR_RATE) == "0.9200"
    assert platform.get_setting(platform.COMMISSION_RATE) == "20%"


def test_admin_lists_defaults_then_changes_each_setting(client, login, admin):
    login(admin)
    listed = client.get("/api/admin/settings").json()
    assert [(s["key"], s["value"]) for s in listed] == [
        ("commissionRate", "20%"), ("checkoutCurrency", "usd"), ("usdToEurRate", "0.9200"),
        ("allowGuestCheckout", "false")]
    assert all(s["description"] and s["updatedAt"] for s in listed)

    response = client.put("/api/admin/settings/checkoutCurrency", json={"value": " EUR "})
    assert response.status_code == 200, response.text
    assert response.json()["key"] == "checkoutCurrency" and response.json()["value"] == "eur"
    response = client.put("/api/admin/settings/usdToEurRate", json={"value": "0.93"})
    assert response.json()["value"] == "0.9300"
    response = client.put("/api/admin/settings/commissionRate",
                          json={"value": "25%", "description": "Platform commission rate on each sale"})
    assert (response.json()["value"], response.json()["description"]) == (
        "25%", "Platform commission rate on each sale")
    assert platform.get_setting(platform.CHECKOUT_CURRENCY) == "eur"
    assert platform.get_setting(platform.USD_TO_EUR_RATE) == "0.9300"
    assert str(platform.commission_rate()) == "25.00"


RATE = "Exchange rate must be a number from 0.0001 to 1000 with at most 4 decimals"
COMMISSION = "Please enter a valid number for commission rate"
ARABIC_INDIC_15 = "\u0661\u0665"
FULL_WIDTH_15 = "\uff11\uff15"


@pytest.mark.parametrize(("key", "value", "message"), [
    ("checkoutCurrency", "gbp", "Checkout currency must be usd or eur"),
    ("checkoutCurrency", "", "Checkout currency must be usd or eur"),
    *[("usdToEurRate", value, RATE) for value in (
        "0", "-0.92", "0.92001", "0.00001", "1000.0001", "1001", "1e30", "1e-4", "1E2", "1_000", "+0.92", "NaN",
        "Infinity", "abc", "", ".", "0.9.2", ARABIC_INDIC_15, FULL_WIDTH_15, "9" * 40)],
    *[("commissionRate", value, COMMISSION) for value in (
        "abc", "101%", "100.01", "-5", "+15", "15.555", "1e1", "1e-4", "1_0", "NaN", "%", "", "15%%",
        ARABIC_INDIC_15, f"{ARABIC_INDIC_15}%", FULL_WIDTH_15)],
])
def test_invalid_values_get_400_and_keep_the_old_value(client, login, admin, key, value, message):
    login(admin)
    before = platform.get_setting(key)
    response = client.put(f"/api/admin/settings/{key}", json={"value": value})
    assert response.status_code == 400
    assert response.json() == {"message": message, "field": "value"}
    assert platform.get_setting(key) == before


@pytest.mark.parametrize(("key", "value", "stored"), [
    ("usdToEurRate", "0.0001", "0.0001"), ("usdToEurRate", "1000", "1000.0000"), ("usdToEurRate", " 1.5 ", "1.5000"),
    ("usdToEurRate", ".5", "0.5000"), ("commissionRate", "0", "0%"), ("commissionRate", "100%", "100%"),
    ("commissionRate", " 12.50 % ", "12.5%"), ("commissionRate", "015", "15%"),
])
def test_the_edges_of_each_range_are_taken(client, login, admin, key, value, stored):
    login(admin)
    response = client.put(f"/api/admin/settings/{key}", json={"value": value})
    assert (response.status_code, response.json()["value"]) == (200, stored), response.text
    assert platform.get_setting(key) == stored


def test_unknown_key_is_404_and_missing_value_is_422(client, login, admin):
    login(admin)
    response = client.put("/api/admin/settings/guestCheckout", json={"value": "true"})
    assert response.status_code == 404 and response.json() == {"message": "Unknown setting"}
    assert client.put("/api/admin/settings/checkoutCurrency", json={}).status_code == 422


def test_euro_setting_prices_the_next_checkout_in_euros(client, login, admin, make_user, make_agent,
                                                        stripe_standin):
    agent = make_agent(price_cents=2999)
    login(admin)
    assert client.put("/api/admin/settings/checkoutCurrency", json={"value": "eur"}).status_code == 200
    client.post("/api/logout")
    login(make_user("buyer"))
    intent = client.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    assert (intent["currency"], intent["displayAmount"], intent["exchangeRate"]) == ("eur", "27.59", "0.9200")
