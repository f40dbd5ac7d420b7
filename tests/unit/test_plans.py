"""Vendor plans as data: the seeded offer, the Free plan's fee as the commission rate (one number), the admin's
edit (validated, audited), a vendor's plan now and the agent limit at submission."""

from __future__ import annotations

from decimal import Decimal

import pytest

from marketplace.models import FREE_PLAN_ID, AgentStatus
from marketplace.services import plans, platform
from marketplace.services.admin import people, sales
from marketplace.services.errors import Forbidden, Invalid, NotFound, Unauthorized
from marketplace.services.vendors import agents
from marketplace.services.vendors.drafts import AgentDraft
from tests import factories


def test_the_seeded_offer_in_order_with_the_free_fee_from_the_commission_rate():
    offer = plans.list_plans()
    assert [(p.id, p.name, p.monthly_price_cents, p.agent_limit, p.fee_percent) for p in offer] == [
        ("free", "Free", 0, 3, Decimal("20.00")), ("pro", "Pro", 2900, None, Decimal("10.00")),
        ("enterprise", "Enterprise", 9900, None, Decimal("5.00"))]
    assert offer[1].split_label == "90/10"


def test_the_free_fee_and_the_commission_rate_are_one_number():
    admin = factories.make_admin()
    platform.set_commission_rate(actor=admin, value="18%")
    assert plans.get_plan(plan_id=FREE_PLAN_ID).fee_percent == Decimal("18.00")
    plans.update_plan(actor=admin, plan_id=FREE_PLAN_ID, fee_percent="15.5%")
    assert platform.commission_rate() == Decimal("15.50")
    assert platform.get_setting(platform.COMMISSION_RATE) == "15.5%"
    assert ("plan.update", "plan", FREE_PLAN_ID) in factories.audit_actions()


def test_an_admin_edits_a_plan_and_the_edit_is_audited():
    admin = factories.make_admin()
    plan = plans.update_plan(actor=admin, plan_id="pro", name="Pro+", monthly_price="35", agent_limit="50",
                             fee_percent="8%")
    assert (plan.name, plan.monthly_price_cents, plan.agent_limit, plan.fee_percent) == (
        "Pro+", 3500, 50, Decimal("8.00"))
    assert plans.update_plan(actor=admin, plan_id="pro", agent_limit="").agent_limit is None
    assert factories.audit_actions().count(("plan.update", "plan", "pro")) == 2


@pytest.mark.parametrize(("fields", "message"), [
    ({"fee_percent": "101%"}, "Fee must be a number from 0 to 100"),
    ({"fee_percent": "ten"}, "Fee must be a number from 0 to 100"),
    ({"monthly_price": "0.10"}, "Monthly price must be a number"),
    ({"monthly_price": "-5"}, "Monthly price must be a number"),
    ({"agent_limit": "0"}, "Agent limit must be a whole number"),
    ({"agent_limit": "2.5"}, "Agent limit must be a whole number"),
    ({"name": "   "}, "Plan name is required"),
    ({"name": "x" * 61}, "Plan name must be at most 60 characters"),
])
def test_bad_plan_edits_are_refused_and_change_nothing(fields: dict[str, str], message: str):
    admin = factories.make_admin()
    with pytest.raises(Invalid, match=message):
        plans.update_plan(actor=admin, plan_id="pro", **fields)
    assert plans.get_plan(plan_id="pro").monthly_price_cents == 2900
    assert factories.audit_actions() == []


def test_the_free_plan_stays_free_and_an_unknown_plan_is_not_found():
    admin = factories.make_admin()
    with pytest.raises(Invalid, match="The Free plan has no monthly price"):
        plans.update_plan(actor=admin, plan_id=FREE_PLAN_ID, monthly_price="5")
    with pytest.raises(NotFound):
        plans.update_plan(actor=admin, plan_id="gold", name="Gold")


def test_only_admins_edit_plans():
    with pytest.raises(Unauthorized):
        plans.update_plan(actor=None, plan_id="pro", name="Mine")
    with pytest.raises(Forbidden):
        plans.update_plan(actor=factories.make_vendor(), plan_id="pro", name="Mine")
    assert plans.get_plan(plan_id="pro").name == "Pro"


def test_a_vendor_plan_counts_live_and_pending_agents():
    vendor = factories.make_vendor()
    for status in (AgentStatus.APPROVED, AgentStatus.PENDING, AgentStatus.REJECTED):
        factories.make_agent(vendor, status=status)
    factories.make_agent(vendor, deleted_at=factories.ago(days=1))
    current = plans.current_plan(actor=vendor)
    assert (current.plan.id, current.status, current.agents_used, current.agent_limit) == ("free", "active", 2, 3)
    assert not current.at_limit
    assert plans.room_refusal(actor=vendor) is None


def _draft() -> AgentDraft:
    category = factories.make_category()
    return AgentDraft(name="Limit agent", short_description="Short", description="Long text", price="9.99",
                      category_id=category.id)


def test_a_free_vendor_at_its_limit_cannot_submit_another():
    vendor = factories.make_vendor()
    for _ in range(3):
        factories.make_agent(vendor, status=AgentStatus.PENDING)
    message = "Your Free plan allows 3 agents. Upgrade to list more."
    assert plans.room_refusal(actor=vendor) == message
    with pytest.raises(Forbidden, match=message):
        agents.create_agent(actor=vendor, draft=_draft())
    assert plans.current_plan(actor=vendor).agents_used == 3


def test_the_limit_follows_the_plan_and_its_edits():
    admin, vendor = factories.make_admin(), factories.make_vendor()
    for _ in range(3):
        factories.make_agent(vendor)
    factories.put_on_plan(vendor, "pro")
    assert agents.create_agent(actor=vendor, draft=_draft())
    plans.update_plan(actor=admin, plan_id="pro", agent_limit="4")
    assert plans.room_refusal(actor=vendor) == "Your Pro plan allows 4 agents. Upgrade to list more."
    factories.put_on_plan(vendor, FREE_PLAN_ID)  # a downgrade hides nothing: the four stay, new ones are refused
    assert plans.current_plan(actor=vendor).agents_used == 4
    with pytest.raises(Forbidden, match="Your Free plan allows 3 agents"):
        agents.create_agent(actor=vendor, draft=_draft())


def test_admin_reads_show_each_vendors_plan_and_the_plan_revenue():
    admin = factories.make_admin()
    factories.make_vendor("free-vendor")
    pro = factories.make_vendor("pro-vendor")
    factories.put_on_plan(pro, "pro")
    factories.make_user("a-customer")
    vendors, _total = people.list_vendors(actor=admin)
    assert {(v.username, v.plan_name) for v in vendors} == {("free-vendor", "Free"), ("pro-vendor", "Pro")}
    assert {c.plan_name for c in people.list_customers(actor=admin)[0]} == {None}
    factories.make_plan_payment(pro, "pro", 2900, reason="subscription_create")
    factories.make_plan_payment(pro, "enterprise", 3500, reason="subscription_update")
    summary = sales.summary(actor=admin)
    assert [(p.plan_name, p.revenue_cents, p.vendors) for p in summary.plan_revenue] == [
        ("Pro", 2900, 1), ("Enterprise", 3500, 0)]
    assert summary.plan_revenue_cents == 6400


def test_a_rejected_agent_sent_back_to_review_counts_against_the_limit():
    vendor = factories.make_vendor()
    for _ in range(3):
        factories.make_agent(vendor)
    rejected = factories.make_agent(vendor, status=AgentStatus.REJECTED)
    with pytest.raises(Forbidden, match="Your Free plan allows 3 agents"):
        agents.update_agent(actor=vendor, agent_id=rejected.id, draft=_draft())
    assert agents.get_editable_agent(actor=vendor, agent_id=rejected.id).status == AgentStatus.REJECTED
    factories.put_on_plan(vendor, "pro")
    agents.update_agent(actor=vendor, agent_id=rejected.id, draft=_draft())
    assert agents.get_editable_agent(actor=vendor, agent_id=rejected.id).status == AgentStatus.PENDING
