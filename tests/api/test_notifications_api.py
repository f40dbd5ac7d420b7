"""Notification routes: the owner lists, marks read and deletes; anyone else gets 404 for its ids."""

from __future__ import annotations

from datetime import timedelta

import pytest

from marketplace.models.base import utcnow
from tests.factories import make_admin, make_notification, make_user, make_vendor


@pytest.mark.parametrize(("method", "path"), [("get", "/api/notifications"), ("post", "/api/notifications/x/read"),
                                              ("delete", "/api/notifications/x")])
def test_signed_out_is_401(client, method, path):
    assert getattr(client, method)(path).status_code == 401


@pytest.mark.parametrize("maker", [make_user, make_vendor, make_admin])
def test_owner_lists_marks_and_deletes(client, login, maker):
    owner = maker()
    old = make_notification(owner, type="approval", title="Approved", message="Welcome",
                            created_at=utcnow() - timedelta(days=1))
    new = make_notification(owner, type="sale", title="New sale", message="bob bought Agent")
    make_notification(make_user(), title="Someone else's")
    login(owner)
    body = client.get("/api/notifications").json()
    assert [n["id"] for n in body] == [new.id, old.id]
    assert body[1] == {"id": old.id, "type": "approval", "title": "Approved", "message": "Welcome",
                       "isRead": False, "createdAt": body[1]["createdAt"]}
    assert client.get("/api/notifications?limit=1").json()[0]["id"] == new.id
    read = client.post(f"/api/notifications/{new.id}/read")
    assert read.status_code == 200 and read.json()["isRead"] is True
    deleted = client.delete(f"/api/notifications/{old.id}")
    assert deleted.status_code == 204 and deleted.content == b""
    assert [(n["id"], n["isRead"]) for n in client.get("/api/notifications").json()] == [(new.id, True)]


def test_other_users_ids_are_404(client, login):
    owner, other_vendor = make_vendor(), make_vendor()
    note = make_notification(owner)
    login(other_vendor)
    assert client.get("/api/notifications").json() == []
    assert client.post(f"/api/notifications/{note.id}/read").status_code == 404
    response = client.delete(f"/api/notifications/{note.id}")
    assert response.status_code == 404 and response.json() == {"message": "Notification not found"}
    login(make_admin())  # not even an admin reads another user's notifications
    assert client.post(f"/api/notifications/{note.id}/read").status_code == 404
    login(owner)
    assert client.get("/api/notifications").json()[0]["isRead"] is False


@pytest.mark.parametrize("query", ["limit=0", "limit=201", "limit=x"])
def test_bad_limit_is_422(client, login, query):
    login(make_user())
    assert client.get(f"/api/notifications?{query}").status_code == 422
