"""Seller webhooks: signing, the URL and address rules, the outbox written in the causing transaction, the
sender's retries on a fake clock until it gives up and tells the vendor, crashes between commit and send, two
senders at once, and who may manage which endpoint."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import timedelta

import pytest
from sqlmodel import select

from marketplace.config import PROJECT_ROOT
from marketplace.db import session_scope
from marketplace.integrations import webhook_http
from marketplace.models import (
    AgentStatus,
    Notification,
    Order,
    Refund,
    RefundStatus,
    User,
    WebhookDelivery,
    WebhookEndpoint,
)
from marketplace.models.base import utcnow
from marketplace.services import licenses, money, webhooks
from marketplace.services.errors import Conflict, Forbidden, Invalid, NotFound, Unauthorized
from marketplace.services.refunds import settle
from marketplace.services.webhooks import addresses, endpoints, sender, signing
from marketplace.services.webhooks.events import LICENSE_ACTIVATED, LICENSE_DEACTIVATED, SALE_COMPLETED
from tests import factories
from tests.webhook_receiver import WebhookReceiver

PUBLIC = ipaddress.ip_address("93.184.216.34")


def _deliveries() -> list[WebhookDelivery]:
    with session_scope() as session:
        return list(session.exec(select(WebhookDelivery).order_by(WebhookDelivery.created_at)).all())


def _delivery(delivery_id: str) -> WebhookDelivery:
    with session_scope() as session:
        return session.exec(select(WebhookDelivery).where(WebhookDelivery.id == delivery_id)).one()


class Posts(list[dict[str, object]]):
    """Every POST the sender made; `answers` are given in turn (a status, or an error to raise), then 200."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: list[int | Exception] = []

    def __call__(self, **kwargs: object) -> int:
        self.append(kwargs)
        answer = self.answers.pop(0) if self.answers else 200
        if isinstance(answer, Exception):
            raise answer
        return answer


@pytest.fixture
def posts(monkeypatch: pytest.MonkeyPatch) -> Posts:
    """The sender's POSTs, recorded instead of sent; every name resolves to a public address."""
    recorded = Posts()
    monkeypatch.setattr(webhook_http, "post", recorded)
    monkeypatch.setattr(addresses, "resolve", lambda host, port: [PUBLIC])
    return recorded


def _sale(vendor: User) -> Order:
    """A sale of one of `vendor`'s agents, recorded with its webhook in one transaction (as completion does)."""
    agent = factories.make_agent(vendor)
    order = factories.make_order(agent, factories.make_user())
    with session_scope() as session:
        webhooks.enqueue(session, vendor_id=vendor.id, type=SALE_COMPLETED, obj=webhooks.order_object(order))
    return order


# ---- signing -------------------------------------------------------------------------------------------------


def test_signature_is_hmac_sha256_of_time_dot_body_with_the_secret():
    body = b'{"id":"evt_1"}'
    header = signing.signature(secret="whsec_abc", timestamp=1700000000, body=body)
    expected = hmac.new(b"whsec_abc", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert header == f"t=1700000000,v1={expected}"
    assert signing.verify(secret="whsec_abc", header=header, body=body, now=1700000100)
    assert not signing.verify(secret="whsec_abc", header=header, body=body + b" ", now=1700000100)
    assert not signing.verify(secret="whsec_other", header=header, body=body, now=1700000100)
    assert not signing.verify(secret="whsec_abc", header=header, body=body, now=1700000000 + 301)  # too old
    assert not signing.verify(secret="whsec_abc", header="t=x,v1=00", body=body, now=1700000000)
    assert signing.new_secret().startswith("whsec_") and signing.new_secret() != signing.new_secret()


# ---- the URL and address rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", addresses.URL_REQUIRED),
        ("not a url", addresses.URL_BAD),
        ("ftp://example.com/x", addresses.URL_BAD),
        ("https://", addresses.URL_BAD),
        ("https://example.com:99999/x", addresses.URL_BAD),
        ("http://example.com/hooks", addresses.HTTPS_ONLY),
        ("http://127.0.0.1:8000/hooks", addresses.HTTPS_ONLY),  # loopback over http: demo mode only
        ("https://user:pw@example.com/hooks", addresses.NO_CREDENTIALS),
        ("https://127.0.0.1/hooks", addresses.PRIVATE),
        ("https://localhost/hooks", addresses.PRIVATE),
        ("https://10.1.2.3/hooks", addresses.PRIVATE),
        ("https://192.168.0.10/hooks", addresses.PRIVATE),
        ("https://169.254.169.254/latest/meta-data", addresses.PRIVATE),
        ("https://[::1]/hooks", addresses.PRIVATE),
        ("https://[::ffff:127.0.0.1]/hooks", addresses.PRIVATE),
        ("https://example.com/" + "x" * 2100, addresses.URL_TOO_LONG),
    ],
)
def test_bad_urls_are_refused_with_what_is_wrong(url, message):
    with pytest.raises(Invalid) as refused:
        addresses.check_url(url)
    assert (refused.value.message, refused.value.field) == (message, "url")


def test_https_anywhere_public_and_http_loopback_in_demo_mode(demo_mode):
    assert addresses.check_url(" https://hooks.example.com/a?b=1 ") == "https://hooks.example.com/a?b=1"
    assert addresses.check_url("http://127.0.0.1:8123/hooks") == "http://127.0.0.1:8123/hooks"
    assert addresses.check_url("http://localhost:8123/hooks") == "http://localhost:8123/hooks"
    with pytest.raises(Invalid, match="https"):
        addresses.check_url("http://hooks.example.com/a")  # plain http leaves the machine: never


def test_https_to_a_public_name_is_taken_outside_demo_mode():
    assert addresses.check_url("https://hooks.example.com/a") == "https://hooks.example.com/a"


@pytest.mark.parametrize(
    "resolved",
    ["127.0.0.1", "10.0.0.5", "169.254.169.254", "::1", "fe80::1", "100.64.0.1", "::ffff:192.168.1.1", "0.0.0.0"],
)
def test_a_name_resolving_to_a_non_public_address_is_never_reached(monkeypatch, resolved):
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, url="https://sneaky.example.com/hooks")
    _sale(vendor)
    monkeypatch.setattr(addresses, "resolve", lambda host, port: [PUBLIC, ipaddress.ip_address(resolved)])
    monkeypatch.setattr(webhook_http, "post", lambda **_: pytest.fail("posted to a refused address"))
    assert sender.drain() == 0
    (row,) = _deliveries()
    assert row.status == "pending" and row.attempts == 1 and row.last_response_code is None
    assert "may not reach" in (row.last_error or "") and str(ipaddress.ip_address(resolved)) in (row.last_error or "")


def test_localhost_resolved_for_real_is_refused_outside_demo_mode(monkeypatch):
    """No stubbed resolver: the machine's own DNS says `localhost` is 127.0.0.1 (or ::1)."""
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, url="https://localhost:9/hooks")
    _sale(vendor)
    monkeypatch.setattr(webhook_http, "post", lambda **_: pytest.fail("posted to loopback"))
    sender.drain()
    (row,) = _deliveries()
    assert "may not reach" in (row.last_error or "")


def test_the_connection_goes_to_the_checked_address(monkeypatch):
    """The POST is handed the addresses that were checked, not the name to resolve again."""
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, url="https://hooks.example.com:8443/in?x=1")
    _sale(vendor)
    got: list[dict[str, object]] = []
    monkeypatch.setattr(addresses, "resolve", lambda host, port: [PUBLIC])
    monkeypatch.setattr(webhook_http, "post", lambda **kw: got.append(kw) or 204)
    assert sender.drain() == 1
    assert got[0]["addresses"] == [str(PUBLIC)] and got[0]["port"] == 8443 and got[0]["timeout"] == 10.0


# ---- the outbox: written with the change -----------------------------------------------------------------------


def test_a_delivery_is_written_in_the_transaction_of_the_change_and_only_if_it_commits():
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor)
    order = factories.make_order(factories.make_agent(vendor), factories.make_user())
    with pytest.raises(RuntimeError), session_scope() as session:
        webhooks.enqueue(session, vendor_id=vendor.id, type=SALE_COMPLETED, obj=webhooks.order_object(order))
        raise RuntimeError("the sale failed after all")
    assert _deliveries() == []
    _sale(vendor)
    (row,) = _deliveries()
    assert (row.status, row.attempts, row.type) == ("pending", 0, SALE_COMPLETED)


def test_the_payload_carries_the_event_and_the_vendors_own_object_only():
    vendor, other = factories.make_vendor(), factories.make_vendor()
    mine = factories.make_webhook_endpoint(vendor, events=("sale.completed", "refund.completed"))
    factories.make_webhook_endpoint(vendor, events=("refund.completed",))  # not listening to sales
    factories.make_webhook_endpoint(other)
    order = _sale(vendor)
    (row,) = _deliveries()
    assert row.endpoint_id == mine.id
    payload = json.loads(row.payload)
    assert set(payload) == {"id", "type", "created", "data"} and payload["id"].startswith("evt_")
    assert payload["type"] == SALE_COMPLETED and abs(payload["created"] - time.time()) < 60
    obj = payload["data"]["object"]
    assert (obj["object"], obj["id"], obj["amount"]) == (
        "order",
        order.id,
        money.format_cents(order.total_amount_cents),
    )
    text = row.payload.lower()
    for secret in ("card", "last4", "brand", "payment_intent", "pi_test", "@example.com", other.id):
        assert secret not in text


def test_no_endpoint_no_row_and_a_deleted_endpoint_gets_nothing():
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, disabled_at=utcnow())
    _sale(vendor)
    assert _deliveries() == []


def test_a_licence_activation_and_deactivation_are_announced():
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, events=(LICENSE_ACTIVATED, LICENSE_DEACTIVATED))
    purchase = factories.make_purchase(factories.make_user(), factories.make_agent(vendor))
    key = licenses.buyer_keys(actor=_user(purchase.user_id))[0].key
    answer = licenses.activate(license_key=key, instance_name="build server", address="203.0.113.9")
    assert answer.ok and answer.instance is not None
    licenses.deactivate(license_key=key, instance_id=answer.instance.id, address="203.0.113.9")
    rows = _deliveries()
    assert [r.type for r in rows] == [LICENSE_ACTIVATED, LICENSE_DEACTIVATED]
    objs = [json.loads(r.payload)["data"]["object"] for r in rows]
    assert [o["id"] for o in objs] == [answer.instance.id] * 2 and objs[0]["name"] == "build server"
    assert [o["activationUsage"] for o in objs] == [1, 0] and key not in rows[0].payload


def _user(user_id: str) -> User:
    with session_scope() as session:
        user = session.get(User, user_id)
        session.expunge(user)
        return user


def test_a_completed_refund_is_announced_once():
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, events=("refund.completed",))
    order = factories.make_order(factories.make_agent(vendor), factories.make_user())
    refund = factories.make_refund(order, status=RefundStatus.PENDING)
    settle.settle(refund.id, stripe_refund_id="re_1")
    settle.settle(refund.id, stripe_refund_id="re_1")  # a replay causes nothing more
    (row,) = _deliveries()
    obj = json.loads(row.payload)["data"]["object"]
    assert (row.type, obj["id"], obj["orderId"], obj["status"]) == (
        "refund.completed",
        refund.id,
        order.id,
        RefundStatus.SUCCEEDED,
    )
    with session_scope() as session:
        assert session.get(Refund, refund.id).status == RefundStatus.SUCCEEDED


# ---- the sender ----------------------------------------------------------------------------------------------


def test_a_delivery_is_signed_and_marked_succeeded(posts):
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, secret="whsec_mine")
    _sale(vendor)
    assert sender.drain() == 1
    (call,) = posts
    headers, body = call["headers"], call["body"]
    assert signing.verify(secret="whsec_mine", header=headers[signing.HEADER], body=body, now=int(time.time()))
    assert headers["Content-Type"] == "application/json" and headers["X-AgentMarket-Event"] == SALE_COMPLETED
    (row,) = _deliveries()
    assert body == row.payload.encode()
    assert (row.status, row.attempts, row.last_response_code, row.next_attempt_at) == ("succeeded", 1, 200, None)
    assert row.last_duration_ms is not None and row.last_duration_ms >= 0
    assert sender.drain() == 0  # never twice


def test_retries_back_off_for_24_hours_then_fail_and_tell_the_vendor(posts):
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor)
    _sale(vendor)
    (row,) = _deliveries()
    start = sender.aware(row.created_at)
    posts.answers.extend([500, webhook_http.WebhookHttpError("timed out")] + [503] * 200)
    now, gaps, attempts_at = start, [], []
    while True:
        sender.drain(now=now)
        row = _delivery(row.id)
        attempts_at.append(now)
        if row.next_attempt_at is None:
            break
        next_at = sender.aware(row.next_attempt_at)
        gaps.append(next_at - now)
        now = next_at
    assert row.status == "failed" and row.last_response_code == 503 and row.last_error == "HTTP 503"
    assert gaps[:3] == [timedelta(seconds=30), timedelta(seconds=60), timedelta(seconds=120)]
    assert max(gaps) == sender.MAX_RETRY_DELAY
    assert attempts_at[-1] - start <= timedelta(hours=24) < attempts_at[-1] - start + sender.MAX_RETRY_DELAY
    assert row.attempts == len(posts) == len(attempts_at)
    with session_scope() as session:
        (note,) = session.exec(select(Notification).where(Notification.user_id == vendor.id)).all()
    assert note.title == sender.FAILED_TITLE and "hooks.example.com" in note.message


def test_a_later_success_ends_the_retries(posts):
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor)
    _sale(vendor)
    posts.answers.extend([404, 302])
    now = utcnow()
    for _ in range(3):
        sender.drain(now=now)
        now += timedelta(hours=1)
    (row,) = _deliveries()
    assert (row.status, row.attempts, row.last_response_code) == ("succeeded", 3, 200)


def test_a_process_killed_right_after_the_sale_commits_loses_no_delivery(posts):
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor)
    order = factories.make_order(factories.make_agent(vendor), factories.make_user())
    script = (
        "import os, signal, sys\n"
        "from marketplace.db import session_scope\n"
        "from marketplace.models import Order\n"
        "from marketplace.services import webhooks\n"
        "with session_scope() as session:\n"
        "    order = session.get(Order, sys.argv[2])\n"
        "    webhooks.enqueue(session, vendor_id=sys.argv[1], type='sale.completed',\n"
        "                     obj=webhooks.order_object(order))\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", script, vendor.id, order.id],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "APP_ENV": "local"},
        timeout=120,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    (row,) = _deliveries()
    assert row.status == "pending"
    assert sender.drain() == 1 and len(posts) == 1


def test_a_sender_that_died_after_claiming_leaves_the_delivery_to_another_after_the_lease(posts):
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor)
    _sale(vendor)
    now = utcnow()
    (claimed,) = sender._claim_due(now)  # ... and the sender dies here, before sending
    assert sender.drain(now=now) == 0 and posts == []  # still leased
    assert sender.drain(now=now + sender.LEASE) == 1
    assert len(posts) == 1 and _delivery(claimed.id).attempts == 2


def test_two_senders_at_once_send_each_delivery_exactly_once(posts):
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor)
    for _ in range(25):
        _sale(vendor)
    start = threading.Barrier(2)
    results: list[int] = []

    def run() -> None:
        start.wait()
        results.append(sender.drain())

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    ids = Counter(call["headers"]["X-AgentMarket-Delivery"] for call in posts)
    assert len(ids) == 25 and set(ids.values()) == {1} and sum(results) == 25
    assert {r.status for r in _deliveries()} == {"succeeded"}


def test_a_real_post_to_a_local_receiver_in_demo_mode(demo_mode):
    receiver = WebhookReceiver()
    try:
        vendor = factories.make_vendor()
        made = webhooks.create_endpoint(actor=vendor, url=receiver.url, events=[SALE_COMPLETED])
        _sale(vendor)
        assert sender.drain() == 1
        (got,) = receiver.wait_for(1)
        assert got.path == "/hooks" and json.loads(got.body)["type"] == SALE_COMPLETED
        assert signing.verify(
            secret=made.secret, header=got.headers[signing.HEADER], body=got.body, now=int(time.time())
        )
        receiver.status = 500
        delivery = endpoints.send_test(actor=vendor, endpoint_id=made.endpoint.id)
        sender.drain()
        assert (_delivery(delivery.id).last_response_code, _delivery(delivery.id).status) == (500, "pending")
    finally:
        receiver.close()


def test_nothing_listens_on_the_port_is_a_failed_attempt(demo_mode):
    vendor = factories.make_vendor()
    receiver = WebhookReceiver()
    url = receiver.url
    receiver.close()
    factories.make_webhook_endpoint(vendor, url=url)
    _sale(vendor)
    assert sender.drain() == 0
    (row,) = _deliveries()
    assert row.status == "pending" and row.last_response_code is None and "connect" in (row.last_error or "")


# ---- managing endpoints: who may, and what is refused ------------------------------------------------------------


def test_a_vendor_manages_its_own_endpoints(posts):
    vendor = factories.make_vendor()
    made = webhooks.create_endpoint(
        actor=vendor, url="https://hooks.example.com/a", events=["refund.completed", "sale.completed", "sale.completed"]
    )
    assert made.secret.startswith("whsec_") and made.endpoint.events == ["sale.completed", "refund.completed"]
    assert [e.id for e in webhooks.list_endpoints(actor=vendor)] == [made.endpoint.id]
    rotated = webhooks.rotate_secret(actor=vendor, endpoint_id=made.endpoint.id)
    assert rotated.secret != made.secret
    test = webhooks.send_test(actor=vendor, endpoint_id=made.endpoint.id)
    assert test.type == "ping" and json.loads(test.payload)["data"]["object"]["object"] == "ping"
    sender.drain()
    assert signing.verify(
        secret=rotated.secret, header=posts[0]["headers"][signing.HEADER], body=posts[0]["body"], now=int(time.time())
    )
    assert [d.id for d in webhooks.list_deliveries(actor=vendor, endpoint_id=made.endpoint.id)] == [test.id]
    again = webhooks.resend(actor=vendor, delivery_id=test.id)
    assert again.status == "pending"
    with pytest.raises(Conflict, match="still being retried"):
        webhooks.resend(actor=vendor, delivery_id=test.id)
    sender.drain()
    assert len(posts) == 2 and _delivery(test.id).attempts == 2
    webhooks.delete_endpoint(actor=vendor, endpoint_id=made.endpoint.id)
    assert webhooks.list_endpoints(actor=vendor) == []
    with pytest.raises(NotFound):
        webhooks.delete_endpoint(actor=vendor, endpoint_id=made.endpoint.id)


def test_deleting_an_endpoint_stops_its_pending_deliveries(posts):
    vendor = factories.make_vendor()
    made = webhooks.create_endpoint(actor=vendor, url="https://hooks.example.com/a", events=[SALE_COMPLETED])
    _sale(vendor)
    webhooks.delete_endpoint(actor=vendor, endpoint_id=made.endpoint.id)
    assert sender.drain() == 0 and posts == []
    (row,) = _deliveries()
    assert (row.status, row.next_attempt_at, row.last_error) == ("failed", None, sender.ENDPOINT_GONE)


def test_no_vendor_sees_or_touches_another_vendors_endpoints_or_deliveries():
    vendor, other = factories.make_vendor(), factories.make_vendor()
    made = webhooks.create_endpoint(actor=vendor, url="https://hooks.example.com/a", events=[SALE_COMPLETED])
    delivery = webhooks.send_test(actor=vendor, endpoint_id=made.endpoint.id)
    assert webhooks.list_endpoints(actor=other) == []
    for call in (webhooks.delete_endpoint, webhooks.rotate_secret, webhooks.list_deliveries, webhooks.send_test):
        with pytest.raises(NotFound, match="Webhook endpoint not found"):
            call(actor=other, endpoint_id=made.endpoint.id)
    with session_scope() as session:
        session.execute(WebhookDelivery.__table__.update().values(status="failed", next_attempt_at=None))
    with pytest.raises(NotFound, match="Webhook delivery not found"):
        webhooks.resend(actor=other, delivery_id=delivery.id)
    with session_scope() as session:
        assert session.get(WebhookEndpoint, made.endpoint.id).disabled_at is None
        assert session.get(WebhookEndpoint, made.endpoint.id).secret == made.secret


def test_customers_and_signed_out_callers_are_refused():
    vendor, customer = factories.make_vendor(), factories.make_user()
    unapproved = factories.make_vendor(vendor_approved=False)
    made = webhooks.create_endpoint(actor=vendor, url="https://hooks.example.com/a", events=[SALE_COMPLETED])
    for actor, error in ((customer, Forbidden), (unapproved, Forbidden), (None, Unauthorized)):
        with pytest.raises(error):
            webhooks.create_endpoint(actor=actor, url="https://hooks.example.com/b", events=[SALE_COMPLETED])
        with pytest.raises(error):
            webhooks.list_endpoints(actor=actor)
        for call in (webhooks.delete_endpoint, webhooks.rotate_secret, webhooks.list_deliveries, webhooks.send_test):
            with pytest.raises(error):
                call(actor=actor, endpoint_id=made.endpoint.id)
        with pytest.raises(error):
            webhooks.resend(actor=actor, delivery_id="x")


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([], endpoints.NO_EVENTS),
        (None, endpoints.NO_EVENTS),
        (["sale.completed", "sale.exploded"], "Unknown event: sale.exploded. Choose from: sale.completed, "),
        (["ping"], "Unknown event: ping."),
    ],
)
def test_bad_events_are_refused(events, message):
    with pytest.raises(Invalid) as refused:
        webhooks.create_endpoint(actor=factories.make_vendor(), url="https://hooks.example.com/a", events=events)
    assert refused.value.message.startswith(message) and refused.value.field == "events"
    assert _endpoints() == 0


def _endpoints() -> int:
    with session_scope() as session:
        return len(session.exec(select(WebhookEndpoint)).all())


def test_bad_ids_and_the_endpoint_limit():
    vendor = factories.make_vendor()
    for bad in ("", "x" * 500, None, 5):
        with pytest.raises(NotFound):
            webhooks.rotate_secret(actor=vendor, endpoint_id=bad)
        with pytest.raises(NotFound):
            webhooks.resend(actor=vendor, delivery_id=bad)
    with pytest.raises(Invalid):
        webhooks.list_deliveries(actor=vendor, endpoint_id="x", limit=10_000)
    for n in range(endpoints.MAX_ENDPOINTS):
        webhooks.create_endpoint(actor=vendor, url=f"https://hooks.example.com/{n}", events=[SALE_COMPLETED])
    with pytest.raises(Invalid, match="at most 10"):
        webhooks.create_endpoint(actor=vendor, url="https://hooks.example.com/11", events=[SALE_COMPLETED])
    assert _endpoints() == endpoints.MAX_ENDPOINTS


def test_unknown_event_types_cannot_be_queued():
    with session_scope() as session, pytest.raises(ValueError):
        webhooks.enqueue(session, vendor_id="v", type="sale.exploded", obj={})


def test_an_agent_status_is_not_an_event():  # the list is the issue's, nothing more
    assert AgentStatus.APPROVED not in webhooks.events.EVENTS
    assert len(webhooks.events.EVENTS) == 7


def test_a_paid_purchase_queues_its_sale_in_the_same_transaction(stripe_standin, make_vendor, make_agent):
    """The purchase path itself (services/purchases/completion.py): the vendor's endpoints come with the read it
    makes anyway, and the deliveries are written in the transaction of the order."""
    from marketplace.services import purchases

    vendor, other = make_vendor("enabled"), make_vendor()
    factories.make_webhook_endpoint(vendor, events=(SALE_COMPLETED, "refund.completed"))
    factories.make_webhook_endpoint(vendor, events=("refund.completed",))
    factories.make_webhook_endpoint(other)
    agent = make_agent(vendor, price_cents=2999, pricing_model="one_time")
    buyer = factories.make_user()
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    stripe_standin.confirm(intent.client_secret)
    done = purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=agent.id)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=agent.id)
    (row,) = _deliveries()
    obj = json.loads(row.payload)["data"]["object"]
    assert (row.type, obj["id"], obj["amount"], obj["vendorAmount"]) == (
        SALE_COMPLETED,
        done.order.id,
        "29.99",
        "23.99",
    )
    for private in ("pi_", buyer.email, "4242", "card"):
        assert private not in row.payload


def test_a_subscription_ending_is_announced_once_with_its_state():
    from marketplace.services.billing import lifecycle

    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, events=("subscription.ended", "subscription.cancelled"))
    sub = factories.make_subscription(factories.make_agent(vendor, pricing_model="monthly"), factories.make_user())
    for _ in range(2):  # a replay (the webhook and the refund both ending it) ends it once
        with session_scope() as session:
            lifecycle.end_in(session, subscription_id=sub.id, now=utcnow(), status="canceled")
    (row,) = _deliveries()
    obj = json.loads(row.payload)["data"]["object"]
    assert (row.type, obj["id"], obj["status"], obj["cancelAtPeriodEnd"]) == (
        "subscription.ended",
        sub.id,
        "canceled",
        False,
    )
    assert obj["endedAt"] is not None and "cus_" not in row.payload and "sub_test" not in row.payload


def _subscribed_at_standin(standin, vendor: User) -> tuple[User, str, str]:
    """A buyer's paid subscription to one of `vendor`'s monthly agents, made through the app at the stand-in:
    (buyer, the subscription row's id, Stripe's id)."""
    from marketplace.models import Subscription
    from marketplace.services import purchases

    agent = factories.make_agent(vendor, price_cents=1200, pricing_model="monthly",
                                 demo_url="https://demo.example.com")
    buyer = factories.make_user()
    intent = purchases.create_payment_intent(actor=buyer, agent_id=agent.id)
    standin.confirm(intent.client_secret)
    purchases.complete_payment(actor=buyer, payment_intent_id=intent.payment_intent_id, agent_id=agent.id)
    with session_scope() as session:
        row = session.exec(select(Subscription).where(Subscription.user_id == buyer.id)).one()
        return buyer, row.id, row.stripe_subscription_id


def _types() -> list[str]:
    return [d.type for d in _deliveries()]


def test_a_cancellation_made_at_stripe_is_announced_once(stripe_standin):
    from marketplace.services.billing import invoices

    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, events=("subscription.cancelled", "subscription.ended"))
    _buyer, row_id, stripe_id = _subscribed_at_standin(stripe_standin, vendor)
    assert _types() == []
    # Cancelled outside the app (the dashboard, the API): Stripe's customer.subscription.updated, delivered twice.
    stripe_standin.stripe.v1.subscriptions.update(stripe_id, params={"cancel_at_period_end": True})
    assert [invoices.subscription_changed(stripe_id) for _ in range(2)] == ["updated", "updated"]
    assert _types() == ["subscription.cancelled"]
    obj = json.loads(_deliveries()[0].payload)["data"]["object"]
    assert (obj["id"], obj["cancelAtPeriodEnd"], obj["status"]) == (row_id, True, "active")
    assert obj["canceledAt"] is not None


def test_a_cancellation_made_in_the_app_is_announced_once_not_again_by_stripes_event(stripe_standin):
    from marketplace.services.billing import invoices, lifecycle

    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor, events=("subscription.cancelled",))
    buyer, row_id, stripe_id = _subscribed_at_standin(stripe_standin, vendor)
    lifecycle.cancel_subscription(actor=buyer, subscription_id=row_id)
    invoices.subscription_changed(stripe_id)  # Stripe's event of the app's own change
    assert _types() == ["subscription.cancelled"]


# ---- purging what ended long ago ---------------------------------------------------------------------------


def _aged(delivery_id: str, *, days: int, status: str, next_attempt: bool = False) -> None:
    with session_scope() as session:
        row = session.exec(select(WebhookDelivery).where(WebhookDelivery.id == delivery_id)).one()
        row.status, row.updated_at = status, utcnow() - timedelta(days=days)
        row.next_attempt_at = utcnow() if next_attempt else None
        session.add(row)


def test_old_finished_deliveries_are_purged_in_batches_and_nothing_else(monkeypatch):
    vendor = factories.make_vendor()
    factories.make_webhook_endpoint(vendor)
    for _ in range(7):
        _sale(vendor)
    rows = [d.id for d in _deliveries()]
    _aged(rows[0], days=31, status="succeeded")
    _aged(rows[1], days=45, status="failed")
    _aged(rows[2], days=40, status="succeeded")
    _aged(rows[3], days=29, status="succeeded")  # younger than 30 days: kept
    _aged(rows[4], days=60, status="pending", next_attempt=True)  # resent: kept
    _aged(rows[5], days=31, status="failed")
    statements = []
    monkeypatch.setattr(sender, "PURGE_BATCH", 2)
    real = sender.decisions.row_count

    def counted(result):
        statements.append(real(result))
        return statements[-1]

    monkeypatch.setattr(sender.decisions, "row_count", counted)
    assert sender.purge_old() == 4
    assert statements == [2, 2, 0]  # batches of PURGE_BATCH, until one comes back short
    assert {d.id for d in _deliveries()} == {rows[3], rows[4], rows[6]}
    assert sender.purge_old() == 0


def test_the_sending_loop_purges_at_most_once_per_interval():
    import asyncio

    from marketplace.services import background

    rounds, tidied = [], []
    worker = background.Worker("purge test", poll_seconds=lambda: 0)

    def work() -> None:
        rounds.append(1)
        if len(rounds) == 5:
            raise asyncio.CancelledError  # ends the loop after five rounds

    async def run() -> None:
        with pytest.raises(asyncio.CancelledError):
            await worker.run_forever(work, tidy=lambda: tidied.append(len(rounds)), tidy_seconds=3600)

    asyncio.run(run())
    assert tidied == [1]  # after the first round, not again within the interval
