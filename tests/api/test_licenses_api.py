"""The public license API over HTTP (`/api/licenses/*`), and where keys reach the buyer: every purchase gets one
(one-time, subscription, repeated completion and webhook), `GET /api/user/purchases`, the receipt mail and the
download zip. Each status (active, expired, refunded, disabled), a wrong key, bad input, rate limits, and the
activation limit under concurrent activations (tests/live_api.py); both databases (TEST_DATABASE_URL)."""

from __future__ import annotations

import io
import zipfile
from functools import partial
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import func, select

from marketplace import db
from marketplace.config import settings
from marketplace.models import Agent, LicenseActivation, LicenseKey, OutboxMail, PricingModel, RateLimitCounter
from marketplace.services import billing, licenses
from marketplace.services.licenses import keys
from tests import factories
from tests.live_api import LiveApi, fire
from tests.payments_fixtures import event_body, sign

NOT_FOUND_VALIDATE = {"valid": False, "error": "License key not found", "licenseKey": None, "instance": None}


@pytest.fixture
def agent_client() -> TestClient:
    """What a vendor's agent sends: no cookie, no Origin (the routes are exempt from the Origin rule)."""
    from marketplace.api.app import create_api

    with TestClient(create_api()) as client:
        yield client


def _count(model, *where) -> int:
    with db.session_scope() as session:
        return session.exec(select(func.count()).select_from(model).where(*where)).one()


def _key(buyer, agent) -> str:
    with db.session_scope() as session:
        return session.exec(select(LicenseKey.key).where(LicenseKey.user_id == buyer.id,
                                                         LicenseKey.agent_id == agent.id)).one()


def _validate(client: TestClient, key: str, **extra: str):
    return client.post("/api/licenses/validate", json={"licenseKey": key, **extra})


def test_a_bought_licence_gets_one_key_that_activates_validates_and_deactivates(
        client, login, agent_client, stripe_standin, make_user, make_agent):
    buyer = make_user("buyer")
    agent = make_agent(pricing_model=PricingModel.ONE_TIME, price_cents=2500, name="Key Bot")
    factories.store_agent_file(agent, b"print('hi')\n", filename="agent.py")
    login(buyer)
    intent = client.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    stripe_standin.confirm(intent["clientSecret"])
    for _ in range(2):  # the browser twice, then Stripe's webhook: one purchase, one key
        done = client.post("/api/purchase/complete", json={"paymentIntentId": intent["paymentIntentId"]})
        assert done.status_code == 200, done.text
    body = event_body(stripe_standin.event_for(intent["paymentIntentId"], "payment_intent.succeeded"))
    hook = client.post("/api/stripe/webhook", content=body,
                       headers={"Stripe-Signature": sign(body), "Content-Type": "application/json"})
    assert hook.status_code == 200, hook.text
    assert _count(LicenseKey, LicenseKey.user_id == buyer.id) == 1
    key = _key(buyer, agent)
    assert keys.KEY_RE.match(key)

    [purchase] = client.get("/api/user/purchases").json()
    assert purchase["licenseKey"] == key
    with db.session_scope() as session:
        receipt = session.exec(select(OutboxMail).where(OutboxMail.recipient == buyer.email,
                                                        OutboxMail.subject == "Your receipt: Key Bot")).one()
    assert f"License key: {key}" in receipt.body
    download = client.get(f"/api/agents/{agent.id}/download")
    with zipfile.ZipFile(io.BytesIO(download.content)) as z:
        assert z.namelist() == ["agent.py", "LICENSE-KEY.txt"]
        note = z.read("LICENSE-KEY.txt").decode()
    assert key in note and "/api/licenses/validate" in note

    activated = agent_client.post("/api/licenses/activate", json={"licenseKey": key.lower(),
                                                                  "instanceName": " build   server "})
    assert activated.status_code == 200, activated.text
    answer = activated.json()
    instance = answer["instance"]
    assert answer == {"activated": True, "error": None,
                      "licenseKey": {"status": "active", "activationLimit": 3, "activationUsage": 1,
                                     "expiresAt": None, "agentId": agent.id},
                      "instance": {"id": instance["id"], "name": "build server"}}
    valid = _validate(agent_client, key, instanceId=instance["id"])
    assert valid.status_code == 200
    assert valid.json() == {"valid": True, "error": None, "licenseKey": answer["licenseKey"], "instance": instance}
    assert _validate(agent_client, key).json()["instance"] is None
    gone = agent_client.post("/api/licenses/deactivate", json={"licenseKey": key, "instanceId": instance["id"]})
    assert gone.status_code == 200
    assert gone.json() == {"deactivated": True, "error": None,
                           "licenseKey": {**answer["licenseKey"], "activationUsage": 0}}
    again = agent_client.post("/api/licenses/deactivate", json={"licenseKey": key, "instanceId": instance["id"]})
    assert again.status_code == 404
    assert again.json() == {"deactivated": False, "error": "Instance not found",
                            "licenseKey": {**answer["licenseKey"], "activationUsage": 0}}
    stale = _validate(agent_client, key, instanceId=instance["id"])
    assert stale.status_code == 404 and stale.json()["error"] == "Instance not found"


def test_a_wrong_key_is_a_404_with_the_same_shape_and_no_hint(agent_client):
    agent = factories.make_agent(price_cents=900)
    buyer = factories.make_user()
    factories.make_purchase(buyer, agent)
    real = _key(buyer, agent)
    near = real[:-1] + ("0" if real[-1] != "0" else "1")
    for wrong in (keys.new_key(), near, "not-a-key", ""):
        answer = _validate(agent_client, wrong)
        assert answer.status_code == 404 and answer.json() == NOT_FOUND_VALIDATE
    activate = agent_client.post("/api/licenses/activate", json={"licenseKey": near, "instanceName": "pc"})
    assert activate.status_code == 404
    assert activate.json() == {"activated": False, "error": "License key not found", "licenseKey": None,
                               "instance": None}
    deactivate = agent_client.post("/api/licenses/deactivate", json={"licenseKey": near, "instanceId": "x"})
    assert deactivate.status_code == 404
    assert deactivate.json() == {"deactivated": False, "error": "License key not found", "licenseKey": None}


def test_a_subscription_has_a_key_that_expires_when_access_ends(client, login, agent_client, stripe_standin,
                                                                make_user, make_agent):
    buyer = make_user("subscriber")
    agent = make_agent(price_cents=1200)  # monthly
    login(buyer)
    intent = client.post("/api/purchase/create-payment-intent", json={"agentId": agent.id}).json()
    stripe_standin.confirm(intent["clientSecret"])
    assert client.post("/api/purchase/complete", json={"paymentIntentId": intent["paymentIntentId"]}).is_success
    [purchase] = client.get("/api/user/purchases").json()
    key = purchase["licenseKey"]
    live = _validate(agent_client, key).json()
    assert live["valid"] is True and live["licenseKey"]["expiresAt"] is not None

    assert billing.end_subscription_now(subscription_id=intent["subscriptionId"])
    ended = _validate(agent_client, key)
    assert ended.status_code == 200
    assert ended.json()["valid"] is False and ended.json()["error"] == "This license key has expired"
    assert ended.json()["licenseKey"]["status"] == "expired"
    refused = agent_client.post("/api/licenses/activate", json={"licenseKey": key, "instanceName": "pc"}).json()
    assert refused["activated"] is False and refused["instance"] is None
    assert refused["error"] == "This license key has expired"


def test_a_refund_makes_the_key_refunded(client, login, agent_client, stripe_standin, make_user, make_agent):
    buyer = make_user("refunded")
    agent = make_agent(price_cents=3000)
    order = factories.make_paid_order(stripe_standin.stripe, agent, buyer)
    key = _key(buyer, agent)
    assert _validate(agent_client, key).json()["valid"] is True
    login(buyer)
    assert client.post("/api/user/refunds", json={"orderId": order.id, "reason": "Not for me"}).status_code == 201
    answer = _validate(agent_client, key)
    assert answer.status_code == 200
    assert answer.json()["valid"] is False and answer.json()["licenseKey"]["status"] == "refunded"
    assert answer.json()["error"] == "This license key was refunded"


def test_a_disabled_key_is_refused_until_enabled(agent_client):
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor, price_cents=500)
    buyer = factories.make_user()
    factories.make_purchase(buyer, agent)
    key = _key(buyer, agent)
    [view] = licenses.buyer_keys(actor=buyer)
    licenses.set_disabled(actor=vendor, key_id=view.id, disabled=True, reason="Shared in a public repository")
    answer = agent_client.post("/api/licenses/activate", json={"licenseKey": key, "instanceName": "pc"}).json()
    assert answer["activated"] is False and answer["licenseKey"]["status"] == "disabled"
    assert answer["error"] == "This license key has been disabled"
    assert _validate(agent_client, key).json()["valid"] is False
    licenses.set_disabled(actor=factories.make_admin(), key_id=view.id, disabled=False)
    assert _validate(agent_client, key).json()["valid"] is True


def test_the_limit_is_the_agents_and_unlimited_has_none(agent_client):
    agent = factories.make_agent(price_cents=500, activation_limit=1)
    unlimited = factories.make_agent(price_cents=500, activation_limit=None)
    buyer = factories.make_user()
    factories.make_purchase(buyer, agent)
    factories.make_purchase(buyer, unlimited)
    key, free = _key(buyer, agent), _key(buyer, unlimited)
    first = agent_client.post("/api/licenses/activate", json={"licenseKey": key, "instanceName": "one"}).json()
    assert first["activated"] is True and first["licenseKey"]["activationLimit"] == 1
    second = agent_client.post("/api/licenses/activate", json={"licenseKey": key, "instanceName": "two"})
    assert second.status_code == 200
    assert second.json() == {"activated": False, "error": "This license key has reached its activation limit",
                             "licenseKey": first["licenseKey"], "instance": None}
    for n in range(5):
        answer = agent_client.post("/api/licenses/activate", json={"licenseKey": free, "instanceName": f"pc {n}"})
        assert answer.json()["activated"] is True
    assert answer.json()["licenseKey"]["activationLimit"] is None
    assert answer.json()["licenseKey"]["activationUsage"] == 5


@pytest.mark.parametrize("body", [
    {"licenseKey": "AAAAA-AAAAA-AAAAA-AAAAA"},  # no instanceName
    {"licenseKey": "AAAAA-AAAAA-AAAAA-AAAAA", "instanceName": "   "},
    {"licenseKey": "AAAAA-AAAAA-AAAAA-AAAAA", "instanceName": "x" * 101},
    {"licenseKey": "A" * 65, "instanceName": "pc"},
    {"licenseKey": "AAAAA-AAAAA-AAAAA-AAAAA", "instanceName": "tab\there"},
    {"licenseKey": 5, "instanceName": "pc"},
])
def test_bad_input_is_a_422(agent_client, body):
    answer = agent_client.post("/api/licenses/activate", json=body)
    assert answer.status_code == 422 and answer.json()["message"]


def test_rate_limited_per_key_and_per_address(agent_client, monkeypatch):
    monkeypatch.setattr(settings, "rate_limit_license_per_key", 2)
    monkeypatch.setattr(settings, "rate_limit_license_per_address", 4)
    key = keys.new_key()
    assert [_validate(agent_client, key).status_code for _ in range(3)] == [404, 404, 429]
    refused = _validate(agent_client, key)
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.json() == {"message": "Too many license requests. Please try again in a minute."}
    # A refused request is not counted: the address has 2 counted, so two more keys pass, the third is refused.
    assert [_validate(agent_client, keys.new_key()).status_code for _ in range(3)] == [404, 404, 429]


@pytest.mark.parametrize("round_", range(3))
def test_concurrent_requests_never_pass_a_rate_limit_and_a_refusal_counts_nowhere(
        live_api: LiveApi, monkeypatch, round_: int):
    """Eight validations of one new key at once (its counter row is created by the race), three allowed per key:
    three answered, five refused, and the address counted three times, not eight."""
    monkeypatch.setattr(settings, "rate_limit_license_per_key", 3)
    monkeypatch.setattr(settings, "rate_limit_license_per_address", 100)
    monkeypatch.setattr(settings, "rate_limit_license_window_seconds", 3600)  # the eight fall in one window
    key = keys.new_key()
    clients = [live_api.client() for _ in range(8)]
    answers = fire([partial(c.post, "/api/licenses/validate", json={"licenseKey": key}) for c in clients])
    assert sorted(a.status_code for a in answers) == [404] * 3 + [429] * 5
    with db.session_scope() as session:
        counts = dict(session.exec(select(RateLimitCounter.key, RateLimitCounter.count)).all())
    assert counts.pop(f"license-key:{keys.key_hash(key)[:32]}") == 3
    assert list(counts.values()) == [3]  # the one address


def test_a_cross_site_post_is_not_refused_since_no_cookie_is_read(agent_client):
    answer = agent_client.post("/api/licenses/validate", json={"licenseKey": keys.new_key()},
                               headers={"Origin": "https://elsewhere.example"})
    assert answer.status_code == 404 and answer.json() == NOT_FOUND_VALIDATE


@pytest.mark.parametrize("round_", range(3))
def test_concurrent_activations_never_pass_the_limit(live_api: LiveApi, round_: int):
    agent = factories.make_agent(price_cents=700)
    buyer = factories.make_user()
    factories.make_purchase(buyer, agent)
    key = _key(buyer, agent)
    with db.session_scope() as session:
        limit = session.get(Agent, agent.id).activation_limit
    clients = [live_api.client() for _ in range(8)]
    answers = fire([partial(c.post, "/api/licenses/activate", json={"licenseKey": key, "instanceName": f"pc {n}"})
                    for n, c in enumerate(clients)])
    assert [a.status_code for a in answers] == [200] * 8
    assert sum(a.json()["activated"] for a in answers) == limit == 3
    assert {a.json()["error"] for a in answers if not a.json()["activated"]} == {licenses.LIMIT_REACHED}
    assert _count(LicenseActivation) == 3
    [view] = licenses.buyer_keys(actor=buyer)
    assert view.activation_usage == 3 and len(view.activations) == 3


def _readme_snippet(url: str, state: Path) -> str:
    """The Python snippet the README gives vendors, pointed at this server and a scratch state file."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    source = readme.split("A vendor can paste this into an agent", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    source = source.replace('MARKET = "http://localhost:3000"', f'MARKET = "{url}"')
    home = 'STATE = pathlib.Path.home() / ".my-agent-license.json"'
    return source.replace(home, f"STATE = pathlib.Path({str(state)!r})")


def test_the_readme_snippet_activates_once_then_validates(live_api: LiveApi, tmp_path, monkeypatch):
    agent = factories.make_agent(price_cents=700)
    buyer = factories.make_user()
    factories.make_purchase(buyer, agent)
    source = _readme_snippet(live_api.url, tmp_path / "license.json")
    monkeypatch.setenv("MY_AGENT_LICENSE_KEY", _key(buyer, agent))
    for _ in range(2):  # the agent started twice: one activation, then validation with its instance id
        exec(compile(source, "README.md", "exec"), {"__name__": "snippet"})
    [view] = licenses.buyer_keys(actor=buyer)
    assert view.activation_usage == 1 and len(view.activations) == 1
    monkeypatch.setenv("MY_AGENT_LICENSE_KEY", keys.new_key())
    with pytest.raises(SystemExit, match="License not activated: License key not found"):
        exec(compile(source, "README.md", "exec"), {"__name__": "snippet"})
