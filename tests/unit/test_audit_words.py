"""The audit log in words (issue 34): each entry names the actor, the action, the subject (agent, customer, order
number), amounts and old -> new values, on the service and on `GET /api/admin/audit-log` (`summary`)."""

from __future__ import annotations

from sqlmodel import select

from marketplace.db import session_scope
from marketplace.models import LicenseKey, RefundStatus
from marketplace.services import audit, licenses, plans, platform
from marketplace.services.admin import deletion, moderation
from tests import factories


def _summaries(admin) -> list[str]:
    return [entry.summary for entry in audit.list_entries(actor=admin)[0]]


def test_each_entry_reads_as_a_sentence_with_names_amounts_and_changes():
    admin = factories.make_admin("root")
    vendor = factories.make_vendor("acme")
    buyer = factories.make_user("maria")
    agent = factories.make_agent(vendor, name="Dashboard Builder", price_cents=999, files=1)
    pending = factories.make_agent(vendor, name="Half Done", status="pending", files=1)
    order = factories.make_order(agent, buyer)
    refund = factories.make_refund(order, status=RefundStatus.SUCCEEDED)
    purchase = factories.make_purchase(factories.make_user("kenji"), agent)
    with session_scope() as session:
        key = session.exec(select(LicenseKey).where(LicenseKey.purchase_id == purchase.id)).one()

    platform.update_setting(actor=admin, key=platform.COMMISSION_RATE, value="15%")
    plans.update_plan(actor=admin, plan_id="pro", monthly_price="35", fee_percent="8")
    moderation.reject(actor=admin, agent_id=pending.id, rejection_reason="No README")
    with session_scope() as session:  # as services/refunds/settle.py records an admin's approval
        audit.record(session, actor=admin, action="refund.approve", target_type="refund", target_id=refund.id,
                     details={"orderId": order.id})
    licenses.set_disabled(actor=vendor, key_id=key.id, disabled=True, reason="Shared on a forum")
    deletion.delete_user(actor=admin, user_id=factories.make_user("gone", email="gone@example.com").id)

    newest_first = _summaries(admin)
    assert newest_first == [
        "root deleted the customer gone (gone@example.com)",
        f"acme disabled the license key ending {key.key[-5:]} of kenji for Dashboard Builder: "
        "Shared on a forum",
        f"root approved the refund of $9.99 to maria for Dashboard Builder (order #{order.id[-8:]})",
        "root rejected Half Done: No README",
        "root changed the Pro plan: monthly price $29.00 -> $35.00; fee 10.00% -> 8.00%",
        "root changed the commission rate 20% -> 15%",
    ]


def test_the_api_answers_each_entry_with_its_summary(client, login):
    admin = factories.make_admin("root")
    login(admin)
    assert client.put("/api/admin/settings/commissionRate", json={"value": "12%"}).status_code == 200
    [entry] = client.get("/api/admin/audit-log").json()
    assert entry["summary"] == "root changed the commission rate 20% -> 12%"
    assert entry["details"] == {"from": "20%", "to": "12%"}  # the recorded values stay as they were


def test_an_entry_whose_subject_is_gone_still_reads():
    admin = factories.make_admin("root")
    with session_scope() as session:
        audit.record(session, actor=admin, action="refund.approve", target_type="refund", target_id="r" * 32,
                     details={"orderId": "o" * 32})
        audit.record(session, actor=admin, action="something.new", target_type="thing", target_id="t1")
    assert sorted(_summaries(admin)) == ["root approved refund " + "r" * 32, "root something.new thing t1"]
