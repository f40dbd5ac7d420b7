"""A vendor's plan subscription in Stripe, mirrored onto its `vendor_plans` row.

A paid plan is a platform subscription (no Connect transfer) on the vendor's one Stripe Customer, whose
metadata names it (`vendorId`, and `vendorPlan`: the plan its price bills). That metadata is how the billing
webhooks tell a vendor plan from a customer's agent subscription (`is_plan`).

`mirror` applies Stripe's current view, retrieved (so any delivery order ends in the same state), and each
transition is one conditional UPDATE on the row stating what must still be true, so webhooks replayed, late or
racing the vendor's own request cause it, and its mail, exactly once:
- paid (active) for the first time -> the plan starts (the change waiting for the period end is left to the
  vendor's requests, which write it before they call Stripe);
- a new period with a change chosen for it -> the chosen plan (a downgrade) takes over;
- past due -> 7 days of grace (Stripe's last retry is 7 days after the first failure), active again -> cleared;
- ended (cancelled at the period end, or the last retry failed) -> back to Free.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from marketplace.db import is_postgres, session_scope
from marketplace.integrations import billing
from marketplace.integrations.mail import OutgoingMail
from marketplace.models import FREE_PLAN_ID, PlanPayment, User, VendorPlan, VendorPlanStatus
from marketplace.models.base import new_id, utcnow
from marketplace.services import access, decisions, mail, money, names
from marketplace.services.billing.records import long_date
from marketplace.services.payment_errors import provider_errors
from marketplace.services.plans import mails
from marketplace.services.plans.catalog import PlanView, plan_in
from marketplace.services.receipts import plan_receipts

LIVE = frozenset({"active", "trialing", "past_due"})
ATTEMPTS = 3


def is_plan(metadata: dict[str, Any]) -> bool:
    """A vendor plan's subscription (customers' agent subscriptions carry `agentId` and no `vendorPlan`)."""
    return bool(metadata.get("vendorPlan") and metadata.get("vendorId"))


def metadata_for(*, vendor: User, plan: PlanView) -> dict[str, str]:
    return {"vendorId": vendor.id, "vendorPlan": plan.id}


def ensure_row(session: Session, vendor_id: str) -> None:
    """The vendor's row (Free, active) where there is none, so a claim always finds one."""
    dialect = postgresql if is_postgres() else sqlite
    session.execute(dialect.insert(VendorPlan).values(user_id=vendor_id).on_conflict_do_nothing())


def as_read(row: VendorPlan) -> tuple[Any, ...]:
    """The conditions that the row is still as it was read."""
    return (VendorPlan.user_id == row.user_id, VendorPlan.plan_id == row.plan_id,
            VendorPlan.updated_at == row.updated_at)


def tell(session: Session, vendor_id: str, compose: Callable[..., OutgoingMail], **words: str | bool) -> None:
    """Mail the vendor (through the outbox, in `session`'s transaction) unless its account is gone."""
    vendor = session.get(User, vendor_id)
    if vendor is not None and vendor.deleted_at is None:
        mail.send_after_commit(session, compose(to=vendor.email, name=names.greeting_name(vendor), **words))


def fee_text(plan: PlanView) -> str:
    return money.format_percent(plan.fee_percent).removesuffix(".00")


def day(moment: datetime | None) -> str:
    return long_date(moment) if moment is not None else "the end of the period"


def mirror(sub: billing.Subscription) -> str:
    """Apply Stripe's view of a plan subscription to its vendor's row; the webhook outcome word. When the row
    changed under it (the vendor's own request, another delivery), Stripe's view is read again: the one it had
    may be older than that change."""
    vendor_id = sub.metadata.get("vendorId", "")
    for attempt in range(ATTEMPTS):
        if attempt:
            found = retrieve(sub.id)
            if found is None:
                return "ignored"
            sub = found
        with session_scope() as session:
            if session.get(User, vendor_id) is None:
                return "ignored"
            ensure_row(session, vendor_id)
            session.flush()
            row = session.get_one(VendorPlan, vendor_id)
            session.refresh(row)
            outcome = _apply(session, row, sub)
            if outcome is not None:
                return outcome
    return "ignored"


def _apply(session: Session, row: VendorPlan, sub: billing.Subscription) -> str | None:
    """One transition of the row toward Stripe's view; None when another writer changed the row first (the
    caller reads it again)."""
    now = utcnow()
    ours = row.stripe_subscription_id == sub.id
    if sub.status in billing.ENDED_STATUSES or sub.status not in LIVE:
        if not ours or sub.status == "incomplete":
            return "ignored"  # an older subscription, or one still waiting for its first payment
        was, unpaid = plan_in(session, row.plan_id), row.past_due_since is not None  # (the claim updates `row`)
        if not _claim(session, row, plan_id=FREE_PLAN_ID, status=VendorPlanStatus.ACTIVE,
                      stripe_subscription_id=None, current_period_end=None, pending_plan_id=None,
                      past_due_since=None, updated_at=now):
            return None
        if not was.is_free:
            tell(session, row.user_id, mails.back_to_free, plan=was.name, unpaid=unpaid)
        return "updated"
    billed = plan_in(session, sub.metadata["vendorPlan"])
    # The change waiting for the period end (`pending_plan_id`) is the vendor's requests' to write: Stripe's
    # view of it may be older than the request that just changed it.
    values: dict[str, Any] = {"stripe_subscription_id": sub.id, "current_period_end": sub.current_period_end}
    mails_to_send: list[tuple[Callable[..., OutgoingMail], dict[str, str]]] = []
    if not ours or row.plan_id == FREE_PLAN_ID:
        values.update(plan_id=billed.id, pending_plan_id=FREE_PLAN_ID if sub.cancel_at_period_end else None)
        mails_to_send.append((mails.started, {"plan": billed.name, "fee": fee_text(billed),
                                              "renews_on": day(sub.current_period_end),
                                              "amount": money.format_amount(billed.monthly_price_cents, "usd")}))
    elif row.pending_plan_id not in (None, FREE_PLAN_ID) and row.current_period_end is not None \
            and sub.current_period_end is not None and sub.current_period_end > row.current_period_end:
        values.update(plan_id=billed.id, pending_plan_id=None)  # the new period is on the chosen plan
        mails_to_send.append((mails.changed, {"plan": billed.name, "fee": fee_text(billed)}))
    if sub.status == "past_due":
        values["status"] = VendorPlanStatus.PAST_DUE
        if row.past_due_since is None:
            values["past_due_since"] = now
            plan = plan_in(session, values.get("plan_id", row.plan_id))
            mails_to_send.append((mails.payment_failed, {"plan": plan.name, "until": day(now + access.GRACE)}))
    else:
        values.update(status=VendorPlanStatus.ACTIVE, past_due_since=None)
    current = {key: getattr(row, key) for key in values}
    if current == values:
        return "already-recorded"
    if not _claim(session, row, **values, updated_at=now):
        return None
    for compose, words in mails_to_send:
        tell(session, row.user_id, compose, **words)
    return "updated"


def _claim(session: Session, row: VendorPlan, **values: Any) -> bool:
    return decisions.claim_any(session, VendorPlan, *as_read(row), values=values) == 1


def record_payment(invoice: billing.Invoice, sub: billing.Subscription) -> bool:
    """A paid invoice of a plan subscription, once (the admin's plan revenue). True when this call recorded it."""
    if invoice.status != "paid" or invoice.amount_paid <= 0:
        return False
    dialect = postgresql if is_postgres() else sqlite
    with session_scope() as session:
        vendor = session.get(User, sub.metadata.get("vendorId", ""))
        if vendor is None:
            return False
        # The plan the invoice was made for (its own snapshot of the subscription's metadata: a later change of
        # plan does not rewrite it), else the subscription's now.
        plan = plan_in(session, invoice.subscription_metadata.get("vendorPlan") or sub.metadata["vendorPlan"])
        payment = PlanPayment(id=new_id(), invoice_id=invoice.id, user_id=vendor.id, plan_id=plan.id,
                              amount_cents=invoice.amount_paid, currency=invoice.currency,
                              billing_reason=invoice.billing_reason, created_at=utcnow())
        # RETURNING says whether this call inserted it (the driver's rowcount may be -1, "unknown", on PostgreSQL).
        inserted = session.execute(dialect.insert(PlanPayment).values(
            id=payment.id, invoice_id=payment.invoice_id, user_id=payment.user_id, plan_id=payment.plan_id,
            amount_cents=payment.amount_cents, currency=payment.currency, billing_reason=payment.billing_reason,
            created_at=payment.created_at).on_conflict_do_nothing().returning(PlanPayment.id)).scalar_one_or_none()
        if inserted is None:
            return False
        # Its receipt (the marketplace sells the plan), numbered with it, with the card the plan charges.
        plan_receipts.issue_for_plan_payment(session, payment, vendor=vendor, plan_name=plan.name,
                                             card=sub.default_card)
        return True


def invoice_paid(invoice: billing.Invoice, sub: billing.Subscription) -> str:
    recorded = record_payment(invoice, sub)
    outcome = mirror(sub)
    return "recorded" if recorded else outcome


def retrieve(subscription_id: str) -> billing.Subscription | None:
    with provider_errors():
        return billing.retrieve_subscription(subscription_id)
