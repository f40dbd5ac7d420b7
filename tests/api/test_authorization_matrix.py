"""The authorization matrix: every `/api` route of the app's own route table x {signed out, customer, vendor,
other vendor, admin}, with the status each must get. A route added without a row (or a row left for a route that
is gone) fails `test_every_route_has_a_row`, so each new route's access rule is decided here, on purpose.

Path parameters name real rows: the "vendor" owns the agents, files, uploads and notifications the paths point
at; the "other vendor" is an approved vendor who owns none of them. Reads share one set of rows for the module;
a write that changes or removes its target gets a fresh target per call (`fresh`), and a call that changes the
caller's own account (password, role, 2FA, sessions) acts as a fresh user of that role (`own_account`). Every
caller's session is new for each call, so a route that ends sessions cannot affect the next call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from sqlmodel import select

from marketplace import db
from marketplace.api.app import create_api
from marketplace.api.deps import SESSION_COOKIE
from marketplace.models import Agent, AgentStatus, LicenseKey, Order, Role, User
from marketplace.services import auth, licenses
from tests import factories
from tests.conftest import BASE_URL, empty_database

ROLES = ("anonymous", "customer", "vendor", "other_vendor", "admin")
ANY = "*"  # a mount: every method


@dataclass
class World:
    """The module's users and rows; `fresh_*` make a new target for a call that consumes one."""

    customer: User
    vendor: User
    other_vendor: User
    admin: User
    category_id: int
    category_slug: str
    agent_id: str  # approved, priced, with a stored file; the vendor's; the customer bought it
    free_agent_id: str  # approved, free; the vendor's
    pending_agent_id: str  # pending review; the vendor's
    notification_id: str  # the vendor's
    made: dict[str, int] = field(default_factory=dict)
    subscription_id: str = ""  # the customer's, ended (cancel, resume and a new card then answer 409 to it)
    caller: User | None = None  # who makes the current call (bodies may name the caller's own e-mail)

    def user(self, role: str) -> User | None:
        return None if role == "anonymous" else getattr(self, role)

    def fresh_agent(self, status: str = AgentStatus.PENDING) -> str:
        agent = factories.make_agent(self.vendor, status=status)
        factories.store_agent_file(agent)
        return agent.id

    def fresh_notification(self) -> str:
        return factories.make_notification(self.vendor).id

    def fresh_applicant(self) -> str:
        applicant = factories.make_user()
        factories.make_application(applicant)
        return applicant.id

    def fresh_report(self) -> str:
        return factories.make_report(factories.make_agent(self.vendor)).id

    def fresh_file(self) -> str:
        agent = factories.make_agent(self.vendor, status=AgentStatus.PENDING)
        return factories.store_agent_file(agent).id

    def fresh_upload_url(self) -> str:
        return factories.upload_url(factories.make_upload(self.vendor))

    def fresh_paid_order(self) -> str:
        """An order of the customer paid at the Stripe stand-in (the call needs `payments=True`)."""
        import stripe

        from marketplace.config import settings

        client = stripe.StripeClient(settings.stripe_secret_key, base_addresses={"api": settings.stripe_api_base})
        agent = factories.make_agent(self.vendor)
        return factories.make_paid_order(client, agent, self.customer).id

    def fresh_customer_card(self) -> str:
        """A card saved by the customer at the Stripe stand-in (the call needs `payments=True`)."""
        import stripe

        from marketplace.config import settings

        client = stripe.StripeClient(settings.stripe_secret_key, base_addresses={"api": settings.stripe_api_base})
        return factories.make_saved_card(client, self.customer)

    def fresh_refund_request(self) -> str:
        """A refund request of the customer waiting for an admin, on a paid order."""
        with db.session_scope() as session:
            order = session.get(Order, self.fresh_paid_order())
        return factories.make_refund(order, status="requested").id

    def fresh_key(self, *, disabled: bool = False) -> str:
        """A new buyer's license key of the vendor's agent (disabled, for Enable)."""
        purchase = factories.make_purchase(factories.make_user(), factories.make_agent(self.vendor))
        with db.session_scope() as session:
            key = session.exec(select(LicenseKey).where(LicenseKey.purchase_id == purchase.id)).one()
            if disabled:
                key.disabled_at = factories.ago(days=1)
                session.add(key)
            return key.id

    def fresh_review(self, *, reply: bool = False) -> str:
        """A new buyer's review of the module's agent (the vendor's), answered when `reply`."""
        with db.session_scope() as session:
            agent = session.get(Agent, self.agent_id)
            session.expunge(agent)
        return factories.make_review(agent, reply="Thanks for the review" if reply else None).id

    def fresh_promotion_code(self) -> str:
        """A new active code of the vendor, for the vendor's agent."""
        with db.session_scope() as session:
            agent = session.get(Agent, self.agent_id)
            session.expunge(agent)
        return factories.make_promotion_code([agent], vendor=self.vendor).id

    def fresh_webhook(self) -> str:
        """A webhook endpoint of the vendor's (deleting one disables it)."""
        return factories.make_webhook_endpoint(self.vendor).id

    def fresh_finished_delivery(self) -> str:
        """A failed delivery to a webhook endpoint of the vendor's (what Resend takes)."""
        from marketplace.services.webhooks import outbox

        endpoint = factories.make_webhook_endpoint(self.vendor)
        now = factories.ago(days=0)
        with db.session_scope() as session:
            row = outbox.delivery(endpoint_id=endpoint.id, event_id="evt_matrix", type="ping", body="{}", now=now)
            row.status, row.next_attempt_at = "failed", None
            session.add(row)
            session.flush()
            return row.id

    def unique(self, prefix: str) -> str:
        self.made[prefix] = self.made.get(prefix, 0) + 1
        return f"{prefix}{self.made[prefix]}"


Fill = Callable[[World], Any]


def _license_key(world: World) -> str:
    """The key of the customer's purchase of the module's agent."""
    return licenses.buyer_keys(actor=world.customer)[0].key


@dataclass(frozen=True)
class Call:
    """How to call a route: path parameter values, query, JSON body (each a value or `f(world)`)."""

    path: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    own_account: bool = False  # act as a fresh user of the role (the call changes the caller's account)
    payments: bool = False  # with the Stripe stand-in configured (tests/payments_fixtures.py)
    demo: bool = False  # with demo mode on, as `make run` has it (off, each demo route is 404 for everyone)


def _v(value: Any, world: World) -> Any:
    if callable(value):
        return value(world)
    if isinstance(value, dict):
        return {k: _v(v, world) for k, v in value.items()}
    return value


# Path parameters, by name, when a route's Call does not say otherwise: the module's shared rows.
DEFAULT_PATH: dict[str, Fill] = {
    "agent_id": lambda w: w.agent_id,
    "ref": lambda w: w.category_slug,
    "notification_id": lambda w: w.notification_id,
    "vendor_id": lambda w: w.vendor.id,
    "upload_id": lambda _w: "no-such-upload",
    "part_number": lambda _w: 1,
    "key": lambda _w: "commissionRate",
    "path": lambda _w: "no/such/route",
    "subscription_id": lambda w: w.subscription_id,
    "plan_id": lambda _w: "pro",
}

# (method, path): (signed out, customer, vendor, other vendor, admin), then how to call it when not plain.
# Reading the statuses: 401 no session; 403 signed in without the role; 404 not yours / not there (or demo-only
# off); 400/403/422 for the few routes whose body or signature is checked before any user is.
TABLE: dict[tuple[str, str], tuple[tuple[int, int, int, int, int], Call]] = {}


def _row(method: str, path: str, expected: tuple[int, int, int, int, int], call: Call | None = None) -> None:
    TABLE[(method, path)] = (expected, call or Call())


# ---- accounts ----------------------------------------------------------------------------------------------
_row("POST", "/api/register", (201, 201, 201, 201, 201),
     Call(body=lambda w: {"username": (n := w.unique("newcomer")), "email": f"{n}@example.com",
                          "password": "secret123"}))
_row("POST", "/api/login", (200, 200, 200, 200, 200),
     Call(body={"username": "signin-only", "password": factories.PASSWORD}))
_row("GET", "/api/login", (302, 302, 302, 302, 302))  # the old page address: a redirect to /login
_row("POST", "/api/logout", (204, 204, 204, 204, 204))
_row("GET", "/api/auth/user", (401, 200, 200, 200, 200))
_row("GET", "/api/user", (401, 200, 200, 200, 200))
# No 2FA set-up was started: 400 (the 2FA flow itself: tests/api/test_account_security_api.py).
_row("POST", "/api/user/2fa/confirm", (401, 400, 400, 400, 400), Call(body={"code": "000000"}, own_account=True))
_row("PUT", "/api/user/profile", (401, 200, 200, 200, 200),
     Call(body=lambda w: {"firstName": "Ada", "lastName": "Lovelace",
                          "email": w.caller.email if w.caller else "a@example.com"}, own_account=True))
_row("POST", "/api/auth/forgot-password", (200, 200, 200, 200, 200),
     Call(body=lambda w: {"email": f"{w.unique('nobody')}@example.com"}))
_row("POST", "/api/auth/reset-password", (400, 400, 400, 400, 400),
     Call(body={"token": "not-a-token", "password": "secret456"}))
_row("POST", "/api/auth/verify-email", (400, 400, 400, 400, 400), Call(body={"token": "not-a-token"}))
_row("POST", "/api/auth/guest-password", (400, 400, 400, 400, 400),
     Call(body={"token": "not-a-token", "password": "secret456"}))
_row("POST", "/api/auth/resend-verification", (401, 409, 409, 409, 409), Call(own_account=True))
_row("PUT", "/api/user/password", (401, 200, 200, 200, 200),
     Call(body={"currentPassword": factories.PASSWORD, "newPassword": "secret456"}, own_account=True))
_row("POST", "/api/logout/all", (401, 204, 204, 204, 204), Call(own_account=True))
_row("POST", "/api/user/2fa/setup", (401, 200, 200, 200, 200), Call(own_account=True))
_row("POST", "/api/user/2fa/disable", (401, 409, 409, 409, 409), Call(body={"code": "000000"}, own_account=True))
# Provider sign-in: browser navigations that always end in a redirect (to the provider, or back to /login with a
# message: not configured in tests, or no state for the callback); no JSON, no session needed.
_row("GET", "/api/auth/google", (302, 302, 302, 302, 302))
_row("GET", "/api/auth/google/callback", (302, 302, 302, 302, 302))
_row("GET", "/api/auth/github", (302, 302, 302, 302, 302))
_row("GET", "/api/auth/github/callback", (302, 302, 302, 302, 302))

# ---- demo mode (DEMO_MODE=1; without it each answers 404 to everyone, tests/api/test_demo_mode_api) -----------
_row("POST", "/api/dev/switch-role", (401, 200, 200, 200, 200),  # the spec: any signed-in tester
     Call(body={"role": "user"}, own_account=True, demo=True))
_row("POST", "/api/admin/init-demo-data", (401, 403, 403, 403, 200), Call(demo=True))
_row("GET", "/api/dev/mail", (401, 403, 403, 403, 200), Call(demo=True))  # it shows password-reset links
# Admins advance the demo's Stripe test clock (here a day, on the stand-in).
_row("POST", "/api/dev/advance-clock", (401, 403, 403, 403, 200), Call(body={"days": 1}, demo=True, payments=True))

# ---- catalog (public) ---------------------------------------------------------------------------------------
_row("GET", "/api/stats", (200, 200, 200, 200, 200))
_row("GET", "/api/categories", (200, 200, 200, 200, 200))
_row("GET", "/api/categories/{ref}", (200, 200, 200, 200, 200))
_row("GET", "/api/agents", (200, 200, 200, 200, 200))
_row("GET", "/api/agents/facets", (200, 200, 200, 200, 200))
_row("GET", "/api/agents/{agent_id}", (200, 200, 200, 200, 200))
_row("GET", "/api/demo-images/{file_name}", (200, 200, 200, 200, 200), Call(path={"file_name": "blogsmith.svg"}))
_row("GET", "/api/agents/{agent_id}/reviews", (200, 200, 200, 200, 200))
_row("GET", "/api/agents/{agent_id}/versions", (200, 200, 200, 200, 200))  # a live agent's changelog: public

# ---- engagement ------------------------------------------------------------------------------------------
# Only buyers review (the customer bought the agent); the vendor not its own; the others never bought it.
_row("POST", "/api/agents/{agent_id}/reviews", (401, 201, 403, 403, 403), Call(body={"rating": 5, "comment": "Useful"}))
# The agent's vendor answers a review of it (others 403); admins remove a review or an answer with a reason.
_row("PUT", "/api/vendor/reviews/{review_id}/reply", (401, 403, 200, 403, 403),
     Call(path={"review_id": World.fresh_review}, body={"reply": "Thank you!"}))
_row("GET", "/api/favorites", (401, 200, 200, 200, 200))
_row("POST", "/api/favorites", (401, 200, 200, 200, 200), Call(body=lambda w: {"agentId": w.agent_id}))
_row("DELETE", "/api/favorites", (401, 200, 200, 200, 200), Call(body=lambda w: {"agentId": w.agent_id}))
_row("DELETE", "/api/favorites/{agent_id}", (401, 200, 200, 200, 200))
_row("GET", "/api/agents/{agent_id}/favorited", (200, 200, 200, 200, 200))  # false when signed out
_row("POST", "/api/agents/{agent_id}/report", (401, 201, 403, 201, 201),  # not your own agent
     Call(body={"reportType": "spam", "reason": "Looks like spam", "description": "Details"}))
_row("GET", "/api/agents/{agent_id}/reported", (200, 200, 200, 200, 200))  # false when signed out

# ---- purchases ---------------------------------------------------------------------------------------------
_row("GET", "/api/stripe/config", (200, 200, 200, 200, 200), Call(payments=True))
# The customer owns the agent already (409); the vendor cannot buy its own (403).
_row("POST", "/api/purchase/create-payment-intent", (401, 409, 403, 200, 200),
     Call(body=lambda w: {"agentId": w.agent_id}, payments=True))
# Completing another buyer's payment is covered by tests/api/test_purchase_api.py; an unknown one is a 400.
_row("POST", "/api/purchase/complete", (401, 400, 400, 400, 400),
     Call(body={"paymentIntentId": "pi_unknown"}, payments=True))
_row("POST", "/api/purchase/claim-free", (401, 201, 403, 201, 201), Call(body=lambda w: {"agentId": w.free_agent_id}))
# Server-to-server from Stripe: no session, no Origin; the signature is all that counts (none here -> 400).
_row("POST", "/api/stripe/webhook", (400, 400, 400, 400, 400),
     Call(body={"type": "payment_intent.succeeded"}, payments=True))
_row("GET", "/api/user/purchases", (401, 200, 200, 200, 200))
# The public license API: the key is the only credential (the customer's, whoever sends it; no session is read).
# Past the agent's limit of 3 an activation is still a 200 (`activated: false`); an unknown instance is a 404.
_row("POST", "/api/licenses/activate", (200, 200, 200, 200, 200),
     Call(body=lambda w: {"licenseKey": _license_key(w), "instanceName": "build server"}))
_row("POST", "/api/licenses/validate", (200, 200, 200, 200, 200), Call(body=lambda w: {"licenseKey": _license_key(w)}))
_row("POST", "/api/licenses/deactivate", (404, 404, 404, 404, 404),
     Call(body=lambda w: {"licenseKey": _license_key(w), "instanceId": "no-such-instance"}))
_row("GET", "/api/user/orders", (401, 200, 200, 200, 200))
# A receipt: its buyer (the customer) and admins; for anyone else, the seller too, the order has none (404).
for _receipt in ("receipt", "receipt.pdf"):
    _row("GET", f"/api/user/orders/{{order_id}}/{_receipt}", (401, 200, 404, 404, 200),
         Call(path={"order_id": lambda w: factories.make_order(factories.make_agent(w.vendor), w.customer).id}))
# A plan payment's receipt: the vendor who paid and admins; anyone else, 404 (none of theirs).
for _receipt in ("receipt", "receipt.pdf"):
    _row("GET", f"/api/vendor/plan/payments/{{payment_id}}/{_receipt}", (401, 404, 200, 404, 200),
         Call(path={"payment_id": lambda w: factories.make_plan_payment(w.vendor, "pro", 2900).id}))
_row("GET", "/api/agents/{agent_id}/download", (401, 200, 200, 403, 200))
# Subscriptions: only their owner (the customer; its subscription has ended, so a change is a 409).
_row("GET", "/api/user/subscriptions", (401, 200, 200, 200, 200))
for _action in ("cancel", "resume", "card"):
    _row("POST", f"/api/user/subscriptions/{{subscription_id}}/{_action}", (401, 409, 403, 403, 403))
_row("POST", "/api/user/subscriptions/{subscription_id}/card/complete", (401, 409, 403, 403, 403),
     Call(body={"setupIntentId": "seti_unknown"}))
# Saved cards: anyone signed in has their own (read and added as a fresh user: the module's customer's Stripe
# Customer belongs to an earlier call's stand-in); a card is its owner's alone (the customer's, fresh per call:
# anyone else gets 404, as for an unknown id).
_row("GET", "/api/user/payment-methods", (401, 200, 200, 200, 200), Call(own_account=True, payments=True))
_row("POST", "/api/user/payment-methods/setup", (401, 200, 200, 200, 200), Call(own_account=True, payments=True))
_row("POST", "/api/user/payment-methods/{payment_method_id}/default", (401, 200, 404, 404, 404),
     Call(path={"payment_method_id": lambda w: w.fresh_customer_card()}, payments=True))
_row("DELETE", "/api/user/payment-methods/{payment_method_id}", (401, 204, 404, 404, 404),
     Call(path={"payment_method_id": lambda w: w.fresh_customer_card()}, payments=True))

# ---- platform settings (admin) -------------------------------------------------------------------------------
_row("GET", "/api/admin/settings", (401, 403, 403, 403, 200))
_row("PUT", "/api/admin/settings/{key}", (401, 403, 403, 403, 200), Call(body={"value": "20%"}))
_row("PUT", "/api/admin/plans/{plan_id}", (401, 403, 403, 403, 200), Call(body={"name": "Pro"}))

# ---- vendor plans ----------------------------------------------------------------------------------------------
_row("GET", "/api/plans", (200, 200, 200, 200, 200))
_row("GET", "/api/vendor/plan", (401, 403, 200, 200, 200))
# A fresh vendor (or admin) is on Free: a subscription to pay for (a fresh one: the stand-in is new each call).
_row("POST", "/api/vendor/plan", (401, 403, 200, 200, 200),
     Call(body={"planId": "pro"}, payments=True, own_account=True))
# Nothing to cancel: on Free, or on Pro without a subscription of its own in Stripe (the matrix's row).
_row("POST", "/api/vendor/plan/cancel", (401, 403, 409, 409, 409))

# ---- vendor ---------------------------------------------------------------------------------------------------
# Vendors and admins cannot apply.
_row("POST", "/api/vendor/apply", (401, 201, 400, 400, 400), Call(body={"businessName": "Shop"}, own_account=True))
_row("GET", "/api/vendor/application", (401, 200, 200, 200, 200))
_row("GET", "/api/vendor/agents", (401, 403, 200, 200, 200))
_row("POST", "/api/vendor/agents", (401, 403, 201, 201, 201),
     Call(body=lambda w: {"name": w.unique("Matrix agent "), "shortDescription": "Short", "description": "Long",
                          "price": "5", "categoryId": w.category_id, "tags": []}))
_row("GET", "/api/vendor/agents/{agent_id}", (401, 403, 200, 403, 403),
     Call(path={"agent_id": lambda w: w.pending_agent_id}))
_row("PUT", "/api/vendor/agents/{agent_id}", (401, 403, 200, 403, 403),
     Call(path={"agent_id": lambda w: w.pending_agent_id},
          body=lambda w: {"name": "Edited", "shortDescription": "Short", "description": "Long", "price": "5",
                          "categoryId": w.category_id, "tags": []}))
_row("GET", "/api/vendor/analytics", (401, 403, 200, 200, 200))
_row("GET", "/api/vendor/sales", (401, 403, 200, 200, 200))
_row("GET", "/api/vendor/sales.csv", (401, 403, 200, 200, 200))
_row("GET", "/api/vendor/earnings", (401, 403, 200, 200, 200))
_row("GET", "/api/vendor/payouts", (401, 403, 200, 200, 200))
_row("GET", "/api/vendor/stripe/account-status", (401, 403, 200, 200, 200))
_row("POST", "/api/vendor/stripe/create-account-link", (401, 403, 200, 200, 200), Call(payments=True))
_row("GET", "/api/vendor/verification-status", (401, 403, 200, 200, 200))
_row("GET", "/api/vendor/{vendor_id}/stats", (401, 403, 200, 403, 200))

# Seller webhooks: vendors (and admins, for endpoints of their own); the vendor's endpoint is 404 to anyone else.
_row("GET", "/api/vendor/webhooks", (401, 403, 200, 200, 200))
_row("POST", "/api/vendor/webhooks", (401, 403, 201, 201, 201),
     Call(body={"url": "https://hooks.example.com/matrix", "events": ["sale.completed"]}, own_account=True))
_row("DELETE", "/api/vendor/webhooks/{endpoint_id}", (401, 403, 204, 404, 404),
     Call(path={"endpoint_id": World.fresh_webhook}))
for _action in ("rotate-secret", "test"):
    _row("POST", f"/api/vendor/webhooks/{{endpoint_id}}/{_action}", (401, 403, 200 if _action != "test" else 201,
                                                                    404, 404),
         Call(path={"endpoint_id": World.fresh_webhook}))
_row("GET", "/api/vendor/webhooks/{endpoint_id}/deliveries", (401, 403, 200, 404, 404),
     Call(path={"endpoint_id": World.fresh_webhook}))
_row("POST", "/api/vendor/webhook-deliveries/{delivery_id}/resend", (401, 403, 200, 404, 404),
     Call(path={"delivery_id": World.fresh_finished_delivery}))

# ---- notifications (the owner's only) ----------------------------------------------------------------------
_row("GET", "/api/notifications", (401, 200, 200, 200, 200))
_row("POST", "/api/notifications/{notification_id}/read", (401, 404, 200, 404, 404))
_row("DELETE", "/api/notifications/{notification_id}", (401, 404, 204, 404, 404),
     Call(path={"notification_id": World.fresh_notification}))

# ---- admin ----------------------------------------------------------------------------------------------------
_ADMIN = (401, 403, 403, 403, 200)
for _path in ("/api/admin/vendor-applications", "/api/admin/agents/pending", "/api/admin/customers",
              "/api/admin/vendors", "/api/admin/agents", "/api/admin/sales", "/api/admin/commissions",
              "/api/admin/commissions.csv", "/api/admin/sales.csv", "/api/admin/stats/daily",
              "/api/admin/stats/weekly", "/api/admin/analytics", "/api/admin/analytics/most-bought",
              "/api/admin/analytics/most-saved", "/api/admin/analytics/most-viewed",
              "/api/admin/analytics/top-category", "/api/admin/audit-log"):
    _row("GET", _path, _ADMIN)
_row("POST", "/api/admin/vendor/{user_id}/approve", _ADMIN, Call(path={"user_id": World.fresh_applicant}))
_row("POST", "/api/admin/vendor/{user_id}/reject", _ADMIN, Call(path={"user_id": World.fresh_applicant}))
_row("POST", "/api/admin/agents/{agent_id}/approve", _ADMIN, Call(path={"agent_id": World.fresh_agent}))
_row("POST", "/api/admin/agents/{agent_id}/reject", _ADMIN, Call(path={"agent_id": World.fresh_agent}))
_row("DELETE", "/api/admin/agents/{agent_id}", (401, 403, 403, 403, 204), Call(path={"agent_id": World.fresh_agent}))
_row("PUT", "/api/admin/reports/{report_id}", _ADMIN,
     Call(path={"report_id": World.fresh_report}, body={"status": "resolved"}))
# One file of a submission for the admin deciding on it (bad ids and content: tests/api/test_admin_reads_api.py).
_row("GET", "/api/admin/agent-files/{file_id}", _ADMIN, Call(path={"file_id": World.fresh_file}))
# Refunds: a buyer refunds only its own orders (another's is 404, as unknown); admins refund any and decide requests.
_row("POST", "/api/user/refunds", (401, 201, 404, 404, 404),
     Call(body=lambda w: {"orderId": w.fresh_paid_order(), "reason": "Not for me"}, payments=True))
_row("GET", "/api/admin/refunds", _ADMIN)
_row("POST", "/api/admin/refunds", (401, 403, 403, 403, 201),
     Call(body=lambda w: {"orderId": w.fresh_paid_order()}, payments=True))
_row("POST", "/api/admin/refunds/{refund_id}/approve", _ADMIN,
     Call(path={"refund_id": World.fresh_refund_request}, payments=True))
_row("POST", "/api/admin/refunds/{refund_id}/reject", _ADMIN,
     Call(path={"refund_id": World.fresh_refund_request}, payments=True, body={"reason": "No"}))
# License keys: the agent's vendor (and admins) manage its keys; the admin list and its actions are admins' only.
_row("GET", "/api/vendor/agents/{agent_id}/license-keys", (401, 403, 200, 403, 200))
_row("POST", "/api/vendor/license-keys/{key_id}/disable", (401, 403, 200, 403, 200),
     Call(path={"key_id": World.fresh_key}, body={"reason": "Shared on a forum"}))
_row("POST", "/api/vendor/license-keys/{key_id}/enable", (401, 403, 200, 403, 200),
     Call(path={"key_id": lambda w: w.fresh_key(disabled=True)}))
_row("GET", "/api/admin/license-keys", _ADMIN)
# Promotion codes: a vendor's for its own agents (another vendor's agent: 403; another vendor's code: 404; an
# admin on the vendor routes acts as a vendor with no codes of its own), an admin's for any or all agents.
_row("GET", "/api/vendor/promotion-codes", (401, 403, 200, 200, 200))
_row("POST", "/api/vendor/promotion-codes", (401, 403, 201, 403, 201),
     Call(body=lambda w: {"code": w.unique("VCODE"), "percentOff": 10, "agentIds": [w.agent_id]}))
_row("POST", "/api/vendor/promotion-codes/{code_id}/deactivate", (401, 403, 200, 404, 404),
     Call(path={"code_id": World.fresh_promotion_code}))
_row("GET", "/api/admin/promotion-codes", _ADMIN)
_row("POST", "/api/admin/promotion-codes", (401, 403, 403, 403, 201),
     Call(body=lambda w: {"code": w.unique("ACODE"), "percentOff": 10, "allAgents": True}))
_row("POST", "/api/admin/promotion-codes/{code_id}/deactivate", _ADMIN,
     Call(path={"code_id": World.fresh_promotion_code}))
_row("POST", "/api/admin/license-keys/{key_id}/disable", _ADMIN,
     Call(path={"key_id": World.fresh_key}, body={"reason": "Shared on a forum"}))
_row("POST", "/api/admin/license-keys/{key_id}/enable", _ADMIN,
     Call(path={"key_id": lambda w: w.fresh_key(disabled=True)}))
_row("DELETE", "/api/admin/reviews/{review_id}", (401, 403, 403, 403, 204),
     Call(path={"review_id": World.fresh_review}, body={"reason": "Off-topic"}))
_row("DELETE", "/api/admin/reviews/{review_id}/reply", (401, 403, 403, 403, 204),
     Call(path={"review_id": lambda w: w.fresh_review(reply=True)}, body={"reason": "Rude answer"}))
_row("DELETE", "/api/admin/users/{user_id}", (401, 403, 403, 403, 204),
     Call(path={"user_id": lambda w: factories.make_user().id}))

# ---- uploads and files -----------------------------------------------------------------------------------------
_row("POST", "/api/objects/upload", (401, 403, 200, 200, 200))
_row("GET", "/api/uploads/s3/params", (401, 403, 200, 200, 200))
_row("POST", "/api/uploads/s3/multipart", (401, 403, 200, 200, 200),
     Call(body={"filename": "agent.zip", "type": "application/zip"}))
_row("GET", "/api/uploads/s3/multipart/{upload_id}", (401, 403, 404, 404, 404), Call(query={"key": "uploads/x"}))
_row("GET", "/api/uploads/s3/multipart/{upload_id}/{part_number}", (401, 403, 404, 404, 404),
     Call(query={"key": "uploads/x"}))
_row("POST", "/api/uploads/s3/multipart/{upload_id}/complete", (401, 403, 404, 404, 404),
     Call(query={"key": "uploads/x"}, body={"parts": [{"PartNumber": 1, "ETag": "x"}]}))
_row("DELETE", "/api/uploads/s3/multipart/{upload_id}", (401, 403, 404, 404, 404), Call(query={"key": "uploads/x"}))
# The local storage backend's targets: authenticated by their signature only (like S3's presigned URLs), so every
# caller gets the same answer; no signature here -> 403.
_row("PUT", "/api/uploads/local/{key:path}", (403, 403, 403, 403, 403), Call(path={"key:path": "uploads/x"}))
_row("POST", "/api/uploads/local", (400, 400, 400, 400, 400))
# An admin acts as a vendor of its own; others' uploads and agents are refused to every other account.
_row("PUT", "/api/agent-files", (401, 403, 200, 403, 403),
     Call(body=lambda w: {"agentId": w.pending_agent_id, "agentFileURL": w.fresh_upload_url()}))
_row("DELETE", "/api/agent-files/{file_id}", (401, 403, 204, 403, 403), Call(path={"file_id": World.fresh_file}))

# ---- the API's own documents, and everything else under /api ---------------------------------------------------
_row("GET", "/api/openapi.json", (200, 200, 200, 200, 200))
_row("GET", "/api/docs", (200, 200, 200, 200, 200))
_row(ANY, "/api/docs-assets", (200, 200, 200, 200, 200), Call(path={"": "/swagger-ui.css"}))
# The catch-all, for every method: an unknown /api path is a JSON 404 for everyone (never the site's HTML page);
# tests/api/test_methods_and_paths.py sends it every method.
_row(ANY, "/api/{path:path}", (404, 404, 404, 404, 404))


def route_table() -> set[tuple[str, str]]:
    """(method, path) of every route the app serves under /api (mounts as method `*`), HEAD aside."""
    found = set()
    for context in iter_route_contexts(create_api().routes):
        path = context.path or ""
        if not path.startswith("/api"):
            continue
        for method in (context.methods or {ANY}) - {"HEAD"}:
            found.add((method, path))
    return found


def test_every_route_has_a_row():
    routes = route_table()
    assert sorted(routes - set(TABLE)) == [], "new routes: add their rows to TABLE"
    assert sorted(set(TABLE) - routes) == [], "rows for routes that are gone"


# ---- running the table ------------------------------------------------------------------------------------------


@pytest.fixture
def _empty_tables() -> Iterator[None]:
    """The module shares its rows across tests (see `world`), so the per-test emptying is off here."""
    yield


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    empty_database()
    vendor = factories.make_vendor("matrix-vendor")
    factories.put_on_plan(vendor, "pro")  # room for the agents the rows below submit
    customer = factories.make_user("matrix-customer")
    category = factories.make_category()
    agent = factories.make_agent(vendor, category=category, demo_url="https://demo.example.com")
    factories.store_agent_file(agent)
    factories.make_purchase(customer, agent)
    free = factories.make_agent(vendor, price_cents=0, category=category)
    factories.store_agent_file(free)
    pending = factories.make_agent(vendor, status=AgentStatus.PENDING, category=category)
    factories.make_user("signin-only")
    yield World(customer=customer, vendor=vendor, other_vendor=factories.make_vendor("matrix-other"),
                admin=factories.make_admin("matrix-admin"), category_id=category.id, category_slug=category.slug,
                agent_id=agent.id, free_agent_id=free.id, pending_agent_id=pending.id,
                notification_id=factories.make_notification(vendor).id,
                subscription_id=factories.make_subscription(
                    factories.make_agent(vendor), customer, status="canceled", ended_at=factories.ago(days=1)).id)
    empty_database()


@pytest.fixture(scope="module")
def browser() -> Iterator[TestClient]:
    with TestClient(create_api(), base_url=BASE_URL, follow_redirects=False) as test_client:
        yield test_client


def _actor(world: World, role: str, call: Call) -> User | None:
    user = world.user(role)
    if user is None or not call.own_account:
        return user
    fresh = {"customer": Role.USER, "vendor": Role.VENDOR, "other_vendor": Role.VENDOR, "admin": Role.ADMIN}[role]
    return factories.make_user(world.unique(f"own-{role}-"), role=fresh)


def _url(method: str, path: str, call: Call, world: World) -> str:
    if method == ANY:
        path += call.path.get("", "")
    values = {**DEFAULT_PATH, **call.path}

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)  # `{key:path}` may have its own entry, else the plain name's
        return str(_v(values.get(name, values.get(name.split(":")[0])), world))

    return re.sub(r"\{([^}]+)\}", fill, path)


def _status(browser: TestClient, world: World, method: str, path: str, call: Call, role: str) -> tuple[int, str]:
    actor = _actor(world, role, call)
    headers = {"Origin": BASE_URL}
    if actor is not None:
        headers["Cookie"] = f"{SESSION_COOKIE}={auth.create_session(user=actor)}"
    browser.cookies.clear()
    world.caller = actor
    body = _v(call.body, world)
    response = browser.request("GET" if method == ANY else method, _url(method, path, call, world),
                               params=_v(call.query, world), json=body, headers=headers)
    return response.status_code, response.text[:120]


@pytest.mark.parametrize(("method", "path"), sorted(TABLE), ids=[f"{m} {p}" for m, p in sorted(TABLE)])
def test_each_role_gets_its_status(request, browser, world, method, path):
    expected, call = TABLE[(method, path)]
    if call.payments:
        request.getfixturevalue("stripe_standin")
    if call.demo:
        request.getfixturevalue("demo_mode")
    answers = [_status(browser, world, method, path, call, role) for role in ROLES]
    got = tuple(status for status, _ in answers)
    assert got == expected, f"{method} {path}: got {dict(zip(ROLES, answers, strict=True))}"
