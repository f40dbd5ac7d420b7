"""Pricing model per agent: the draft's rule, a change on a live agent going through review (old -> new, live
only once approved), every read carrying it, and the checkout's order summary line."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from sqlmodel import select, update

from marketplace import db
from marketplace.models import Agent, AgentRevision, AgentStatus
from marketplace.services import catalog, pricing, purchases
from marketplace.services.admin import catalog as admin_catalog
from marketplace.services.admin import moderation
from marketplace.services.catalog import version as catalog_version
from marketplace.services.errors import Forbidden, Invalid, Unauthorized
from marketplace.services.vendors import agents, drafts
from marketplace.services.vendors.drafts import AgentDraft
from tests.factories import make_admin, make_agent, make_category, make_user, make_vendor


@pytest.fixture
def category():
    return make_category("Writing")


def draft(category, **changes) -> AgentDraft:
    values = {"name": "Mail Bot", "short_description": "Answers mail", "description": "Reads and answers mail.",
              "price": "29.99", "category_id": category.id, "tags": ["mail"]}
    return AgentDraft(**{**values, **changes})


def _agent(agent_id):
    with db.session_scope() as session:
        return session.get(Agent, agent_id)


def test_a_new_agent_is_monthly_unless_the_vendor_picks_a_licence(category):
    vendor = make_vendor()
    monthly = agents.create_agent(actor=vendor, draft=draft(category))
    licence = agents.create_agent(actor=vendor, draft=draft(category, pricing_model=" one_time "))
    assert (_agent(monthly).pricing_model, _agent(licence).pricing_model) == ("monthly", "one_time")
    assert agents.get_editable_agent(actor=vendor, agent_id=licence).draft.pricing_model == "one_time"
    assert {a.id: a.pricing_model for a in agents.list_own_agents(actor=vendor)} == {
        monthly: "monthly", licence: "one_time"}


@pytest.mark.parametrize("value", ["", "weekly", "Monthly", "one-time", "x" * 40])
def test_any_other_pricing_model_is_refused_naming_the_field(category, value):
    with pytest.raises(Invalid) as refused:
        agents.create_agent(actor=make_vendor(), draft=draft(category, pricing_model=value))
    assert (refused.value.message, refused.value.field) == (drafts.PRICING_MODEL_INVALID, "pricing_model")
    assert "Pricing model" in refused.value.message
    with db.session_scope() as session:
        assert session.exec(select(Agent)).all() == []


def test_only_the_owning_approved_vendor_sets_a_pricing_model(category):
    vendor = make_vendor()
    agent = make_agent(vendor, status=AgentStatus.PENDING)
    with pytest.raises(Unauthorized):
        agents.create_agent(actor=None, draft=draft(category, pricing_model="one_time"))
    for outsider in (make_user(), make_vendor(vendor_approved=False)):
        with pytest.raises(Forbidden):
            agents.create_agent(actor=outsider, draft=draft(category, pricing_model="one_time"))
    for outsider in (make_vendor(), make_admin()):
        with pytest.raises(Forbidden):
            agents.update_agent(actor=outsider, agent_id=agent.id, draft=draft(category, pricing_model="one_time"))
    assert _agent(agent.id).pricing_model == "monthly"


def test_an_edit_that_names_no_model_keeps_the_agents(category):
    vendor = make_vendor()
    pending = make_agent(vendor, status=AgentStatus.PENDING, pricing_model="one_time")
    agents.update_agent(actor=vendor, agent_id=pending.id, draft=draft(category, name="Renamed"))
    assert (_agent(pending.id).name, _agent(pending.id).pricing_model) == ("Renamed", "one_time")


def test_a_live_agents_model_change_waits_for_review_and_then_applies(category):
    vendor, admin = make_vendor(), make_admin()
    live = make_agent(vendor, name="Mail Bot", short_description="Answers mail", description="Reads and answers mail.",
                      category=category, tags=["mail"], files=1, price_cents=1900)
    agents.update_agent(actor=vendor, agent_id=live.id, draft=draft(category, price="49.00", pricing_model="one_time"))
    # Saved again without naming a model: the one in review stays.
    agents.update_agent(actor=vendor, agent_id=live.id, draft=draft(category, price="49.00"))
    with db.session_scope() as session:
        [revision] = session.exec(select(AgentRevision)).all()
    assert json.loads(revision.changes)["pricing_model"] == "one_time"
    public = catalog.get_agent(agent_id=live.id)
    assert (public.pricing_model, public.price) == ("monthly", "19.00")  # new buyers still see the live terms
    [item], _ = moderation.list_pending(actor=admin)
    assert (item.kind, item.pricing_model, item.price_cents) == ("revision", "one_time", 4900)
    assert item.changed_fields == ["price_cents", "pricing_model"]
    assert [(c.field, c.old, c.new) for c in item.field_changes] == [
        ("price_cents", 1900, 4900), ("pricing_model", "monthly", "one_time")]
    moderation.approve(actor=admin, agent_id=live.id)
    public = catalog.get_agent(agent_id=live.id)
    assert (public.pricing_model, public.price) == ("one_time", "49.00")
    assert catalog.list_agents().items[0].pricing_model == "one_time"  # the cached listing moved with it


def test_a_model_change_alone_is_a_revision_too(category):
    vendor = make_vendor()
    live = make_agent(vendor, name="Mail Bot", short_description="Answers mail", description="Reads and answers mail.",
                      category=category, tags=["mail"], files=1)
    agents.update_agent(actor=vendor, agent_id=live.id, draft=draft(category))  # unchanged: nothing to review
    with db.session_scope() as session:
        assert session.exec(select(AgentRevision)).all() == []
    agents.update_agent(actor=vendor, agent_id=live.id, draft=draft(category, pricing_model="one_time"))
    [item], _ = moderation.list_pending(actor=make_admin())
    assert item.changed_fields == ["pricing_model"]


def test_admin_reads_carry_the_model(category):
    admin, vendor = make_admin(), make_vendor()
    make_agent(vendor, name="Licence", pricing_model="one_time", sales_count=3)
    rows, _ = admin_catalog.list_agents(actor=admin)
    assert [(r.name, r.pricing_model) for r in rows] == [("Licence", "one_time")]
    from marketplace.services.admin import analytics

    assert [r.pricing_model for r in analytics.most_bought(actor=admin)] == ["one_time"]


def test_checkout_knows_the_model():
    licence = make_agent(make_vendor(), pricing_model="one_time")
    assert purchases.checkout_agent(actor=make_user(), agent_id=licence.id).pricing_model == "one_time"


@pytest.mark.parametrize(("today", "renews"), [
    (datetime(2026, 1, 15, 9, tzinfo=UTC), datetime(2026, 2, 15, 9, tzinfo=UTC)),
    (datetime(2026, 1, 31, tzinfo=UTC), datetime(2026, 2, 28, tzinfo=UTC)),  # a shorter month: its last day
    (datetime(2028, 1, 31, tzinfo=UTC), datetime(2028, 2, 29, tzinfo=UTC)),
    (datetime(2026, 12, 24, tzinfo=UTC), datetime(2027, 1, 24, tzinfo=UTC)),
])
def test_one_month_after(today, renews):
    assert pricing.one_month_after(today) == renews


def test_order_summary_line_for_both_kinds():
    assert pricing.order_summary_line(pricing_model="monthly", price_cents=2999, renews_on="Dec 24, 2026") == (
        "Monthly subscription - renews on Dec 24, 2026, cancel anytime")
    assert pricing.order_summary_line(pricing_model="one_time", price_cents=4900, renews_on="Dec 24, 2026") == (
        "AI Agent License")
    assert pricing.order_summary_line(pricing_model="monthly", price_cents=0, renews_on="Dec 24, 2026") == (
        "AI Agent License")  # a free agent is claimed once: nothing renews


def test_a_change_of_model_alone_moves_the_catalog_version():
    """The listing cache is kept per catalog version; `pricing_model` is watched like price (revision 0017)."""
    agent = make_agent(make_vendor())
    with db.engine().connect() as conn:
        before = catalog_version.read(conn)
    with db.session_scope() as session:
        session.exec(update(Agent).where(Agent.id == agent.id).values(pricing_model="one_time"))
    with db.engine().connect() as conn:
        assert catalog_version.read(conn) > before
    assert catalog.list_agents().items[0].pricing_model == "one_time"
