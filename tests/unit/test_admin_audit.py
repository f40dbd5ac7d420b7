"""The audit log: every admin write leaves one entry in its own transaction; only admins read it."""

from __future__ import annotations

from decimal import Decimal

import pytest

from marketplace.models import AgentStatus, Role
from marketplace.services import audit, platform
from marketplace.services.admin import applications, moderation
from marketplace.services.errors import Conflict, Forbidden, Invalid, InvalidParameter, Unauthorized
from tests import factories as f


def test_vendor_decisions_are_audited():
    admin = f.make_admin("boss")
    approved, rejected = f.make_user(), f.make_user()
    f.make_application(approved, business_name="Acme")
    f.make_application(rejected, business_name="Nope")
    applications.approve(actor=admin, user_id=approved.id)
    applications.reject(actor=admin, user_id=rejected.id)
    assert f.audit_actions() == [("vendor.approve", "user", approved.id), ("vendor.reject", "user", rejected.id)]
    [newest, oldest] = audit.list_entries(actor=admin)[0]
    assert (oldest.actor_id, oldest.actor_username, oldest.details["businessName"]) == (admin.id, "boss", "Acme")
    assert newest.details["businessName"] == "Nope" and newest.details["applicationId"]


def test_agent_decisions_are_audited_with_the_reason():
    admin, vendor = f.make_admin(), f.make_vendor()
    good = f.make_agent(vendor, status=AgentStatus.PENDING, files=1)
    bad = f.make_agent(vendor, status=AgentStatus.PENDING, files=1)
    moderation.approve(actor=admin, agent_id=good.id)
    moderation.reject(actor=admin, agent_id=bad.id, rejection_reason="  Broken demo ")
    assert f.audit_actions() == [("agent.approve", "agent", good.id), ("agent.reject", "agent", bad.id)]
    newest = audit.list_entries(actor=admin)[0][0]
    assert newest.details == {"name": bad.name, "reason": "Broken demo", "revisionId": None}


def test_a_refused_write_leaves_no_entry():
    admin = f.make_admin()
    empty = f.make_agent(f.make_vendor(), status=AgentStatus.PENDING)
    with pytest.raises(Conflict):
        moderation.approve(actor=admin, agent_id=empty.id)
    with pytest.raises(Invalid):
        platform.set_commission_rate(actor=admin, value="abc")
    assert f.audit_actions() == []


def test_setting_changes_are_audited_with_before_and_after():
    admin = f.make_admin()
    platform.set_commission_rate(actor=admin, value="15.5%", description="Platform commission rate on each sale")
    platform.update_setting(actor=admin, key=platform.CHECKOUT_CURRENCY, value="EUR")
    assert f.audit_actions() == [("setting.update", "setting", "commissionRate"),
                                 ("setting.update", "setting", "checkoutCurrency")]
    entries = audit.list_entries(actor=admin)[0]
    assert entries[1].details == {"from": "20%", "to": "15.5%"}
    assert entries[0].details == {"from": "usd", "to": "eur"}


@pytest.mark.parametrize("value", ["", "  ", "abc", "-1", "100.001", "101", "15.555", "1e2", "NaN", "15%%", "%"])
def test_bad_commission_values_all_get_the_spec_message(value):
    with pytest.raises(Invalid, match=r"^Please enter a valid number for commission rate$"):
        platform.set_commission_rate(actor=f.make_admin(), value=value)
    assert platform.commission_rate() == Decimal("20.00")


@pytest.mark.parametrize(("value", "stored", "rate"), [
    ("15.5%", "15.5%", "15.50"), ("0", "0%", "0.00"), ("100%", "100%", "100.00"), (" 12.25 % ", "12.25%", "12.25"),
    ("7", "7%", "7.00"), ("100.00", "100%", "100.00"),
])
def test_good_commission_values_are_stored_normalised(value, stored, rate):
    row = platform.set_commission_rate(actor=f.make_admin(), value=value)
    assert row.value == stored and platform.commission_rate() == Decimal(rate)


@pytest.mark.parametrize("role", [None, Role.USER, Role.VENDOR])
def test_only_admins_read_the_log_or_change_settings(role):
    actor = f.make_user(role=role) if role else None
    expected = Unauthorized if role is None else Forbidden
    with pytest.raises(expected):
        audit.list_entries(actor=actor)
    with pytest.raises(expected):
        platform.set_commission_rate(actor=actor, value="10%")
    assert f.audit_actions() == []


def test_log_pages_and_searches():
    alice, bob = f.make_admin("alice"), f.make_admin("bob")
    for n in range(3):
        platform.set_commission_rate(actor=alice, value=f"{n}%")
    platform.update_setting(actor=bob, key=platform.USD_TO_EUR_RATE, value="0.9")
    page, total = audit.list_entries(actor=alice, limit=2, offset=1)
    assert total == 4 and [e.details["to"] for e in page] == ["2%", "1%"]
    assert audit.list_entries(actor=alice, search="BOB")[1] == 1
    assert audit.list_entries(actor=alice, search="usdToEur")[0][0].actor_username == "bob"
    assert audit.list_entries(actor=alice, search="100%")[1] == 0  # % is matched literally
    with pytest.raises(InvalidParameter):
        audit.list_entries(actor=alice, search="x" * 201)
    with pytest.raises(InvalidParameter):
        audit.list_entries(actor=alice, limit=0)
