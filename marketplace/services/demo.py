"""Demo data: categories, accounts, 26 approved agents with files, sales and reviews. Idempotent."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from sqlmodel import Session, select

from marketplace.config import settings
from marketplace.db import session_scope
from marketplace.integrations.storage import get_storage
from marketplace.models import (
    Agent,
    AgentFile,
    AgentStatus,
    AgentTag,
    Category,
    Order,
    Purchase,
    Review,
    Role,
    User,
)
from marketplace.models.base import utcnow
from marketplace.services import platform
from marketplace.services.auth import hash_password
from marketplace.services.errors import NotFound
from marketplace.services.permissions import require_user

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


def _slug(name: str) -> str:
    return "".join(ch.lower() if ch.isalnum() else "-" for ch in name).strip("-")


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
    return user


def _ensure_categories(session: Session) -> dict[str, Category]:
    existing = {c.slug: c for c in session.exec(select(Category)).all()}
    for order, (slug, name, emoji, description) in enumerate(CATEGORIES):
        if slug not in existing:
            existing[slug] = Category(slug=slug, name=name, emoji=emoji, description=description, sort_order=order)
            session.add(existing[slug])
    session.flush()
    return existing


def seed() -> None:
    """Load the demo data; running it again adds only what is missing."""
    platform.ensure_defaults()
    storage = get_storage()
    rng = random.Random(42)
    with session_scope() as session:
        categories = _ensure_categories(session)
        accounts = {a.username: _ensure_user(session, a) for a in [*DEMO_ACCOUNTS, SECOND_VENDOR]}
        reviewers = [
            _ensure_user(session, DemoAccount(u, "customer123", f"{u}@agentmarket.test", f, last, Role.USER))
            for u, f, last in REVIEWERS
        ]
        vendors = [accounts["vendor"], accounts["nova_labs"]]
        now = utcnow()
        for index, (name, slug, price, featured, tags, short) in enumerate(AGENTS):
            if session.exec(select(Agent.id).where(Agent.name == name)).first():
                continue
            created = now - timedelta(days=90 - index * 3, hours=index)
            agent = Agent(
                vendor_id=vendors[index % 2].id, category_id=categories[slug].id, name=name,
                short_description=short,
                description=(f"{short}\n\n{name} is a production-ready AI agent. It ships with installation "
                             "instructions, a configuration file and an example entry point. Works with "
                             "OpenAI, Anthropic and local models."),
                price_cents=int(Decimal(price) * 100),
                demo_url=f"https://example.com/demo/{_slug(name)}" if index % 3 == 0 else None,
                status=AgentStatus.APPROVED, is_featured=featured, created_at=created, updated_at=created,
                reviewed_at=created,
            )
            session.add(agent)
            session.flush()
            session.add_all(AgentTag(agent_id=agent.id, tag=tag, position=i) for i, tag in enumerate(tags))
            for filename, data in _demo_files(agent, tags).items():
                key = f"agents/{agent.id}/{filename}"
                storage.put(key, data)
                session.add(AgentFile(agent_id=agent.id, storage_key=key, filename=filename, size_bytes=len(data)))
            _demo_sales(session, agent, rng.sample(reviewers, rng.randint(0, len(reviewers))), rng, created)


def _demo_sales(session: Session, agent: Agent, buyers: list[User], rng: random.Random, created: object) -> None:
    """Past direct-payment sales with verified reviews, so ratings and popularity mean something."""
    rate = platform.commission_rate()
    for n, buyer in enumerate(buyers):
        fee = int((Decimal(agent.price_cents) * rate / 100).to_integral_value(rounding="ROUND_HALF_UP"))
        when = utcnow() - timedelta(days=rng.randint(1, 60), minutes=n)
        order = Order(
            user_id=buyer.id, agent_id=agent.id, vendor_id=agent.vendor_id, agent_name=agent.name,
            customer_email=buyer.email, currency="usd", total_amount_cents=agent.price_cents,
            original_price_usd_cents=agent.price_cents, commission_rate=rate, commission_split_enabled=False,
            vendor_amount_cents=agent.price_cents - fee, platform_fee_cents=fee,
            split_block_reason="Vendor has not connected a Stripe account",
            payment_intent_id=f"demo_{agent.id}_{buyer.id}", created_at=when,
        )
        session.add(order)
        session.flush()
        session.add(Purchase(user_id=buyer.id, agent_id=agent.id, order_id=order.id,
                             purchase_price_cents=agent.price_cents, purchased_at=when))
        rating, comment = rng.choice(REVIEW_LINES)
        session.add(Review(agent_id=agent.id, user_id=buyer.id, rating=rating, comment=comment,
                           is_verified_purchase=True, created_at=when, updated_at=when))
        agent.sales_count += 1
        agent.review_count += 1
        agent.rating_sum += rating
    if agent.review_count:
        agent.avg_rating = round(agent.rating_sum / agent.review_count, 2)
    session.add(agent)


def init_demo_data(*, actor: User | None) -> None:
    """`POST /api/admin/init-demo-data`: demo mode only, for any signed-in tester."""
    if not settings.demo_enabled:
        raise NotFound("Not Found")
    require_user(actor)
    seed()


if __name__ == "__main__":
    from marketplace import migrate

    migrate.upgrade()
    seed()
    print("Demo data ready.")
