"""Test data builders: one place for users, categories, agents, orders, purchases, notifications and applications.

Plain functions that write through the app's session and return the row. Defaults make a valid row; every
field a test cares about is a keyword. Passwords are hashed once per distinct password (argon2 is slow on
purpose), so building many users stays cheap.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from decimal import Decimal
from functools import lru_cache
from typing import TypeVar

import stripe
from sqlmodel import delete, select

from marketplace import db
from marketplace.models import (
    Agent,
    AgentFile,
    AgentRevision,
    AgentStatus,
    AgentTag,
    ApplicationStatus,
    BillingCustomer,
    Category,
    FileScan,
    Notification,
    NotificationType,
    Order,
    OrderStatus,
    PlanPayment,
    PromotionCode,
    PromotionCodeAgent,
    Purchase,
    Role,
    Upload,
    UploadMethod,
    User,
    VendorApplication,
    VendorPlan,
    WebhookEndpoint,
)
from marketplace.models.base import new_id, utcnow
from marketplace.services import auth, licenses, money

PASSWORD = "secret123"
_numbers = itertools.count(1)


def _n() -> int:
    return next(_numbers)


@lru_cache(maxsize=8)
def _hash(password: str) -> str:
    # In a worker thread: a browser test's sync Playwright runs an event loop in this thread, and hashing refuses
    # to run on one (services/auth.py).
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(auth.hash_password, password).result()


Row = TypeVar("Row")


def _save(row: Row) -> Row:
    with db.session_scope() as session:
        session.add(row)
    return row


def make_user(
    username: str | None = None,
    *,
    role: str = Role.USER,
    vendor_approved: bool | None = None,
    email: str | None = None,
    password: str = PASSWORD,
    verified: bool = True,
    **fields: object,
) -> User:
    """A user; a vendor is approved unless `vendor_approved=False`; the e-mail is confirmed unless
    `verified=False`."""
    username = username or f"user{_n()}"
    approved = (role == Role.VENDOR) if vendor_approved is None else vendor_approved
    return _save(User(username=username, email=email or f"{username}@example.com", password_hash=_hash(password),
                      role=role, is_vendor_approved=approved, email_verified_at=utcnow() if verified else None,
                      **fields))


def make_vendor(username: str | None = None, **fields: object) -> User:
    return make_user(username or f"vendor{_n()}", role=Role.VENDOR, **fields)


def make_admin(username: str | None = None, **fields: object) -> User:
    return make_user(username or f"admin{_n()}", role=Role.ADMIN, **fields)


def make_category(name: str | None = None, *, slug: str | None = None, **fields: object) -> Category:
    n = _n()
    name = name or f"Category {n}"
    return _save(Category(name=name, slug=slug or f"{name.lower().replace(' ', '-')}-{n}", **fields))


def make_agent(
    vendor: User | None = None,
    name: str | None = None,
    *,
    status: str = AgentStatus.APPROVED,
    price_cents: int = 2999,
    category: Category | None = None,
    created_at: datetime | None = None,
    reviewed_at: datetime | None = None,
    tags: list[str] | tuple[str, ...] = (),
    files: int = 0,
    ratings: tuple[int, ...] = (),
    **fields: object,
) -> Agent:
    """An agent; `tags` become its tag rows, `files` that many attached files, `ratings` its review totals.
    Any other column is a keyword and wins over the defaults."""
    created = created_at or utcnow()
    values: dict[str, object] = {
        "name": name or f"Agent {_n()}", "short_description": "Short", "description": "Long text",
        "vendor_id": vendor.id if vendor else None, "status": status, "price_cents": price_cents,
        "category_id": category.id if category else None, "created_at": created, "updated_at": created,
        "reviewed_at": reviewed_at,
    }
    if ratings:
        values.update(rating_sum=sum(ratings), review_count=len(ratings), avg_rating=sum(ratings) / len(ratings))
    agent = Agent(**{**values, **fields})
    with db.session_scope() as session:
        session.add(agent)
        session.flush()
        for position, tag in enumerate(tags):
            session.add(AgentTag(agent_id=agent.id, tag=tag, position=position))
        for n in range(files):
            session.add(AgentFile(agent_id=agent.id, storage_key=f"agents/{agent.id}/{n}.zip", filename=f"{n}.zip"))
            session.add(clean_scan(f"agents/{agent.id}/{n}.zip"))
    return agent


def clean_scan(key: str, *, status: str = "clean", findings: str = "[]") -> FileScan:
    """The verdict of a stored object, as the scanner writes it (factories' files are clean unless told)."""
    return FileScan(storage_key=key, status=status, findings=findings, due_at=None,
                    scanned_at=utcnow() if status != "pending" else None)


def make_purchase(user: User, agent: Agent, *, price_cents: int | None = None) -> Purchase:
    """A completed purchase of `agent` by `user`, with the order it came from."""
    price = agent.price_cents if price_cents is None else price_cents
    with db.session_scope() as session:
        order = Order(user_id=user.id, agent_id=agent.id, vendor_id=agent.vendor_id, agent_name=agent.name,
                      total_amount_cents=price, original_price_usd_cents=price, commission_rate=20,
                      payment_intent_id=f"pi_{agent.id}_{user.id}")
        session.add(order)
        session.flush()
        purchase = Purchase(user_id=user.id, agent_id=agent.id, order_id=order.id, purchase_price_cents=price)
        session.add(purchase)
        session.flush()
        licenses.ensure_key(session, purchase=purchase)
    return purchase


def make_buyer(agent: Agent, username: str | None = None, **fields: object) -> User:
    """A customer who bought `agent` (a completed order and the purchase it gives): who may review it."""
    user = make_user(username, **fields)
    make_purchase(user, agent)
    return user


def make_order(
    agent: Agent,
    buyer: User | None = None,
    *,
    currency: str = "usd",
    amount_cents: int | None = None,
    commission_rate: Decimal | str | int = Decimal("20.00"),
    split: bool = True,
    exchange_rate: Decimal | str = Decimal("1"),
    status: str = OrderStatus.COMPLETED,
    created_at: datetime | None = None,
    **fields: object,
) -> Order:
    """A sale of `agent`, priced and split the way checkout does it: the agent's USD price converted at
    `exchange_rate` (unless `amount_cents` is given), fee half-up at `commission_rate`, vendor gets the rest."""
    rate = Decimal(str(exchange_rate))
    commission = Decimal(str(commission_rate))
    usd = agent.price_cents
    amount = amount_cents if amount_cents is not None else (usd if currency == "usd" else
                                                            money.convert_from_usd(usd, rate))
    vendor_cents, fee = money.split(amount, commission)
    return _save(Order(
        user_id=buyer.id if buyer else None, agent_id=agent.id, vendor_id=agent.vendor_id, agent_name=agent.name,
        customer_email=buyer.email if buyer else f"guest{_n()}@example.com", status=status, currency=currency,
        total_amount_cents=amount, original_price_usd_cents=usd, exchange_rate=rate, commission_rate=commission,
        commission_split_enabled=split, vendor_amount_cents=vendor_cents, platform_fee_cents=fee,
        split_block_reason=None if split else "Vendor has not connected a Stripe account",
        payment_intent_id=f"pi_test_{_n()}", created_at=created_at or utcnow(), **fields,
    ))


def make_notification(
    user: User, *, type: str = NotificationType.OTHER, title: str = "Hello", message: str = "Message",
    is_read: bool = False, created_at: datetime | None = None,
) -> Notification:
    return _save(Notification(user_id=user.id, type=type, title=title, message=message, is_read=is_read,
                              created_at=created_at or utcnow()))


def make_application(
    user: User, *, business_name: str | None = None, status: str = ApplicationStatus.PENDING,
    created_at: datetime | None = None, **fields: object,
) -> VendorApplication:
    return _save(VendorApplication(user_id=user.id, business_name=business_name or f"Business {_n()}",
                                   status=status, created_at=created_at or utcnow(), **fields))


def ago(**delta: float) -> datetime:
    """A moment in the past: ago(days=3)."""
    return utcnow() - timedelta(**delta)


def make_upload(
    vendor: User,
    data: bytes | None = b"print('hello')\n",
    *,
    filename: str = "agent.py",
    method: str = UploadMethod.PUT,
    expires_at: datetime | None = None,
    **fields: object,
) -> Upload:
    """An upload the app issued to `vendor`, with `data` already stored under its key (None: nothing stored)."""
    from marketplace.integrations.storage import get_storage

    key = f"uploads/{new_id()}"
    if data is not None:
        get_storage().put(key, data)
    return _save(Upload(key=key, vendor_id=vendor.id, method=method, filename=filename,
                        expires_at=expires_at or utcnow() + timedelta(hours=1), **fields))


def upload_url(upload: Upload) -> str:
    """The URL a browser reports for a finished local upload (what `PUT /api/agent-files` receives)."""
    return f"http://localhost:3000/api/uploads/local/{upload.key}"


# Imports of the admin helpers below, kept with them (the file is shared by several branches).
from marketplace.models import Report  # noqa: E402
from marketplace.services import views  # noqa: E402


def make_report(
    agent: Agent, user: User | None = None, *, report_type: str = "broken", reason: str = "It fails",
    description: str | None = None, status: str = "pending", created_at: datetime | None = None,
) -> Report:
    """A customer report of `agent` (by a new customer unless `user` is given)."""
    return _save(Report(agent_id=agent.id, user_id=(user or make_user()).id, report_type=report_type, reason=reason,
                        description=description, status=status, created_at=created_at or utcnow()))


def make_views(agent: Agent, visitors: int) -> Agent:
    """`visitors` distinct page views of `agent` today, counted the way the agent page counts them."""
    for n in range(visitors):
        assert views.record_view(agent_id=agent.id, visitor=f"visitor-{agent.id}-{n}")
    agent.view_count += visitors
    return agent


def store_agent_file(agent: Agent, data: bytes = b"hello\n", *, filename: str = "readme.txt",
                     scan: str | None = "clean") -> AgentFile:
    """A file of the agent's current version with `data` really stored, so downloads can be checked; its scan
    has the verdict `scan` (None: queued, as an attach leaves it)."""
    from marketplace.integrations.storage import get_storage
    from marketplace.services import scanning

    key = f"agents/{agent.id}/{new_id()}/{filename}"
    get_storage().put(key, data)
    row = AgentFile(agent_id=agent.id, version=agent.current_version, storage_key=key, filename=filename,
                    size_bytes=len(data))
    with db.session_scope() as session:  # the file and its scan in one transaction, as an attach writes them
        session.add(row)
        if scan is None:
            scanning.enqueue(session, [key])
        else:
            session.add(clean_scan(key, status=scan))
    return row


def audit_actions() -> list[tuple[str, str, str]]:
    """(action, target type, target id) of every audit entry, oldest first."""
    from sqlmodel import select

    from marketplace.models import AuditEntry

    with db.session_scope() as session:
        rows = session.exec(select(AuditEntry).order_by(AuditEntry.created_at, AuditEntry.id)).all()
        return [(r.action, r.target_type, r.target_id) for r in rows]


# Money over time: subscriptions and refunds (revision 0017).
from marketplace.models import Refund, RefundSource, RefundStatus, Subscription, SubscriptionStatus  # noqa: E402


def make_subscription(
    agent: Agent, buyer: User, *, status: str = SubscriptionStatus.ACTIVE, price_cents: int | None = None,
    currency: str = "usd", commission_rate: Decimal | str | int = Decimal("20.00"), split: bool = True,
    current_period_end: datetime | None = None, access_until: datetime | None = None,
    created_at: datetime | None = None, **fields: object,
) -> Subscription:
    """A subscription of `buyer` to `agent` with the purchase it gives (access until the period's end unless
    `access_until` says otherwise), as the first paid invoice leaves them; no order is made."""
    end = current_period_end or utcnow() + timedelta(days=30)
    price = agent.price_cents if price_cents is None else price_cents
    with db.session_scope() as session:
        subscription = Subscription(
            user_id=buyer.id, agent_id=agent.id, vendor_id=agent.vendor_id, agent_name=agent.name,
            stripe_subscription_id=f"sub_test_{_n()}", stripe_customer_id=f"cus_test_{buyer.id}",
            status=status, price_cents=price, currency=currency, original_price_usd_cents=agent.price_cents,
            commission_rate=Decimal(str(commission_rate)), commission_split_enabled=split,
            current_period_end=end, created_at=created_at or utcnow(), **fields)
        session.add(subscription)
        session.flush()
        purchase = Purchase(user_id=buyer.id, agent_id=agent.id, purchase_price_cents=price, currency=currency,
                            subscription_id=subscription.id, access_until=access_until or end)
        session.add(purchase)
        session.flush()
        licenses.ensure_key(session, purchase=purchase)
    return subscription


def make_refund(
    order: Order, *, status: str = RefundStatus.SUCCEEDED, source: str = RefundSource.CUSTOMER,
    reason: str = "Not what I needed", created_at: datetime | None = None, **fields: object,
) -> Refund:
    """A refund row for `order` (the order itself is left as it is)."""
    return _save(Refund(order_id=order.id, user_id=order.user_id, requested_by_id=order.user_id, source=source,
                        status=status, reason=reason, amount_cents=order.total_amount_cents, currency=order.currency,
                        created_at=created_at or utcnow(), **fields))


# Refunds (issue 18): an order paid for real at the Stripe stand-in, so refunding it moves real (test) money.
def make_paid_order(stripe_client, agent: Agent, buyer: User, *, created_at: datetime | None = None,
                    **fields: object) -> Order:
    """A completed order of `agent` by `buyer` whose PaymentIntent succeeded at the stand-in (a destination
    charge with the platform's fee when the vendor has a connected account), and the licence it bought."""
    with db.session_scope() as session:
        account = session.get(User, agent.vendor_id).stripe_account_id if agent.vendor_id else None
    amount = agent.price_cents
    _, fee = money.split(amount, Decimal("20.00"))
    params: dict[str, object] = {"amount": amount, "currency": "usd", "metadata": {"agentId": agent.id}}
    if account:
        params |= {"application_fee_amount": fee, "transfer_data": {"destination": account}}
    intent = stripe_client.v1.payment_intents.create(params=params)
    assert stripe_client.v1.payment_intents.confirm(
        intent.id, params={"payment_method": "pm_card_visa"}).status == "succeeded"
    order = make_order(agent, buyer, split=bool(account), created_at=created_at, **fields)
    with db.session_scope() as session:
        order = session.get(Order, order.id)
        order.payment_intent_id = intent.id
        session.add(order)
    if not fields.get("subscription_id"):
        with db.session_scope() as session:
            purchase = Purchase(user_id=buyer.id, agent_id=agent.id, order_id=order.id, purchase_price_cents=amount)
            session.add(purchase)
            session.flush()
            licenses.ensure_key(session, purchase=purchase)
    return order


# Saved cards (issue 32): a card attached to the user's Stripe Customer at the stand-in.
def make_saved_card(stripe_client, user: User, *, number: str = "4242424242424242", exp_year: int = 2034) -> str:
    """A card of `user` in Stripe (their Customer made, or re-made when the stand-in was reset since), as a
    SetupIntent confirmed in the browser leaves it: attached, not the default. Answers its id."""
    with db.session_scope() as session:
        row = session.get(BillingCustomer, user.id)
        customer_id = row.stripe_customer_id if row is not None else None
    if customer_id is not None:
        try:
            stripe_client.v1.customers.retrieve(customer_id)
        except stripe.InvalidRequestError:
            customer_id = None
    if customer_id is None:
        customer_id = stripe_client.v1.customers.create(params={"email": user.email}).id
        with db.session_scope() as session:
            session.merge(BillingCustomer(user_id=user.id, stripe_customer_id=customer_id))
    card = stripe_client.v1.payment_methods.create(params={"type": "card", "card": {
        "number": number, "exp_month": 12, "exp_year": exp_year, "cvc": "123"}})
    stripe_client.v1.payment_methods.attach(card.id, params={"customer": customer_id})
    return str(card.id)


def put_on_plan(vendor: User, plan_id: str, **fields: object) -> VendorPlan:
    """The vendor's plan row (made or replaced), as if it had subscribed: no Stripe subscription unless given."""
    with db.session_scope() as session:
        row = session.merge(VendorPlan(user_id=vendor.id, plan_id=plan_id, **fields))
        session.flush()
        session.expunge(row)
        return row


def make_plan_payment(vendor: User, plan_id: str, amount_cents: int, *, reason: str = "subscription_cycle"
                      ) -> PlanPayment:
    """A paid invoice of the vendor's plan subscription (the admin's plan revenue)."""
    return _save(PlanPayment(invoice_id=f"in_{new_id()}", user_id=vendor.id, plan_id=plan_id,
                             amount_cents=amount_cents, billing_reason=reason))


# Reviews from buyers (issue 33): a review is posted by a customer who bought the agent.
from marketplace.models import Review  # noqa: E402
from marketplace.services import reviews as review_service  # noqa: E402


def make_review(agent: Agent, author: User | None = None, *, rating: int = 5, comment: str = "Useful",
                reply: str | None = None) -> Review:
    """A review of `agent` posted through the service (the agent's totals kept), by `author` or a new buyer;
    with the vendor's answer when `reply` is given."""
    author = author or make_buyer(agent)
    saved = review_service.submit_review(actor=author, agent_id=agent.id, rating=rating, comment=comment)
    with db.session_scope() as session:
        review = session.get(Review, saved.review.id)
        assert review is not None
        if reply is not None:
            review.vendor_reply, review.vendor_reply_at, review.vendor_reply_updated_at = reply, utcnow(), utcnow()
            session.add(review)
        session.flush()
        session.expunge(review)
    return review


def label_revision(agent: Agent, label: str = "1.1.0", notes: str = "Fixes and improvements.") -> AgentRevision:
    """The version label and release notes of the agent's pending revision, as its vendor's edit sets them."""
    with db.session_scope() as session:
        revision = session.exec(select(AgentRevision).where(AgentRevision.agent_id == agent.id,
                                                            AgentRevision.status == "pending")).one()
        revision.version_label, revision.release_notes = label, notes
        session.add(revision)
        session.flush()
        session.expunge(revision)
    return revision


def publish_version(agent: Agent, admin: User, label: str, notes: str = "Changes.",
                    files: dict[str, bytes] | None = None) -> AgentFile:
    """A new version of the live agent with `files` (really stored, scanned clean) in place of the live ones, with
    its label and notes, approved by `admin`; answers the new version's first file row."""
    from marketplace.integrations.storage import get_storage
    from marketplace.services.admin import moderation
    from marketplace.services.vendors import revisions

    files = files or {"agent.py": label.encode()}
    with db.session_scope() as session:
        live = session.get(Agent, agent.id)
        revision = revisions.open_revision(session, live, vendor_id=live.vendor_id)
        session.exec(delete(AgentFile).where(AgentFile.agent_id == agent.id, AgentFile.version == revision.version))
        rows = []
        for name, data in files.items():
            key = f"agents/{agent.id}/{new_id()}/{name}"
            get_storage().put(key, data)
            rows.append(AgentFile(agent_id=agent.id, version=revision.version, storage_key=key, filename=name,
                                  size_bytes=len(data)))
            session.add(rows[-1])
            session.add(clean_scan(key))
        revision.files_changed, revision.version_label, revision.release_notes = True, label, notes
        session.add(revision)
        session.flush()
        for row in rows:
            session.expunge(row)
    moderation.approve(actor=admin, agent_id=agent.id)
    return rows[0]


def make_promotion_code(
    agents: list[Agent] | tuple[Agent, ...] = (),
    *,
    code: str | None = None,
    vendor: User | None = None,
    percent_off: int | None = None,
    amount_off_cents: int | None = None,
    all_agents: bool = False,
    **fields: object,
) -> PromotionCode:
    """A promotion code written directly (past expiries and used counts included); 10% off unless an amount is
    given; a vendor's code when `vendor` is given, else an admin's."""
    if percent_off is None and amount_off_cents is None:
        percent_off = 10
    row = PromotionCode(code=(code or f"CODE{_n()}").upper(), percent_off=percent_off,
                        amount_off_cents=amount_off_cents, all_agents=all_agents,
                        vendor_id=vendor.id if vendor else None, **fields)
    with db.session_scope() as session:
        session.add(row)
        session.flush()
        session.add_all(PromotionCodeAgent(code_id=row.id, agent_id=a.id) for a in agents)
    return row


WEBHOOK_SECRET = "whsec_test_secret"


def make_webhook_endpoint(vendor: User, *, url: str = "https://hooks.example.com/agentmarket",
                          events: tuple[str, ...] = ("sale.completed",), secret: str = WEBHOOK_SECRET,
                          **fields: object) -> WebhookEndpoint:
    """A vendor's webhook endpoint, written as is (no URL rule applied: tests point it where they need)."""
    return _save(WebhookEndpoint(vendor_id=vendor.id, url=url, events=",".join(events), secret=secret, **fields))
