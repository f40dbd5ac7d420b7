import pytest
from pydantic import ValidationError
from sqlmodel import func, select

from marketplace import db
from marketplace.config import DEFAULT_SECRET_KEY, Settings
from marketplace.integrations.storage import get_storage
from marketplace.models import Agent, AgentFile, AgentVersion, Category, LicenseKey, Order, Purchase, Review, User
from marketplace.services import demo
from marketplace.services.errors import Forbidden, NotFound, Unauthorized
from marketplace.services.versions import history


def test_production_refuses_default_secret_and_demo_mode():
    with pytest.raises(ValidationError, match="SECRET_KEY"):
        Settings(app_env="production", secret_key=DEFAULT_SECRET_KEY)
    with pytest.raises(ValidationError, match="DEMO_MODE"):
        Settings(app_env="production", secret_key="x" * 40, demo_mode=True)
    prod = Settings(app_env="production", secret_key="x" * 40)
    assert prod.demo_enabled is False
    assert Settings().demo_enabled is False  # off unless DEMO_MODE=1


def _count(model) -> int:
    with db.session_scope() as session:
        return session.exec(select(func.count()).select_from(model)).one()


def test_demo_seed_is_complete_and_idempotent():
    demo.seed()
    counts = {m: _count(m) for m in (Agent, AgentFile, Category, Order, Review, User, LicenseKey)}
    assert counts[Agent] >= 24 and counts[Category] == len(demo.CATEGORIES)
    assert counts[LicenseKey] == _count(Purchase) > 0  # every demo purchase has its license key
    assert counts[AgentFile] == 3 * counts[Agent] + 3  # and the three files of Inbox Zero's second version
    with db.session_scope() as session:
        slugs = set(session.exec(select(Category.slug)).all())
        assert {"content-creation", "business-automation", "data-analysis", "customer-support", "marketing",
                "development-tools", "productivity", "development", "ai-assistance", "automation"} <= slugs
        assert session.exec(select(func.count()).select_from(Agent).where(Agent.price_cents == 0)).one() > 0
        assert session.exec(select(func.count()).select_from(Agent).where(Agent.is_featured)).one() >= 6
        roles = {u.username: u.role for u in session.exec(select(User)).all()}
        assert roles["admin"] == "admin" and roles["vendor"] == "vendor" and roles["customer"] == "user"
    demo.seed()
    assert {m: _count(m) for m in counts} == counts
    # One agent has a second version with release notes, so its Changelog lists two entries.
    agent_id = _agent_id(demo.SECOND_VERSION[0])
    assert [(v.label, v.current) for v in history.list_versions(agent_id=agent_id)] == [("1.1.0", True),
                                                                                        ("1.0.0", False)]
    [newest, first] = history.list_versions(agent_id=agent_id)
    assert "<strong>Smarter triage</strong>" in newest.release_notes_html and newest.released_at > first.released_at
    assert [f.filename for f in newest.files] == ["README.md", "agent.json", "agent.py"]
    with db.session_scope() as session:
        assert session.exec(select(func.count()).select_from(AgentVersion)).one() == 2
        keys = session.exec(select(AgentFile.storage_key).where(AgentFile.agent_id == agent_id,
                                                                 AgentFile.version == 2)).all()
    assert b'"version": "1.1.0"' in get_storage().get(next(k for k in keys if k.endswith("agent.json")))


def _agent_id(name: str) -> str:
    with db.session_scope() as session:
        return session.exec(select(Agent.id).where(Agent.name == name)).one()


def test_init_demo_data_needs_an_admin_and_demo_mode(make_user, demo_mode, monkeypatch):
    from marketplace.config import settings

    with pytest.raises(Unauthorized):
        demo.init_demo_data(actor=None)
    with pytest.raises(Forbidden):
        demo.init_demo_data(actor=make_user())
    monkeypatch.setattr(settings, "demo_mode", False)
    with pytest.raises(NotFound):
        demo.init_demo_data(actor=make_user(role="admin"))


def test_demo_seed_offers_a_trial_and_a_code_a_visitor_can_use_once():
    """`make run`'s data shows both of issue 31's levers: a monthly agent with a 7-day trial and an active code
    in the demo vendor's list that the demo customer can apply; a second load changes neither again."""
    from marketplace.services import promotions

    demo.seed()
    with db.session_scope() as session:
        vendor = session.exec(select(User).where(User.username == "vendor")).one()
        customer = session.exec(select(User).where(User.username == "customer")).one()
        trial = session.exec(select(Agent).where(Agent.name == demo.DEMO_TRIAL[0])).one()
        coded = session.exec(select(Agent).where(Agent.name == demo.DEMO_CODE_AGENTS[0])).one()
        assert (trial.pricing_model, trial.trial_days, trial.vendor_id) == ("monthly", 7, vendor.id)
        applied = promotions.apply_code(session, code=demo.DEMO_CODE.lower(), buyer=customer, agent=coded)
    assert applied.discount_usd_cents == coded.price_cents // 5
    [listed] = [v for v in promotions.list_codes(actor=vendor) if v.code.code == demo.DEMO_CODE]
    assert listed.code.active and len(listed.agent_ids) == len(demo.DEMO_CODE_AGENTS)

    # The vendor ends the trial and the code: loading the demo data again brings neither back.
    promotions.deactivate_code(actor=vendor, code_id=listed.code.id)
    with db.session_scope() as session:
        session.get(Agent, trial.id).trial_days = 0
    demo.seed()
    with db.session_scope() as session:
        assert session.get(Agent, trial.id).trial_days == 0
    assert [v.code.active for v in promotions.list_codes(actor=vendor) if v.code.code == demo.DEMO_CODE] == [False]
