"""The promotion code form's text read into a code (services/promotions/forms): what a person types, the field a
refusal names, and who may use it; and how the lists describe a code."""

from __future__ import annotations

import pytest
from sqlmodel import select

from marketplace import db
from marketplace.models import PromotionCode
from marketplace.services import promotions
from marketplace.services.errors import Forbidden, Invalid, Unauthorized
from tests import factories


def _form(**fields: object) -> promotions.CodeForm:
    values: dict = {"code": "SPRING", "kind": promotions.PERCENT, "value": "25", "agent_ids": []}
    values.update(fields)
    return promotions.CodeForm(**values)


def test_a_vendor_makes_a_code_from_the_form():
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor)
    made = promotions.create_from_form(
        actor=vendor,
        form=_form(
            kind=promotions.AMOUNT,
            value="5.50",
            agent_ids=[agent.id],
            expires_on="2099-12-31",
            max_redemptions="10",
            duration="repeating",
            duration_months="3",
            first_purchase_only=True,
        ),
    )
    c = made.code
    assert (c.code, c.amount_off_cents, c.percent_off, c.max_redemptions, c.duration_months) == (
        "SPRING",
        550,
        None,
        10,
        3,
    )
    assert c.expires_at is not None and (c.expires_at.year, c.expires_at.month, c.expires_at.day) == (2099, 12, 31)
    assert promotions.describe(made) == "$5.50 off, first 3 months"


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"value": "abc"}, "value", "The percent off must be a whole number from 1 to 100."),
        ({"value": "12.5"}, "value", "The percent off must be a whole number from 1 to 100."),
        ({"kind": promotions.AMOUNT, "value": "5.555"}, "value", "The amount off must be from $0.01 to $10,000.00."),
        ({"expires_on": "31/12/2099"}, "expiresOn", "Enter the expiry as a date (YYYY-MM-DD)."),
        ({"max_redemptions": "0"}, "maxRedemptions", "The maximum redemptions must be from 1 to 1,000,000."),
        (
            {"duration": "repeating", "duration_months": "x"},
            "durationMonths",
            "A repeating code applies for 1 to 36 months.",
        ),
    ],
)
def test_bad_text_is_refused_naming_its_field(fields, field, message):
    vendor = factories.make_vendor()
    agent = factories.make_agent(vendor)
    with pytest.raises(Invalid) as refused:
        promotions.create_from_form(actor=vendor, form=_form(agent_ids=[agent.id], **fields))
    assert (refused.value.field, refused.value.message) == (field, message)
    with db.session_scope() as session:
        assert session.exec(select(PromotionCode)).all() == []


def test_who_may_use_the_form():
    agent = factories.make_agent(factories.make_vendor())
    with pytest.raises(Unauthorized):
        promotions.create_from_form(actor=None, form=_form(agent_ids=[agent.id]))
    with pytest.raises(Forbidden):
        promotions.create_from_form(actor=factories.make_user(), form=_form(agent_ids=[agent.id]))
    with pytest.raises(Forbidden):  # a vendor on the admin form
        promotions.create_from_form(actor=factories.make_vendor(), form=_form(all_agents=True), admin=True)
    made = promotions.create_from_form(actor=factories.make_admin(), form=_form(all_agents=True), admin=True)
    assert made.code.all_agents and promotions.describe(made) == "25% off, first payment"


def test_a_vendor_picks_among_its_own_live_agents_only():
    vendor = factories.make_vendor()
    mine = factories.make_agent(vendor, "Beta")
    factories.make_agent(vendor, "Alpha")
    factories.make_agent(vendor, "Pending", status="pending")
    factories.make_agent(factories.make_vendor(), "Theirs")
    assert [name for _id, name in promotions.pickable_agents(actor=vendor)] == ["Alpha", "Beta"]
    assert mine.id in dict(promotions.pickable_agents(actor=vendor))
    with pytest.raises(Forbidden):
        promotions.pickable_agents(actor=factories.make_user())


@pytest.mark.parametrize(
    ("duration", "months", "label"),
    [
        ("once", None, "first payment"),
        ("repeating", 1, "first month"),
        ("repeating", 6, "first 6 months"),
        ("forever", None, "every month"),
    ],
)
def test_months_labels(duration, months, label):
    assert promotions.months_label(duration, months) == label
