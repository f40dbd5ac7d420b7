"""Vendor routes x signed out / customer / vendor / other vendor / admin, and the JSON they answer."""

from __future__ import annotations

import csv
import io
from datetime import timedelta
from decimal import Decimal

import pytest

from marketplace.models import AgentStatus
from marketplace.models.base import utcnow
from tests.factories import make_admin, make_agent, make_category, make_order, make_user, make_vendor

VENDOR_GETS = ["/api/vendor/agents", "/api/vendor/analytics", "/api/vendor/sales", "/api/vendor/sales.csv",
               "/api/vendor/earnings?period=day", "/api/vendor/earnings?period=month",
               "/api/vendor/verification-status", "/api/vendor/payouts", "/api/vendor/stripe/account-status"]
ACCOUNT_LINK = "/api/vendor/stripe/create-account-link"


@pytest.fixture
def shop():
    vendor, other, buyer = make_vendor("seller"), make_vendor("rival"), make_user("buyer")
    category = make_category("Writing")
    live = make_agent(vendor, name="Live", category=category, price_cents=2999)
    make_agent(vendor, name="Refused", status=AgentStatus.REJECTED, rejection_reason="No demo",
               created_at=utcnow() + timedelta(seconds=1))
    make_order(live, buyer)                                                              # 2999: 2399 + 600
    make_order(live, buyer, currency="eur", exchange_rate="0.92", split=False, commission_rate="12.5",
               created_at=utcnow() + timedelta(seconds=1))                              # 2759 EUR
    make_order(make_agent(other, name="Rival agent"), buyer)
    return vendor, other


def _signed_in(client, login, user):
    client.cookies.clear()
    return login(user) if user else client


@pytest.mark.parametrize("path", [*VENDOR_GETS, ACCOUNT_LINK, "/api/vendor/{id}/stats"])
def test_signed_out_is_401_and_customer_is_403(client, login, shop, path):
    vendor, _ = shop
    customer = make_user()
    path = path.replace("{id}", vendor.id)
    send = (lambda: client.post(path)) if path == ACCOUNT_LINK else (lambda: client.get(path))
    assert send().status_code == 401
    login(customer)
    response = send()
    assert response.status_code == 403
    if "/stats" not in path:
        assert response.json() == {"message": "Vendor access required"}
    login(make_vendor(vendor_approved=False))
    assert send().status_code == 403


def test_own_agents(client, login, shop):
    vendor, other = shop
    body = login(vendor).get("/api/vendor/agents").json()
    assert [a["name"] for a in body] == ["Refused", "Live"]
    refused, live = body
    assert (refused["status"], refused["isApproved"], refused["rejectionReason"], refused["category"]) == (
        "rejected", False, "No demo", None)
    assert set(live) == {"id", "name", "shortDescription", "price", "pricingModel", "status", "isApproved",
                         "rejectionReason", "categoryId", "category", "imageUrl", "avgRating", "reviewCount",
                         "salesCount", "createdAt", "updatedAt", "hasPendingRevision", "pendingRevision", "fileCount",
                         "trialDays", "versionLabel"}
    assert (live["hasPendingRevision"], live["pendingRevision"], live["fileCount"]) == (False, None, 0)
    assert (live["versionLabel"], refused["versionLabel"]) == ("1.0.0", "1.0.0")  # live before labels were kept
    assert (live["price"], live["isApproved"], live["category"]["name"]) == ("29.99", True, "Writing")
    assert [a["name"] for a in _signed_in(client, login, other).get("/api/vendor/agents").json()] == ["Rival agent"]


def test_analytics(client, login, shop):
    vendor, other = shop
    body = login(vendor).get("/api/vendor/analytics").json()
    # vendor: 2399 USD + EUR (2759 - 345 = 2414) / 0.92 = 2623.91 -> 2624; revenue 2999 + 2999
    assert body == {"totalVendorEarnings": "50.23", "totalRevenue": "59.98", "thisMonthEarnings": "50.23",
                    "thisMonthRevenue": "59.98", "totalSales": 2, "approvedAgents": 1, "totalAgents": 2,
                    "avgRating": "0.00", "commissionRate": "20.00", "currency": "usd", "activeSubscribers": 0,
                    "monthlyRecurringRevenue": "0.00", "cancellationsLast30Days": 0, "refundsLast30Days": 0,
                    "refundedLast30Days": "0.00", "trialingSubscribers": 0, "trialsEndedLast30Days": 0,
                    "trialsConvertedLast30Days": 0, "trialConversionPercent": None}
    rival = _signed_in(client, login, other).get("/api/vendor/analytics").json()
    assert (rival["totalSales"], rival["totalRevenue"]) == (1, "29.99")
    admin = _signed_in(client, login, make_admin()).get("/api/vendor/analytics").json()
    assert admin["totalSales"] == 0  # an admin acting as vendor sees its own (none)


def test_sales_page_header_and_breakdown(client, login, shop):
    vendor, other = shop
    login(vendor)
    response = client.get("/api/vendor/sales?limit=1")
    assert response.status_code == 200
    assert response.headers["X-Total-Count"] == "2"
    assert "X-Total-Count" in response.headers["Access-Control-Expose-Headers"]
    [eur] = response.json()
    assert eur["commissionBreakdown"] == {"commissionRate": "12.50", "split": False, "splitLabel": "87.5/12.5",
                                         "splitBlockReason": "Vendor has not connected a Stripe account",
                                         "currency": "eur", "exchangeRate": "0.9200"}
    assert (eur["totalAmount"], eur["price"], eur["vendorEarnings"], eur["platformFee"], eur["currency"]) == (
        "27.59", "29.99", "24.14", "3.45", "eur")
    assert {"orderId", "agentName", "customerEmail", "createdAt", "paymentIntentId"} <= set(eur)
    assert eur["customerEmail"] == "buyer@example.com" and eur["agentName"] == "Live"
    second = client.get("/api/vendor/sales?limit=1&offset=1").json()
    assert second[0]["commissionBreakdown"]["splitLabel"] == "80/20" and second[0]["vendorEarnings"] == "23.99"
    rival = _signed_in(client, login, other).get("/api/vendor/sales")
    assert rival.headers["X-Total-Count"] == "1" and [s["agentName"] for s in rival.json()] == ["Rival agent"]


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "offset=-1", "limit=abc", "offset=1e3",
                                   "limit=99999999999999999999999"])
def test_sales_bad_paging_is_422(client, login, query):
    login(make_vendor())
    response = client.get(f"/api/vendor/sales?{query}")
    assert response.status_code == 422 and response.json()["message"]


def test_sales_csv(client, login, shop):
    vendor, other = shop
    response = login(vendor).get("/api/vendor/sales.csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    assert 'filename="sales.csv"' in response.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(response.text)))
    assert rows[0][0] == "order_id" and len(rows) == 3
    assert {r[2] for r in rows[1:]} == {"Live"}
    rival = list(csv.reader(io.StringIO(_signed_in(client, login, other).get("/api/vendor/sales.csv").text)))
    assert [r[2] for r in rival[1:]] == ["Rival agent"]


def test_earnings_series(client, login, shop):
    vendor, other = shop
    login(vendor)
    days = client.get("/api/vendor/earnings?period=day").json()
    assert len(days) == 30 and set(days[-1]) == {"date", "label", "vendorEarnings", "platformFee", "sales"}
    assert (days[-1]["vendorEarnings"], days[-1]["platformFee"], days[-1]["sales"]) == ("50.23", "9.75", 2)
    assert days[0]["vendorEarnings"] == "0.00" and days[0]["sales"] == 0
    months = client.get("/api/vendor/earnings?period=month").json()
    assert len(months) == 12 and months[-1]["sales"] == 2
    assert client.get("/api/vendor/earnings?period=year").status_code == 422
    rival = _signed_in(client, login, other).get("/api/vendor/earnings?period=day").json()
    assert rival[-1]["sales"] == 1


def test_stats_for_self_or_admin(client, login, shop):
    vendor, other = shop
    path = f"/api/vendor/{vendor.id}/stats"
    body = login(vendor).get(path).json()
    assert body == {"totalSubmissions": 2, "approvedSubmissions": 1, "rejectedSubmissions": 1,
                    "averageApprovalTime": 0.0, "qualityScore": 0.63, "isVerified": False,
                    "lastSubmissionAt": body["lastSubmissionAt"]}
    assert body["lastSubmissionAt"]
    assert _signed_in(client, login, other).get(path).status_code == 403
    login(make_admin())
    assert client.get(path).json()["totalSubmissions"] == 2
    assert client.get("/api/vendor/nobody/stats").status_code == 404
    # the static routes are not taken for a vendor id
    assert client.get("/api/vendor/analytics").status_code == 200


def test_verification_status_map(client, login, shop):
    vendor, other = shop
    body = login(other).get("/api/vendor/verification-status").json()
    assert body == {vendor.id: {"isVerified": False}, other.id: {"isVerified": False}}
    assert _signed_in(client, login, make_admin()).get("/api/vendor/verification-status").json() == body


def test_apply_and_application_routes(client, login):
    user = make_user()
    assert client.get("/api/vendor/application").status_code == 401
    login(user)
    assert client.get("/api/vendor/application").json() is None
    created = client.post("/api/vendor/apply", json={"businessName": "Acme", "website": "https://acme.test"})
    assert created.status_code == 201
    assert created.json()["userId"] == user.id and created.json()["website"] == "https://acme.test"
    assert client.get("/api/vendor/application").json()["id"] == created.json()["id"]
    login(make_vendor())
    refused = client.post("/api/vendor/apply", json={"businessName": "Acme"})
    assert refused.status_code == 400
    login(make_admin())
    assert client.post("/api/vendor/apply", json={"businessName": "Acme"}).status_code == 400


def test_stats_figures_use_snapshot_rates_not_todays(client, login, shop):
    """Changing today's commission changes the label rate, not the recorded earnings."""
    from tests.payments_fixtures import set_platform

    vendor, _ = shop
    set_platform(commission="15%")
    body = login(vendor).get("/api/vendor/analytics").json()
    assert (body["commissionRate"], body["totalVendorEarnings"]) == ("15.00", "50.23")
    assert Decimal(body["totalRevenue"]) == Decimal("59.98")
