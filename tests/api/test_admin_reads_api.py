"""Admin read routes and report moves: 401 signed out, 403 for customers and vendors, camelCase fields,
X-Total-Count on the paged lists, CSV exports with the JSON's values."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from marketplace.models import AgentStatus, OrderStatus
from marketplace.models.base import utcnow
from tests.factories import (
    make_admin,
    make_agent,
    make_category,
    make_order,
    make_report,
    make_user,
    make_vendor,
    make_views,
)

READS = ["/api/admin/customers", "/api/admin/vendors", "/api/admin/agents", "/api/admin/sales",
         "/api/admin/commissions", "/api/admin/commissions.csv", "/api/admin/sales.csv", "/api/admin/analytics",
         "/api/admin/analytics/most-bought", "/api/admin/analytics/most-saved", "/api/admin/analytics/most-viewed",
         "/api/admin/analytics/top-category", "/api/admin/stats/daily", "/api/admin/stats/weekly"]


@pytest.mark.parametrize("path", READS)
def test_reads_are_admin_only(client, login, path):
    assert client.get(path).status_code == 401
    for user in (make_user(), make_vendor()):
        login(user)
        response = client.get(path)
        assert response.status_code == 403 and response.json() == {"message": "Admin access required"}
    login(make_admin())
    assert client.get(path).status_code == 200


def test_report_move_is_admin_only(client, login):
    report = make_report(make_agent(make_vendor()))
    path = f"/api/admin/reports/{report.id}"
    assert client.put(path, json={"status": "reviewed"}).status_code == 401
    for user in (make_user(), make_vendor()):
        login(user)
        assert client.put(path, json={"status": "reviewed"}).status_code == 403
    login(make_admin())
    response = client.put(path, json={"status": "reviewed"})
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("id", "status", "reportType", "agentId")} == {
        "id": report.id, "status": "reviewed", "reportType": "broken", "agentId": report.agent_id}
    assert {"reason", "description", "createdAt", "agentName"} <= set(body)
    again = client.put(path, json={"status": "reviewed"})  # already moved: a conflict with its status
    assert again.status_code == 409 and again.json() == {"message": "A reviewed report cannot be marked reviewed"}
    assert client.put(path, json={"status": "pending"}).status_code == 422
    assert client.put(path, json={}).status_code == 422
    assert client.put("/api/admin/reports/nope", json={"status": "resolved"}).status_code == 404
    assert client.put(path, json={"status": "resolved"}).json()["status"] == "resolved"
    log = client.get("/api/admin/analytics").json()["customerReports"]
    assert (log["resolved"], log["pending"], log["recentReports"]) == (1, 0, [])


def test_people_lists(client, login):
    make_user("buyer", first_name="Bea", last_name="Buyer", profile_image_url="https://img.test/b.png")
    vendor = make_vendor("maker", created_at=utcnow() - timedelta(days=1))
    make_vendor("hopeful", vendor_approved=False)
    make_agent(vendor)
    login(make_admin())
    customers = client.get("/api/admin/customers")
    assert customers.headers["X-Total-Count"] == "1"
    [row] = customers.json()
    assert {k: row[k] for k in ("username", "firstName", "lastName", "role", "isVendorApproved", "agentCount",
                                "profileImageUrl")} == {
        "username": "buyer", "firstName": "Bea", "lastName": "Buyer", "role": "user", "isVendorApproved": False,
        "agentCount": 0, "profileImageUrl": "https://img.test/b.png"}
    assert {"id", "email", "createdAt"} <= set(row)
    vendors = client.get("/api/admin/vendors")
    assert vendors.headers["X-Total-Count"] == "2"
    assert [(v["username"], v["isVendorApproved"], v["agentCount"]) for v in vendors.json()] == [
        ("hopeful", False, 0), ("maker", True, 1)]
    paged = client.get("/api/admin/vendors?limit=1&offset=1&search=MAKER")
    assert paged.headers["X-Total-Count"] == "1" and paged.json() == []
    for query in ("limit=0", "limit=101", "offset=-1", "limit=ten"):
        assert client.get(f"/api/admin/customers?{query}").status_code == 422


def test_agents_list(client, login):
    vendor = make_vendor("maker")
    category = make_category("Writing")
    make_agent(vendor, "Live", category=category, tags=["x"], ratings=(4, 5), price_cents=1999,
               created_at=utcnow() - timedelta(days=1))
    make_agent(None, "Orphan", status=AgentStatus.PENDING)
    login(make_admin())
    response = client.get("/api/admin/agents")
    assert response.headers["X-Total-Count"] == "2"
    orphan, live = response.json()
    assert orphan["vendor"] is None and orphan["isApproved"] is False and orphan["status"] == "pending"
    assert {k: live[k] for k in ("name", "price", "status", "isApproved", "avgRating", "reviewCount", "tags")} == {
        "name": "Live", "price": "19.99", "status": "approved", "isApproved": True, "avgRating": "4.50",
        "reviewCount": 2, "tags": ["x"]}
    assert live["vendor"] == {"id": vendor.id, "username": "maker"}
    assert live["category"] == {"id": category.id, "name": "Writing"} and live["categoryId"] == category.id
    assert {"shortDescription", "description", "demoUrl", "imageUrl", "createdAt", "vendorId"} <= set(live)
    assert [a["name"] for a in client.get("/api/admin/agents?status=pending").json()] == ["Orphan"]
    assert client.get("/api/admin/agents?status=nope").status_code == 422


def test_sales_commissions_and_csv(client, login):
    agent = make_agent(make_vendor(), "Bot", price_cents=2999)
    buyer = make_user(email="b@shop.test")
    make_order(agent, buyer, created_at=utcnow() - timedelta(minutes=5))
    make_order(agent, buyer, currency="eur", exchange_rate="0.9200", split=False)
    make_order(agent, buyer, status=OrderStatus.REFUNDED)
    login(make_admin())
    summary = client.get("/api/admin/sales").json()
    assert summary == {"totalRevenue": "59.98", "adminEarnings": "12.00", "vendorEarnings": "47.98",
                       "commissionRate": "20%", "totalSales": 2, "commissionSplitRate": 50.0, "splitPayments": 1,
                       "directPayments": 1, "totalVendorPayouts": "23.99", "activeSubscriptions": 0,
                       "monthlyRecurringRevenue": "0.00", "trialingSubscriptions": 0, "planRevenue": "0.00"}
    response = client.get("/api/admin/commissions")
    assert response.headers["X-Total-Count"] == "3"  # the refunded order is listed, marked, and not summed
    entries = response.json()
    assert [(e["kind"], e["status"]) for e in entries] == [("purchase", "refunded"), ("purchase", "completed"),
                                                          ("purchase", "completed")]
    entries = entries[1:]
    assert entries[0] == {**entries[0], "agentName": "Bot", "saleAmount": "29.99", "commissionSplitEnabled": False,
                          "commissionAmount": "6.00", "vendorAmount": "23.99", "customerEmail": "b@shop.test",
                          "currency": "eur", "chargedAmount": "27.59", "commissionRate": "20.00"}
    assert set(entries[0]) >= {"orderId", "createdAt"}
    exported = client.get("/api/admin/commissions.csv")
    assert exported.headers["content-type"].startswith("text/csv")
    assert 'filename="commissions.csv"' in exported.headers["content-disposition"]
    rows = [r for r in csv.DictReader(io.StringIO(exported.text)) if r["status"] == "completed"]
    assert len(rows) == 2
    for row, entry in zip(rows, entries, strict=True):
        for key in ("orderId", "agentName", "saleAmount", "commissionAmount", "vendorAmount", "customerEmail",
                    "currency", "chargedAmount", "commissionRate"):
            assert row[key] == entry[key], key
        assert row["commissionSplitEnabled"] == str(entry["commissionSplitEnabled"]).lower()
    sales_rows = list(csv.DictReader(io.StringIO(client.get("/api/admin/sales.csv").text)))
    assert [r["status"] for r in sales_rows] == ["refunded", "completed", "completed"]
    sales_rows = sales_rows[1:]
    assert [r["order_id"] for r in sales_rows] == [e["orderId"] for e in entries]
    assert [r["sale_amount_usd"] for r in sales_rows] == [e["saleAmount"] for e in entries]


def test_analytics_rankings_and_stats(client, login):
    vendor = make_vendor()
    category = make_category("Code", emoji="💻")
    agent = make_agent(vendor, "Star", category=category, sales_count=4, favorites_count=2, ratings=(5,))
    make_views(agent, 2)
    make_report(agent, description="Crashes")
    make_order(agent, make_user())
    login(make_admin())
    body = client.get("/api/admin/analytics").json()
    assert body["vendorApprovalHistory"] == {"pending": 0, "approved": 0, "rejected": 0, "totalApplications": 0}
    assert body["agentQualitySummary"] == {"totalAgents": 1, "pendingApproval": 0, "approved": 1,
                                           "averageRating": 5.0, "ratedAgents": 1}
    reports = body["customerReports"]
    assert (reports["pending"], reports["totalReports"]) == (1, 1)
    assert reports["recentReports"][0]["description"] == "Crashes"
    assert reports["recentReports"][0]["agentName"] == "Star"
    assert client.get("/api/admin/analytics/most-bought").json() == [
        {"agentId": agent.id, "agentName": "Star", "agentPrice": "29.99", "purchaseCount": 4,
         "pricingModel": "monthly"}]
    assert client.get("/api/admin/analytics/most-saved").json() == [
        {"agentId": agent.id, "agentName": "Star", "agentPrice": "29.99", "favoritesCount": 2,
         "pricingModel": "monthly"}]
    assert client.get("/api/admin/analytics/most-viewed").json() == [
        {"id": agent.id, "name": "Star", "price": "29.99", "reviewCount": 1, "viewCount": 2,
         "pricingModel": "monthly"}]
    assert client.get("/api/admin/analytics/top-category").json() == [
        {"categoryId": category.id, "categoryName": "Code", "categoryEmoji": "💻", "agentCount": 1}]
    assert client.get("/api/admin/analytics/most-bought?limit=0").status_code == 422
    daily = client.get("/api/admin/stats/daily?days=7").json()
    assert len(daily) == 7 and daily[-1] == {"date": utcnow().date().isoformat(), "revenue": "29.99", "sales": 1}
    weekly = client.get("/api/admin/stats/weekly?weeks=2").json()
    assert len(weekly) == 2 and set(weekly[-1]) == {"weekStart", "users", "agents"} and weekly[-1]["agents"] == 1
    assert client.get("/api/admin/stats/daily?days=0").status_code == 422


def test_an_admin_downloads_one_file_of_a_submission_as_it_was_attached(client, login):
    from tests.factories import store_agent_file

    vendor = make_vendor()
    pending = make_agent(vendor, status=AgentStatus.PENDING)
    stored = store_agent_file(pending, b"<script>alert(1)</script>\n", filename="r\u00e9sum\u00e9 notes.txt")
    path = f"/api/admin/agent-files/{stored.id}"
    assert client.get(path).status_code == 401
    for user in (make_user(), vendor):  # not even the vendor who attached it: its own files are in its zip
        login(user)
        assert client.get(path).status_code == 403
    login(make_admin())
    response = client.get(path)
    assert response.status_code == 200 and response.content == b"<script>alert(1)</script>\n"
    assert response.headers["content-type"] == "application/octet-stream"  # never rendered by the browser
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-disposition"] == (
        "attachment; filename=\"r_sum_ notes.txt\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20notes.txt")
    for bad in ("nope", "x" * 65, "0" * 32):
        answer = client.get(f"/api/admin/agent-files/{bad}")
        assert answer.status_code == 404 and answer.json() == {"message": "File not found."}, bad
    assert client.get("/api/admin/agent-files/..%2F..%2Fetc%2Fpasswd").status_code == 404  # no such route
    assert client.get("/api/admin/agent-files/%00").status_code == 422  # control characters: refused early
    gone = store_agent_file(make_agent(vendor, status=AgentStatus.PENDING, deleted_at=utcnow()))
    assert client.get(f"/api/admin/agent-files/{gone.id}").status_code == 404  # a deleted agent's
