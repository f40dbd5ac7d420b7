"""The audit log in words: each entry as one sentence an admin reads ('admin approved the refund of $9.99 to
maria for Dashboard Builder (order #06a1b9e7)'), with the subject's name, amounts and old -> new values.

Entries keep ids (they outlive renames and deletions); the names are looked up when the log is read, a page at a
time in one query per kind of subject, and an entry whose subject is gone falls back to what it recorded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlmodel import Session, select

from marketplace.models import Agent, LicenseKey, Order, Refund, Report, User
from marketplace.services import money

ARROW = " -> "
SETTING_NAMES = {"commissionRate": "the commission rate", "checkoutCurrency": "the checkout currency",
                 "usdToEurRate": "the USD to EUR rate", "allowGuestCheckout": "guest checkout"}
PLAN_FIELDS = {"name": "name", "monthlyPrice": "monthly price", "agentLimit": "agent limit", "feePercent": "fee"}
ROLE_NAMES = {"user": "customer", "vendor": "vendor", "admin": "admin"}


class Entry(Protocol):
    """What an entry in words is made of (read-only, so frozen records qualify)."""

    @property
    def actor_username(self) -> str: ...
    @property
    def action(self) -> str: ...
    @property
    def target_type(self) -> str: ...
    @property
    def target_id(self) -> str: ...
    @property
    def details(self) -> dict[str, Any]: ...


@dataclass
class _Names:
    """What a page of entries names, read in one query per kind."""

    agents: dict[str, str] = field(default_factory=dict)
    users: dict[str, str] = field(default_factory=dict)
    refunds: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)  # amount, customer, agent, order
    orders: dict[str, tuple[str, str]] = field(default_factory=dict)  # agent, customer
    keys: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # key end, agent, buyer
    reports: dict[str, str] = field(default_factory=dict)  # agent name


def _ids(entries: Iterable[Entry], kind: str, key: str | None = None) -> set[str]:
    found = {e.target_id for e in entries if e.target_type == kind and e.target_id}
    if key:
        found |= {str(e.details[key]) for e in entries if e.details.get(key)}
    return found


def _lookup(session: Session, entries: Sequence[Entry]) -> _Names:
    names = _Names()
    agent_ids = _ids(entries, "agent", "agentId")
    user_ids = _ids(entries, "user", "vendorId")
    if refund_ids := _ids(entries, "refund"):
        for refund, order, username in session.exec(
                select(Refund, Order, User.username).join(Order, Order.id == Refund.order_id)
                .join(User, User.id == Order.user_id, isouter=True).where(Refund.id.in_(refund_ids))).all():
            names.refunds[refund.id] = (money.format_amount(refund.amount_cents, refund.currency),
                                        username or order.customer_email, order.agent_name, order.id[-8:])
    if order_ids := {str(e.details["orderId"]) for e in entries if e.details.get("orderId")}:
        for order, username in session.exec(select(Order, User.username).join(User, User.id == Order.user_id,
                                                                              isouter=True)
                                            .where(Order.id.in_(order_ids))).all():
            names.orders[order.id] = (order.agent_name, username or order.customer_email)
    if key_ids := _ids(entries, "license_key"):
        for key, agent_name, username in session.exec(
                select(LicenseKey, Agent.name, User.username).join(Agent, Agent.id == LicenseKey.agent_id)
                .join(User, User.id == LicenseKey.user_id).where(LicenseKey.id.in_(key_ids))).all():
            names.keys[key.id] = (key.key[-5:], agent_name, username)
    if report_ids := _ids(entries, "report"):
        names.reports = {report_id: name for report_id, name in session.exec(
            select(Report.id, Agent.name).join(Agent, Agent.id == Report.agent_id)
            .where(Report.id.in_(report_ids))).all()}
    if agent_ids:
        names.agents = dict(session.exec(select(Agent.id, Agent.name).where(Agent.id.in_(agent_ids))).all())
    if user_ids:
        names.users = dict(session.exec(select(User.id, User.username).where(User.id.in_(user_ids))).all())
    return names


def _reason(details: Mapping[str, Any]) -> str:
    reason = str(details.get("reason") or "").strip()
    return f": {reason}" if reason else ""


def _change(before: object, after: object) -> str:
    return f"{'none' if before in (None, '') else before}{ARROW}{'none' if after in (None, '') else after}"


def _agent(entry: Entry, names: _Names) -> str:
    return names.agents.get(entry.target_id) or str(entry.details.get("name") or f"agent {entry.target_id}")


def _review(entry: Entry, names: _Names) -> str:
    agent_id = str(entry.details.get("agentId") or "")
    agent = names.agents.get(agent_id) or (f"agent {agent_id}" if agent_id else "an agent")
    return f"{entry.details.get('author') or 'a former user'}'s review of {agent}"


def _refund(entry: Entry, names: _Names, verb: str) -> str:
    found = names.refunds.get(entry.target_id)
    if found is None:
        return f"{verb} refund {entry.target_id}"
    amount, customer, agent_name, order = found
    return f"{verb} the refund of {amount} to {customer} for {agent_name} (order #{order})"


def _plan_value(key: str, value: object) -> object:
    """A plan's recorded value as its form shows it: '$29.00', '10.00%', 'unlimited'."""
    if key == "monthlyPrice" and value not in (None, ""):
        return f"${value}"
    if key == "feePercent" and value not in (None, ""):
        return f"{value}%"
    if key == "agentLimit" and value is None:
        return "unlimited"
    return value


def _plan(entry: Entry, _names: _Names) -> str:
    before, after = entry.details.get("from") or {}, entry.details.get("to") or {}
    changes = [f"{label} {_change(_plan_value(key, before.get(key)), _plan_value(key, after.get(key)))}"
               for key, label in PLAN_FIELDS.items() if before.get(key) != after.get(key)]
    name = after.get("name") or before.get("name") or entry.target_id
    return f"changed the {name} plan: {'; '.join(changes)}" if changes else f"saved the {name} plan unchanged"


def _license(entry: Entry, names: _Names, verb: str) -> str:
    found = names.keys.get(entry.target_id)
    what = f"the license key ending {found[0]} of {found[2]} for {found[1]}" if found else \
        f"license key {entry.target_id}"
    return f"{verb} {what}{_reason(entry.details) if verb == 'disabled' else ''}"


def _user(entry: Entry, names: _Names) -> str:
    return str(entry.details.get("username") or names.users.get(entry.target_id) or f"user {entry.target_id}")


def _application(entry: Entry, names: _Names, verb: str) -> str:
    business = entry.details.get("businessName")
    return f"{verb} the vendor application of {_user(entry, names)}" + (f" ({business})" if business else "")


def _report(entry: Entry, names: _Names) -> str:
    agent_name = names.reports.get(entry.target_id) or names.agents.get(str(entry.details.get("agentId") or ""))
    subject = f"the report on {agent_name}" if agent_name else f"report {entry.target_id}"
    return f"moved {subject} {_change(entry.details.get('from'), entry.details.get('to'))}"


_WORDS: dict[str, Callable[[Entry, _Names], str]] = {
    "agent.approve": lambda e, n: f"approved {_agent(e, n)}" + (
        f" (version {e.details['version']})" if e.details.get("revisionId") and e.details.get("version") else ""),
    "agent.reject": lambda e, n: f"rejected {_agent(e, n)}{_reason(e.details)}",
    "agent.delete": lambda e, n: f"deleted {_agent(e, n)}",
    "vendor.approve": lambda e, n: _application(e, n, "approved"),
    "vendor.reject": lambda e, n: _application(e, n, "rejected"),
    "user.delete": lambda e, n: f"deleted the {ROLE_NAMES.get(str(e.details.get('role')), 'account')} "
                                f"{_user(e, n)}" + (f" ({e.details['email']})" if e.details.get("email") else ""),
    "report.status": _report,
    "setting.update": lambda e, n: f"changed {SETTING_NAMES.get(e.target_id, e.target_id)} "
                                   f"{_change(e.details.get('from'), e.details.get('to'))}",
    "plan.update": _plan,
    "refund.approve": lambda e, n: _refund(e, n, "approved"),
    "refund.create": lambda e, n: _refund(e, n, "made") + _reason(e.details),
    "refund.reject": lambda e, n: _rejected_refund(e, n),
    "license.disable": lambda e, n: _license(e, n, "disabled"),
    "license.enable": lambda e, n: _license(e, n, "enabled"),
    "demo.switch_role": lambda e, n: "switched role " + _change(
        ROLE_NAMES.get(str(e.details.get("from")), e.details.get("from")),
        ROLE_NAMES.get(str(e.details.get("to")), e.details.get("to"))),
    "review.remove": lambda e, n: f"removed {_review(e, n)}{_reason(e.details)}",
    "review.reply_remove": lambda e, n: f"removed the vendor's answer to {_review(e, n)}{_reason(e.details)}",
    "demo.load_data": lambda e, n: "loaded the demo data",
    "demo.advance_clock": lambda e, n: f"advanced the demo clock by {e.details.get('days')} days",
}


def _rejected_refund(entry: Entry, names: _Names) -> str:
    found = names.refunds.get(entry.target_id)
    if found is None:
        return f"rejected refund request {entry.target_id}{_reason(entry.details)}"
    amount, customer, agent_name, order = found
    return (f"rejected the refund request of {customer} for {agent_name} ({amount}, order #{order})"
            f"{_reason(entry.details)}")


def summaries(session: Session, entries: Sequence[Entry]) -> list[str]:
    """One sentence per entry, in order: the actor, the action in words, the subject's name, amounts and changes.
    An action without words of its own reads as its code and target."""
    names = _lookup(session, entries)
    out = []
    for entry in entries:
        words = _WORDS.get(entry.action)
        text = words(entry, names) if words else f"{entry.action} {entry.target_type} {entry.target_id}".strip()
        out.append(f"{entry.actor_username or 'Someone'} {text}")
    return out
