"""Demo data: categories, accounts, 26 approved agents with files, sales and reviews. Idempotent."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from sqlmodel import Session, col, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import Storage, get_storage
from marketplace.models import (
    Agent,
    AgentFile,
    AgentStatus,
    AgentTag,
    AgentVersion,
    Category,
    Notification,
    NotificationType,
    Order,
    PricingModel,
    PromotionCode,
    PromotionCodeAgent,
    Purchase,
    Review,
    Role,
    User,
    VendorApplication,
    VendorPlan,
)
from marketplace.models.base import utcnow
from marketplace.services import audit, demo_images, licenses, mail, money, plans, platform, purchases, scanning
from marketplace.services.auth import hash_password
from marketplace.services.errors import NotFound
from marketplace.services.mail import CaughtMail
from marketplace.services.permissions import require_admin
from marketplace.services.versions import labels

CATEGORIES = [
    ("content-creation", "Content Creation", "✍️", "Agents that write, edit and repurpose content."),
    ("business-automation", "Business Automation", "⚙️", "Automate workflows, paperwork and operations."),
    ("data-analysis", "Data Analysis", "📊", "Turn raw data into insight, charts and reports."),
    ("customer-support", "Customer Support", "💬", "Answer customers around the clock."),
    ("marketing", "Marketing", "📣", "Campaigns, ads, SEO and social media on autopilot."),
    ("development-tools", "Development Tools", "🛠️", "Code review, testing and developer productivity."),
    ("productivity", "Productivity", "⏱️", "Personal assistants for focus, notes and scheduling."),
    ("development", "Development", "💻", "Agents that build, ship and maintain software."),
    ("ai-assistance", "AI Assistance", "🧠", "General-purpose assistants and copilots."),
    ("automation", "Automation", "🤖", "Glue agents that connect your tools together."),
]


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    email: str
    first_name: str
    last_name: str
    role: str


DEMO_ACCOUNTS = [
    DemoAccount("admin", "admin123", "admin@agentmarket.test", "Ada", "Admin", Role.ADMIN),
    DemoAccount("vendor", "vendor123", "vendor@agentmarket.test", "Victor", "Vendor", Role.VENDOR),
    DemoAccount("customer", "customer123", "customer@agentmarket.test", "Carla", "Customer", Role.USER),
]
REVIEWERS = [("maria", "Maria", "Lopez"), ("kenji", "Kenji", "Sato"), ("amara", "Amara", "Okafor"),
             ("lukas", "Lukas", "Berg"), ("priya", "Priya", "Shah")]
SECOND_VENDOR = DemoAccount("nova_labs", "vendor123", "nova@agentmarket.test", "Nova", "Labs", Role.VENDOR)

# name, category slug, price, featured, tags, short description
AGENTS: list[tuple[str, str, str, bool, list[str], str]] = [
    ("BlogSmith", "content-creation", "29.99", True, ["writing", "seo", "chatgpt"],
     "Long-form blog posts researched, outlined and written in your voice."),
    ("Caption Genie", "content-creation", "0", False, ["writing", "social-media"],
     "Catchy captions for every social network, free forever."),
    ("Newsletter Navigator", "content-creation", "14.99", False, ["writing", "email", "productivity"],
     "Weekly newsletters drafted from your links and notes."),
    ("InvoiceFlow", "business-automation", "49.00", True, ["automation", "finance", "productivity"],
     "Reads invoices, matches purchase orders and books them in your ledger."),
    ("Contract Clerk", "business-automation", "79.00", False, ["automation", "legal"],
     "Extracts terms, deadlines and risks from contracts."),
    ("HR Onboarder", "business-automation", "35.00", False, ["automation", "hr"],
     "Runs new-hire checklists, accounts and welcome e-mails."),
    ("InsightLens", "data-analysis", "59.99", True, ["analytics", "data", "chatgpt"],
     "Ask questions of your spreadsheets in plain English."),
    ("Churn Oracle", "data-analysis", "120.00", False, ["analytics", "prediction"],
     "Predicts which customers are about to leave, and why."),
    ("Dashboard Builder", "data-analysis", "9.99", False, ["analytics", "visualization"],
     "Turns a CSV into a shareable dashboard in one minute."),
    ("SupportPilot", "customer-support", "39.00", True, ["support", "chatgpt", "automation"],
     "Answers tickets from your help centre with cited sources."),
    ("Refund Resolver", "customer-support", "19.00", False, ["support", "e-commerce"],
     "Handles refund and return requests end to end."),
    ("Live Chat Buddy", "customer-support", "0", False, ["support", "chat"],
     "A friendly website chat widget that never sleeps."),
    ("AdCraft", "marketing", "45.00", True, ["marketing", "ads", "writing"],
     "Writes and A/B tests ad copy across Google and Meta."),
    ("SEO Scout", "marketing", "25.00", False, ["seo", "marketing", "analytics"],
     "Finds keyword gaps and writes briefs that rank."),
    ("Social Scheduler", "marketing", "12.00", False, ["social-media", "automation", "productivity"],
     "Plans a month of posts and publishes them on time."),
    ("CodeReviewer Pro", "development-tools", "69.00", True, ["development", "code-review", "chatgpt"],
     "Reviews every pull request for bugs, style and security issues."),
    ("Test Writer", "development-tools", "29.00", False, ["development", "testing"],
     "Generates unit tests that actually fail when your code breaks."),
    ("Log Detective", "development-tools", "0", False, ["development", "debugging", "analytics"],
     "Explains stack traces and noisy logs in plain words."),
    ("Inbox Zero", "productivity", "7.99", False, ["productivity", "email", "automation"],
     "Triages your inbox and drafts the replies you would write."),
    ("Meeting Minutes", "productivity", "15.00", False, ["productivity", "transcription", "writing"],
     "Summaries, decisions and action items from every call."),
    ("API Architect", "development", "99.00", False, ["development", "api", "documentation"],
     "Designs REST APIs and writes their OpenAPI documents."),
    ("Migration Mate", "development", "150.00", False, ["development", "database"],
     "Plans and checks database migrations before they hit production."),
    ("Research Assistant", "ai-assistance", "19.99", False, ["research", "chatgpt", "writing"],
     "Reads papers and web pages, and answers with citations."),
    ("Travel Planner", "ai-assistance", "0", False, ["travel", "productivity"],
     "Builds day-by-day itineraries within your budget."),
    ("Zap Weaver", "automation", "24.00", False, ["automation", "integration", "productivity"],
     "Connects your apps with reliable, monitored workflows."),
    ("Report Robot", "automation", "55.00", False, ["automation", "analytics", "reporting"],
     "Sends the weekly KPI report, every Monday at nine."),
]
REVIEW_LINES = [
    (5, "Saved me hours every week. Setup took five minutes."),
    (5, "Exactly what the description promised. Great support from the vendor."),
    (4, "Very good overall, a few rough edges in the settings."),
    (4, "Solid agent, does the job well."),
    (3, "Works, but needed more configuration than expected."),
]


def _demo_files(agent: Agent, tags: list[str]) -> dict[str, bytes]:
    config = {"name": agent.name, "version": "1.0.0", "entrypoint": "agent.py", "tags": tags}
    return {
        "README.md": (
            f"# {agent.name}\n\n{agent.short_description}\n\n## Installation\n\n"
            "1. Unzip this archive.\n2. `pip install -r requirements.txt`\n3. `python agent.py --help`\n"
        ).encode(),
        "agent.json": json.dumps(config, indent=2).encode(),
        "agent.py": (
            f'"""{agent.name}: demo agent entry point."""\n\n'
            "def run(task: str) -> str:\n"
            f"    return f\"{agent.name} received: {{task}}\"\n\n"
            'if __name__ == "__main__":\n    print(run("hello"))\n'
        ).encode(),
    }


def _ensure_user(session: Session, account: DemoAccount) -> User:
    user = session.exec(select(User).where(User.username == account.username)).first()
    if user is None:
        user = User(
            username=account.username, email=account.email, password_hash=hash_password(account.password),
            first_name=account.first_name, last_name=account.last_name, role=account.role,
            is_vendor_approved=account.role in (Role.VENDOR, Role.ADMIN),
        )
        session.add(user)
        session.flush()
    if user.email_verified_at is None and user.email == account.email:
        user.email_verified_at = utcnow()  # demo accounts count as confirmed (no banner, provider linking works)
        session.add(user)
    return user


def _ensure_categories(session: Session) -> dict[str, Category]:
    existing = {c.slug: c for c in session.exec(select(Category)).all()}
    for order, (slug, name, emoji, description) in enumerate(CATEGORIES):
        if slug not in existing:
            existing[slug] = Category(slug=slug, name=name, emoji=emoji, description=description, sort_order=order)
            session.add(existing[slug])
    session.flush()
    return existing


# Sold as one-time licences (paid once, a year of updates); every other paid agent is a monthly subscription, so
# the catalogue, the vendor's list and checkout show both labels. Both demo vendors have some of each.
ONE_TIME_AGENTS = frozenset({"InvoiceFlow", "Contract Clerk", "Churn Oracle", "Dashboard Builder", "Test Writer",
                             "API Architect", "Migration Mate", "Crypto Signal Bot"})

# Agents of the demo vendor that wait for or failed review: name, category slug, price, days since submitted,
# rejection reason (None: still pending).
REVIEW_AGENTS: list[tuple[str, str, str, int, str | None]] = [
    ("Pitch Deck Polisher", "marketing", "22.00", 2, None),
    ("Crypto Signal Bot", "data-analysis", "89.00", 9,
     "Agents that give financial signals need a risk disclaimer and a compliance statement. Please add both to "
     "the description and resubmit."),
]
PENDING_APPLICANT = ("amara", "Okafor Analytics", "Dashboards and forecasting agents for small retailers.",
                     "https://okafor-analytics.example")
EUR_BUYER = "lukas"  # pays in euros, so the vendor's sales show converted amounts
DEMO_EUR_RATE = Decimal("0.9200")
SPLIT_SINCE_DAYS = 75  # the demo vendor connected Stripe then: older sales were direct payments
HISTORY_DAYS = 330


def seed(*, loaded_by: User | None = None) -> None:
    """Load the demo data; running it again adds only what is missing. A load someone asked for (`loaded_by`)
    is written to the audit log with it, in its transaction."""
    platform.ensure_defaults()
    plans.ensure_plans()
    storage = get_storage()
    rng = random.Random(42)
    with session_scope() as session:
        if loaded_by is not None:
            audit.record(session, actor=loaded_by, action="demo.load_data", target_type="platform")
        categories = _ensure_categories(session)
        accounts = {a.username: _ensure_user(session, a) for a in [*DEMO_ACCOUNTS, SECOND_VENDOR]}
        reviewers = [
            _ensure_user(session, DemoAccount(u, "customer123", f"{u}@agentmarket.test", f, last, Role.USER))
            for u, f, last in REVIEWERS
        ]
        vendors = [accounts["vendor"], accounts["nova_labs"]]
        now = utcnow()
        _add_missing_pictures(session, vendor_ids=[v.id for v in vendors])
        for index, (name, slug, price, featured, tags, short) in enumerate(AGENTS):
            if session.exec(select(Agent.id).where(Agent.name == name)).first():
                continue
            created = now - timedelta(days=HISTORY_DAYS - index * 12, hours=index)
            agent = _demo_agent(session, storage, vendor=vendors[index % 2], category=categories[slug], name=name,
                                short=short, price=price, tags=tags, created=created, featured=featured,
                                demo=index % 3 == 0, status=AgentStatus.APPROVED)
            _demo_sales(session, agent, rng.sample(reviewers, rng.randint(0, len(reviewers))), rng, created,
                        connected=agent.vendor_id == accounts["vendor"].id)
        for name, slug, price, days, reason in REVIEW_AGENTS:
            if session.exec(select(Agent.id).where(Agent.name == name)).first():
                continue
            submitted = now - timedelta(days=days)
            agent = _demo_agent(session, storage, vendor=accounts["vendor"], category=categories[slug], name=name,
                                short=f"{name}: submitted by the demo vendor.", price=price, tags=["demo"],
                                created=submitted, featured=False, demo=False,
                                status=AgentStatus.REJECTED if reason else AgentStatus.PENDING)
            if reason:
                agent.rejection_reason, agent.reviewed_at = reason, submitted + timedelta(hours=20)
                session.add(agent)
        _demo_notifications(session, accounts["vendor"], now)
        _demo_second_version(session, storage, now)
        _demo_plans(session, accounts["vendor"])
        _demo_offers(session, accounts["vendor"])
        _pending_application(session, {u.username: u for u in reviewers}[PENDING_APPLICANT[0]], now)


DEMO_VENDOR_PLAN = "pro"
# What a visitor trying the app can use: a monthly agent with a free trial and a code for one-time agents, both
# the demo vendor's (its Promotion Codes list shows the code).
DEMO_TRIAL = ("Research Assistant", 7)
DEMO_CODE = "WELCOME20"
DEMO_CODE_PERCENT = 20
DEMO_CODE_AGENTS = ("Test Writer", "Contract Clerk")


def _demo_offers(session: Session, vendor: User) -> None:
    """The trial and the code, made once: when the code exists (whatever became of it), nothing is changed, so
    the vendor's own later edits (trial days, deactivating the code) survive a second load."""
    if session.exec(select(PromotionCode.id).where(PromotionCode.code == DEMO_CODE)).first() is not None:
        return
    name, days = DEMO_TRIAL
    monthly = session.exec(select(Agent).where(Agent.name == name, Agent.vendor_id == vendor.id,
                                               Agent.pricing_model == PricingModel.MONTHLY)).first()
    if monthly is not None and monthly.trial_days == 0:
        monthly.trial_days = days
        session.add(monthly)
    agent_ids = session.exec(select(Agent.id).where(col(Agent.name).in_(DEMO_CODE_AGENTS),
                                                    Agent.vendor_id == vendor.id)).all()
    code = PromotionCode(code=DEMO_CODE, percent_off=DEMO_CODE_PERCENT, vendor_id=vendor.id, created_by_id=vendor.id)
    session.add(code)
    session.flush()
    session.add_all(PromotionCodeAgent(code_id=code.id, agent_id=agent_id) for agent_id in agent_ids)


# A demo agent with a second version, so its Changelog, the vendor's list and My Agents show versions: its agent,
# the new version's label and release notes (Markdown), and how many days ago it was approved.
SECOND_VERSION = ("Inbox Zero", "1.1.0", (
    "**Smarter triage** for busy inboxes.\n\n"
    "- Newsletters are grouped into one daily digest\n"
    "- Replies suggested in the sender's language\n"
    "- Fixed: labels with accents were skipped\n\n"
    "Upgrade notes: run `python agent.py --migrate` once."), 12)


def _demo_second_version(session: Session, storage: Storage, now: datetime) -> None:
    """Publish `SECOND_VERSION` as an approval does (services/versions/history.publish): the first version's row
    (1.0.0), the second's with new files, the agent's live version moved. Skipped once the agent has any version
    row, or when it is not live on its first files (e.g. the vendor changed it)."""
    name, label, notes, days = SECOND_VERSION
    agent = session.exec(select(Agent).where(Agent.name == name, Agent.status == AgentStatus.APPROVED)).first()
    if agent is None or agent.current_version != 1 or session.exec(
            select(AgentVersion.id).where(AgentVersion.agent_id == agent.id)).first() is not None:
        return
    old = list(session.exec(select(AgentFile).where(AgentFile.agent_id == agent.id, AgentFile.version == 1)).all())
    released = max(now - timedelta(days=days), (agent.reviewed_at or agent.created_at) + timedelta(days=1))
    session.add(AgentVersion(agent_id=agent.id, version=1, label=labels.INITIAL_LABEL, release_notes="",
                             files=json.dumps([{"name": f.filename, "size": f.size_bytes, "key": f.storage_key}
                                               for f in old]),
                             approved_at=agent.reviewed_at or agent.created_at))
    tags = list(session.exec(select(AgentTag.tag).where(AgentTag.agent_id == agent.id)
                             .order_by(AgentTag.position)).all())
    files = _demo_files(agent, tags)
    files["agent.json"] = files["agent.json"].replace(b'"1.0.0"', f'"{label}"'.encode())
    files["agent.py"] += b"\n# 1.1.0: newsletters grouped into one daily digest.\n"
    new = []
    for filename, data in files.items():
        key = f"agents/{agent.id}/v2/{filename}"
        storage.put(key, data)
        new.append(AgentFile(agent_id=agent.id, version=2, storage_key=key, filename=filename, size_bytes=len(data)))
        scanning.enqueue(session, [key])
    session.add_all(new)
    session.add(AgentVersion(agent_id=agent.id, version=2, label=label, release_notes=notes,
                             files=json.dumps([{"name": f.filename, "size": f.size_bytes, "key": f.storage_key}
                                               for f in new]), approved_at=released))
    agent.current_version, agent.updated_at = 2, released
    session.add(agent)


def _demo_plans(session: Session, vendor: User) -> None:
    """`vendor` is on Pro (the Stripe stand-in's seed makes it a paid subscription, `seed_billing`); `nova_labs`
    stays on Free, whose limit its live agents (listed before plans existed) reach: it can add no more."""
    if session.get(VendorPlan, vendor.id) is None:
        session.add(VendorPlan(user_id=vendor.id, plan_id=DEMO_VENDOR_PLAN))


def _demo_agent(session: Session, storage: Storage, *, vendor: User, category: Category, name: str, short: str,
                price: str, tags: list[str], created: datetime, featured: bool, demo: bool, status: str) -> Agent:
    agent = Agent(
        vendor_id=vendor.id, category_id=category.id, name=name, short_description=short,
        description=(f"{short}\n\n{name} is a production-ready AI agent. It ships with installation "
                     "instructions, a configuration file and an example entry point. Works with "
                     "OpenAI, Anthropic and local models."),
        price_cents=int(Decimal(price) * 100), image_url=demo_images.url_for(name),
        pricing_model=PricingModel.ONE_TIME if name in ONE_TIME_AGENTS else PricingModel.MONTHLY,
        demo_url=f"https://example.com/demo/{demo_images.slug(name)}" if demo else None,
        status=status, is_featured=featured, created_at=created, updated_at=created,
        # Reviewed a few hours after submission (the track record's average approval time).
        reviewed_at=created + timedelta(hours=2 + len(name) % 7) if status == AgentStatus.APPROVED else None,
    )
    session.add(agent)
    session.flush()
    session.add_all(AgentTag(agent_id=agent.id, tag=tag, position=i) for i, tag in enumerate(tags))
    for filename, data in _demo_files(agent, tags).items():
        key = f"agents/{agent.id}/{filename}"
        storage.put(key, data)
        session.add(AgentFile(agent_id=agent.id, storage_key=key, filename=filename, size_bytes=len(data)))
        scanning.enqueue(session, [key])  # scanned by the app's scanners once it runs
    return agent


def demo_agent_names() -> list[str]:
    """Every agent the seed creates (each ships a picture, services/demo_images.py)."""
    return [row[0] for row in AGENTS] + [row[0] for row in REVIEW_AGENTS]


def _add_missing_pictures(session: Session, *, vendor_ids: list[str]) -> None:
    """Demo agents seeded before their pictures shipped get them (only the demo vendors' own, without one)."""
    for agent in session.exec(select(Agent).where(Agent.name.in_(demo_agent_names()), Agent.vendor_id.in_(vendor_ids),
                                                  Agent.image_url.is_(None))).all():
        agent.image_url = demo_images.url_for(agent.name)
        session.add(agent)


def _demo_sales(session: Session, agent: Agent, buyers: list[User], rng: random.Random, created: datetime, *,
                connected: bool) -> None:
    """Past sales with verified reviews, so ratings, popularity and the vendor's earnings mean something.

    Sales of a connected vendor made after it connected are split payments; the rest went to the platform
    directly. One buyer pays in euros at the demo rate. Each order snapshots the amounts as checkout does.
    """
    rate = platform.commission_rate()
    span = max((utcnow() - created).total_seconds(), 3600.0)
    for n, buyer in enumerate(buyers):
        when = created + timedelta(seconds=span * rng.randint(1, 60) / 61, minutes=n)
        currency, fx = ("eur", DEMO_EUR_RATE) if buyer.username == EUR_BUYER else ("usd", Decimal(1))
        amount = money.convert_from_usd(agent.price_cents, fx)
        vendor_amount, fee = money.split(amount, rate)
        split = connected and amount > 0 and when > utcnow() - timedelta(days=SPLIT_SINCE_DAYS)
        reason = None if split else (purchases.FREE_REASON if amount == 0 else purchases.NO_ACCOUNT)
        order = Order(
            user_id=buyer.id, agent_id=agent.id, vendor_id=agent.vendor_id, agent_name=agent.name,
            customer_email=buyer.email, currency=currency, total_amount_cents=amount,
            original_price_usd_cents=agent.price_cents, exchange_rate=fx, commission_rate=rate,
            commission_split_enabled=split, vendor_amount_cents=vendor_amount, platform_fee_cents=fee,
            split_block_reason=reason, payment_intent_id=f"demo_{agent.id}_{buyer.id}", created_at=when,
        )
        session.add(order)
        session.flush()
        purchase = Purchase(user_id=buyer.id, agent_id=agent.id, order_id=order.id, purchase_price_cents=amount,
                            currency=currency, purchased_at=when)
        session.add(purchase)
        session.flush()
        licenses.ensure_key(session, purchase=purchase)
        rating, comment = rng.choice(REVIEW_LINES)
        session.add(Review(agent_id=agent.id, user_id=buyer.id, rating=rating, comment=comment,
                           is_verified_purchase=True, created_at=when, updated_at=when))
        agent.sales_count += 1
        agent.review_count += 1
        agent.rating_sum += rating
    if agent.review_count:
        agent.avg_rating = round(agent.rating_sum / agent.review_count, 2)
    session.add(agent)


def _demo_notifications(session: Session, vendor: User, now: datetime) -> None:
    """What the demo vendor has been told: read and unread, of each kind."""
    if session.exec(select(Notification.id).where(Notification.user_id == vendor.id)).first():
        return
    rejected = session.exec(select(Agent).where(Agent.vendor_id == vendor.id,
                                                Agent.status == AgentStatus.REJECTED)).first()
    latest = session.exec(select(Order).where(Order.vendor_id == vendor.id)
                          .order_by(Order.created_at.desc())).first()
    rows = [
        (NotificationType.APPROVAL, "Vendor application approved",
         "Welcome aboard! You can now list agents on the marketplace.", True, HISTORY_DAYS + 5),
        (NotificationType.APPROVAL, "Agent approved", "BlogSmith has been approved and is now live.", True,
         HISTORY_DAYS),
        (NotificationType.OTHER, "Payouts enabled", "Your Stripe account is connected: sales are now split "
         "automatically.", True, SPLIT_SINCE_DAYS),
    ]
    if rejected is not None:
        rows.append((NotificationType.REJECTION, "Agent rejected",
                     f"{rejected.name} was not approved. Reason: {rejected.rejection_reason}", False, 8))
    if latest is not None:
        buyer = latest.customer_email.split("@")[0]
        rows.append((NotificationType.SALE, "New sale", f"{buyer} bought {latest.agent_name}.", False,
                     max((now - latest.created_at.replace(tzinfo=now.tzinfo)).days, 0)))
    for kind, title, message, read, days in rows:
        session.add(Notification(user_id=vendor.id, type=kind, title=title, message=message, is_read=read,
                                 created_at=now - timedelta(days=days, minutes=len(title))))


def _pending_application(session: Session, applicant: User, now: datetime) -> None:
    if session.exec(select(VendorApplication.id).where(VendorApplication.user_id == applicant.id)).first():
        return
    _, business, description, website = PENDING_APPLICANT
    session.add(VendorApplication(user_id=applicant.id, business_name=business, business_description=description,
                                  website=website, created_at=now - timedelta(hours=30)))


def init_demo_data(*, actor: User | None) -> None:
    """`POST /api/admin/init-demo-data` (and the demo page's button): demo mode only, for admins. The spec lets
    any tester switch roles, not load data: a tester switches to Administrator first."""
    if not settings.demo_enabled:
        raise NotFound("Not Found")
    seed(loaded_by=require_admin(actor))


def dev_mailbox(*, actor: User | None, limit: int = 50, to: str | None = None) -> list[CaughtMail]:
    """The dev mailbox (`GET /api/dev/mail`, the /dev/mail page): demo mode only, and for admins, since it
    shows every link the app mailed, password-reset links included."""
    if not settings.demo_enabled:
        raise NotFound("Not Found")
    require_admin(actor)
    return mail.dev_mailbox(limit=limit, to=to)


if __name__ == "__main__":
    from marketplace import migrate

    migrate.upgrade()
    seed()
    print("Demo data ready.")
