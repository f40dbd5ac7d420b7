"""Seller webhooks over HTTP: `/api/vendor/webhooks` and `/api/vendor/webhook-deliveries/{id}/resend`, camelCase,
the secret answered once, clear 400s, another vendor's rows as 404, and races decided by one write."""

from __future__ import annotations

import time
from functools import partial

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import WebhookDelivery, WebhookEndpoint
from marketplace.services.webhooks import addresses, sender, signing
from tests import factories
from tests.live_api import LiveApi, fire
from tests.webhook_receiver import WebhookReceiver

URL = "https://hooks.example.com/agentmarket"


def as_user(client, login, user):
    client.cookies.clear()
    return login(user) if user else client


def _create(client, url=URL, events=("sale.completed",)):
    return client.post("/api/vendor/webhooks", json={"url": url, "events": list(events)})


def test_a_vendor_adds_lists_rotates_and_deletes_an_endpoint(client, login):
    vendor = factories.make_vendor()
    api = as_user(client, login, vendor)
    made = _create(api, events=["refund.completed", "sale.completed"])
    assert made.status_code == 201, made.text
    body = made.json()
    assert set(body) == {"id", "url", "events", "createdAt", "secret"}
    assert body["secret"].startswith("whsec_") and body["events"] == ["sale.completed", "refund.completed"]
    listed = api.get("/api/vendor/webhooks").json()
    assert listed == [{k: v for k, v in body.items() if k != "secret"}]  # never shown again
    rotated = api.post(f"/api/vendor/webhooks/{body['id']}/rotate-secret")
    assert rotated.status_code == 200 and rotated.json()["secret"] not in (body["secret"], "")
    with db.session_scope() as session:
        assert session.get(WebhookEndpoint, body["id"]).secret == rotated.json()["secret"]
    assert api.delete(f"/api/vendor/webhooks/{body['id']}").status_code == 204
    assert api.get("/api/vendor/webhooks").json() == []
    assert api.delete(f"/api/vendor/webhooks/{body['id']}").status_code == 404


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"url": "http://hooks.example.com/x", "events": ["sale.completed"]}, 400, addresses.HTTPS_ONLY),
        ({"url": "https://10.0.0.1/x", "events": ["sale.completed"]}, 400, addresses.PRIVATE),
        ({"url": "nonsense", "events": ["sale.completed"]}, 400, addresses.URL_BAD),
        ({"url": URL, "events": []}, 400, "Choose at least one event"),
        ({"url": URL, "events": ["sale.refunded"]}, 400, "Unknown event: sale.refunded. Choose from: sale.completed"),
        ({"url": URL}, 422, None),
        ({"url": URL, "events": "sale.completed"}, 422, None),
    ],
)
def test_bad_input_is_a_clear_4xx_and_writes_nothing(client, login, body, status, message):
    api = as_user(client, login, factories.make_vendor())
    answer = api.post("/api/vendor/webhooks", json=body)
    assert answer.status_code == status, answer.text
    if message:
        assert answer.json()["message"].startswith(message)
    with db.session_scope() as session:
        assert session.exec(select(WebhookEndpoint)).all() == []


def test_http_to_this_machine_in_demo_mode(client, login, demo_mode):
    api = as_user(client, login, factories.make_vendor())
    assert _create(api, url="http://127.0.0.1:8123/hooks").status_code == 201


def test_another_vendor_gets_404_and_a_customer_403(client, login):
    vendor, other, customer = factories.make_vendor(), factories.make_vendor(), factories.make_user()
    api = as_user(client, login, vendor)
    endpoint_id = _create(api).json()["id"]
    delivery_id = api.post(f"/api/vendor/webhooks/{endpoint_id}/test").json()["id"]
    with db.session_scope() as session:
        session.execute(WebhookDelivery.__table__.update().values(status="failed", next_attempt_at=None))
    calls = [
        ("DELETE", f"/api/vendor/webhooks/{endpoint_id}"),
        ("POST", f"/api/vendor/webhooks/{endpoint_id}/rotate-secret"),
        ("GET", f"/api/vendor/webhooks/{endpoint_id}/deliveries"),
        ("POST", f"/api/vendor/webhooks/{endpoint_id}/test"),
        ("POST", f"/api/vendor/webhook-deliveries/{delivery_id}/resend"),
    ]
    api = as_user(client, login, other)
    assert api.get("/api/vendor/webhooks").json() == []
    for method, path in calls:
        answer = api.request(method, path)
        assert answer.status_code == 404 and "not found" in answer.json()["message"], (path, answer.text)
    api = as_user(client, login, customer)
    assert api.get("/api/vendor/webhooks").status_code == 403
    for method, path in calls:
        assert api.request(method, path).status_code == 403, path
    with db.session_scope() as session:
        assert session.get(WebhookEndpoint, endpoint_id).disabled_at is None
        assert len(session.exec(select(WebhookDelivery)).all()) == 1


def test_test_event_delivery_log_and_resend(client, login, demo_mode):
    receiver = WebhookReceiver()
    try:
        api = as_user(client, login, factories.make_vendor())
        made = _create(api, url=receiver.url).json()
        queued = api.post(f"/api/vendor/webhooks/{made['id']}/test")
        assert queued.status_code == 201 and queued.json()["type"] == "ping"
        assert api.post(f"/api/vendor/webhook-deliveries/{queued.json()['id']}/resend").status_code == 409
        sender.drain()
        (got,) = receiver.wait_for(1)
        assert signing.verify(
            secret=made["secret"], header=got.headers[signing.HEADER], body=got.body, now=int(time.time())
        )
        (row,) = api.get(f"/api/vendor/webhooks/{made['id']}/deliveries").json()
        assert {k: row[k] for k in ("status", "attempts", "lastResponseCode", "type")} == {
            "status": "succeeded",
            "attempts": 1,
            "lastResponseCode": 200,
            "type": "ping",
        }
        assert row["lastDurationMs"] >= 0 and row["eventId"].startswith("evt_") and "payload" not in row
        again = api.post(f"/api/vendor/webhook-deliveries/{row['id']}/resend")
        assert again.status_code == 200 and again.json()["status"] == "pending"
        sender.drain()
        assert len(receiver.wait_for(2)) == 2
        assert api.get(f"/api/vendor/webhooks/{made['id']}/deliveries", params={"limit": 1000}).status_code == 422
    finally:
        receiver.close()


def test_simultaneous_resends_queue_one_attempt(live_api: LiveApi):
    vendor = factories.make_vendor()
    endpoint = factories.make_webhook_endpoint(vendor)
    client = live_api.signed_in(vendor.username)
    delivery_id = client.post(f"/api/vendor/webhooks/{endpoint.id}/test").json()["id"]
    with db.session_scope() as session:
        session.execute(WebhookDelivery.__table__.update().values(status="failed", next_attempt_at=None))
    answers = fire([partial(client.post, f"/api/vendor/webhook-deliveries/{delivery_id}/resend")] * 6)
    assert sorted(a.status_code for a in answers) == [200] + [409] * 5, [a.text for a in answers]


def test_simultaneous_deletes_delete_once(live_api: LiveApi):
    vendor = factories.make_vendor()
    endpoint = factories.make_webhook_endpoint(vendor)
    client = live_api.signed_in(vendor.username)
    answers = fire([partial(client.delete, f"/api/vendor/webhooks/{endpoint.id}")] * 6)
    assert sorted(a.status_code for a in answers) == [204] + [404] * 5
