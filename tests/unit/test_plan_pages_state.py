"""The plan pages' words: the landing page's offer, the plan card, /vendor/plans' questions and the admin's forms
are written from the plans as stored (a changed fee or limit changes them)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from marketplace.services import money, plans
from marketplace.services.plans import CurrentPlan, PlanView
from marketplace.services.plans.revenue import PlanRevenue
from marketplace.state.admin.plans import form_text, plan_draft
from marketplace.state.admin.sales import plan_revenue_view
from marketplace.state.plans import limit_label, offer, plan_option, price_label
from marketplace.state.vendors.plans import agents_label, change_kind, confirmation, period_label
from tests import factories

WHEN = datetime(2026, 1, 5, tzinfo=UTC)
FREE = PlanView(id="free", name="Free", monthly_price_cents=0, agent_limit=3, fee_percent=Decimal("20.00"),
                sort_order=0, updated_at=WHEN)
PRO = PlanView(id="pro", name="Pro", monthly_price_cents=2900, agent_limit=None, fee_percent=Decimal("10.00"),
               sort_order=1, updated_at=WHEN)
ENTERPRISE = PlanView(id="enterprise", name="Enterprise", monthly_price_cents=9900, agent_limit=None,
                      fee_percent=Decimal("5.00"), sort_order=2, updated_at=WHEN)


def _current(plan: PlanView, *, pending: PlanView | None = None, used: int = 0) -> CurrentPlan:
    return CurrentPlan(plan=plan, status="active", current_period_end=None if plan.is_free else WHEN,
                       pending_plan=pending, grace_ends_at=None, agents_used=used)


@pytest.mark.parametrize(("value", "label"), [
    (Decimal("20.00"), "20%"), (Decimal("12.50"), "12.5%"), (Decimal("0.00"), "0%"), (Decimal("7.25"), "7.25%"),
])
def test_percent_label(value, label):
    assert money.percent_label(value) == label


def test_the_offer_is_written_from_the_stored_plans():
    assert plan_option(FREE).fee_label == "20% transaction fee"  # the commission rate, not a fixed 15%
    assert plan_option(replace(FREE, fee_percent=Decimal("17.50"))).fee_label == "17.5% transaction fee"
    assert plan_option(FREE).limit_label == "Up to 3 agents"
    assert plan_option(FREE).is_free and not plan_option(PRO).is_free
    assert (plan_option(PRO).price, plan_option(PRO).limit_label, plan_option(PRO).featured) == (
        "$29", "Unlimited listings", True)
    assert plan_option(replace(ENTERPRISE, name="Scale")).name == "Scale"


@pytest.mark.parametrize(("cents", "label"), [(0, "$0"), (2900, "$29"), (2950, "$29.50"), (999999, "$9,999.99")])
def test_price_label(cents, label):
    assert price_label(cents) == label


@pytest.mark.parametrize(("limit", "label"), [
    (None, "Unlimited listings"), (1, "Up to 1 agent"), (3, "Up to 3 agents"), (2000, "Up to 2,000 agents")])
def test_limit_label(limit, label):
    assert limit_label(limit) == label


@pytest.mark.parametrize(("used", "limit", "label"), [
    (2, 3, "2 of 3 agents"), (0, 1, "0 of 1 agent"), (1, None, "1 agent (unlimited)"),
    (12, None, "12 agents (unlimited)"), (12, 3, "12 agents; the Free plan allows 3. Upgrade to add more."),
    (3, 3, "3 of 3 agents")])
def test_agents_label(used, limit, label):
    assert agents_label(used, limit, "Free") == label


def test_period_label_says_renews_ends_or_changes():
    day = "Jan 5, 2026"
    assert period_label(_current(FREE), "") == ""
    assert period_label(_current(PRO), day) == "Renews on Jan 5, 2026"
    assert period_label(_current(PRO, pending=FREE), day) == "Ends on Jan 5, 2026"
    assert period_label(_current(ENTERPRISE, pending=PRO), day) == "Changes to Pro on Jan 5, 2026"


def test_change_kind_picks_the_question():
    assert change_kind(FREE, PRO) == "pay"
    assert change_kind(FREE, ENTERPRISE) == "pay"
    assert change_kind(PRO, ENTERPRISE) == "upgrade"
    assert change_kind(ENTERPRISE, PRO) == "downgrade"
    assert change_kind(PRO, FREE) == "cancel"


def test_confirmations_tell_when_the_change_takes_effect():
    assert confirmation("cancel", current=PRO, target=FREE, period_end="Jan 5, 2026") == (
        "Cancel your Pro plan?", "Your Pro plan stays until Jan 5, 2026. You will then be on the Free plan.")
    assert confirmation("downgrade", current=ENTERPRISE, target=PRO, period_end="Jan 5, 2026") == (
        "Change to Pro?", "Your Enterprise plan stays until Jan 5, 2026. Your plan then changes to Pro.")
    title, text = confirmation("upgrade", current=PRO, target=ENTERPRISE, period_end="Jan 5, 2026")
    assert title == "Upgrade to Enterprise?"
    assert "starts now" in text and "$99.00 a month" in text


def test_admin_form_starts_from_the_stored_plan():
    draft = plan_draft(FREE)
    assert (draft.name, draft.price, draft.agent_limit, draft.fee, draft.is_free) == ("Free", "0.00", "3", "20", True)
    pro = plan_draft(PRO)
    assert (pro.price, pro.agent_limit, pro.fee, pro.is_free) == ("29.00", "", "10", False)
    # a new fee draws the form again with the stored value
    assert plan_draft(replace(FREE, fee_percent=Decimal("15.00"))).version != draft.version


def test_form_text_leaves_missing_fields_unchanged():
    assert form_text({"name": "Pro", "agentLimit": ""}, "name") == "Pro"
    assert form_text({"agentLimit": ""}, "agentLimit") == ""
    assert form_text({}, "monthlyPrice") is None


def test_plan_revenue_lines():
    line = plan_revenue_view(PlanRevenue(plan_id="pro", plan_name="Pro", revenue_cents=8700, vendors=1))
    assert (line.name, line.revenue, line.vendors) == ("Pro", "$87.00", "1 vendor now")
    assert plan_revenue_view(PlanRevenue(plan_id="enterprise", plan_name="Enterprise", revenue_cents=0,
                                          vendors=0)).vendors == "0 vendors now"


def test_the_landing_page_offer_is_built_once_per_version_of_the_plans() -> None:
    first = offer()
    assert first == [plan_option(plan) for plan in plans.list_plans()]
    assert all(a is b for a, b in zip(offer(), first, strict=True))  # the same plans: the same options
    plans.update_plan(actor=factories.make_admin(), plan_id="pro", name="Pro+")
    assert [option.name for option in offer()] == ["Free", "Pro+", "Enterprise"]
