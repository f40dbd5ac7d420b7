"""Admin application routes: admin only, list with applicant + X-Total-Count, approve and reject per user id."""

from __future__ import annotations

from datetime import timedelta

import pytest

from marketplace.models.base import utcnow
from marketplace.services.admin import applications
from tests.factories import make_admin, make_application, make_user, make_vendor

LIST = "/api/admin/vendor-applications"


@pytest.fixture
def hopeful():
    user = make_user("hopeful", email="hope@acme.test", first_name="Hope", last_name="Ful")
    make_application(user, business_name="Acme Agents", website="https://acme.test")
    return user


@pytest.mark.parametrize(("method", "path"), [("get", LIST), ("post", "/api/admin/vendor/{id}/approve"),
                                              ("post", "/api/admin/vendor/{id}/reject")])
def test_admin_only(client, login, hopeful, method, path):
    path = path.replace("{id}", hopeful.id)
    assert getattr(client, method)(path).status_code == 401
    for user in (make_user(), make_vendor(), hopeful):
        login(user)
        response = getattr(client, method)(path)
        assert response.status_code == 403 and response.json() == {"message": "Admin access required"}
    login(make_admin())
    assert getattr(client, method)(path).status_code == 200


def test_list_with_user_total_search_and_status(client, login, hopeful):
    other = make_user("other")
    make_application(other, business_name="Other Co", created_at=utcnow() - timedelta(days=1))
    make_application(make_user("late"), business_name="Late", status="rejected")
    login(make_admin())
    response = client.get(LIST)
    assert response.headers["X-Total-Count"] == "2"
    first, second = response.json()
    assert (first["businessName"], second["businessName"]) == ("Acme Agents", "Other Co")
    assert first["user"] == {"email": "hope@acme.test", "firstName": "Hope", "lastName": "Ful",
                             "username": "hopeful"}
    assert {"id", "userId", "businessName", "businessDescription", "website", "status", "createdAt"} <= set(first)
    assert first["userId"] == hopeful.id and first["website"] == "https://acme.test"
    searched = client.get(f"{LIST}?search=ACME.test")
    assert [a["userId"] for a in searched.json()] == [hopeful.id] and searched.headers["X-Total-Count"] == "1"
    assert client.get(f"{LIST}?status=all").headers["X-Total-Count"] == "3"
    assert [a["businessName"] for a in client.get(f"{LIST}?status=rejected").json()] == ["Late"]
    paged = client.get(f"{LIST}?limit=1&offset=1")
    assert paged.headers["X-Total-Count"] == "2" and [a["businessName"] for a in paged.json()] == ["Other Co"]


@pytest.mark.parametrize("query", ["limit=0", "limit=101", "offset=-1", "status=maybe", "limit=ten"])
def test_list_bad_parameters_are_422(client, login, query):
    login(make_admin())
    assert client.get(f"{LIST}?{query}").status_code == 422


def test_approve_then_the_user_is_a_vendor_with_a_notification(client, login, hopeful):
    login(make_admin())
    response = client.post(f"/api/admin/vendor/{hopeful.id}/approve")
    assert response.status_code == 200 and response.json()["status"] == "approved"
    again = client.post(f"/api/admin/vendor/{hopeful.id}/approve")
    assert again.status_code == 409 and again.json() == {"message": applications.ALREADY_DECIDED}  # decided once
    login(hopeful)
    assert client.get("/api/user").json()["role"] == "vendor"
    assert [n["type"] for n in client.get("/api/notifications").json()] == ["approval"]
    assert client.get("/api/vendor/analytics").status_code == 200  # now an approved vendor


def test_reject_then_the_user_may_apply_again(client, login, hopeful):
    login(make_admin())
    assert client.post(f"/api/admin/vendor/{hopeful.id}/reject").json()["status"] == "rejected"
    assert client.post(f"/api/admin/vendor/{hopeful.id}/reject").status_code == 409
    assert client.post("/api/admin/vendor/unknown/approve").status_code == 404
    assert client.post(f"/api/admin/vendor/{make_user().id}/approve").json() == {"message": "No pending application"}
    login(hopeful)
    assert [n["type"] for n in client.get("/api/notifications").json()] == ["rejection"]
    assert client.get("/api/vendor/analytics").status_code == 403
    assert client.post("/api/vendor/apply", json={"businessName": "Acme again"}).status_code == 201
