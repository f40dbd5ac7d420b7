"""The vendor's plan requests on `/vendor/plans` and `/api/vendor/plan`: choose a plan, cancel, and read the
plan back after paying.

- Free -> a paid plan: a platform subscription (no Connect transfer) whose first invoice the Payment Element
  pays; the plan starts when Stripe says it is paid (`refresh_plan` after `confirmPayment`, or the webhook).
- A dearer plan: at once, Stripe prorating the rest of the period and charging it to the card on file.
- A cheaper plan, or Free (cancel): at the period end; the vendor keeps its plan until then.
- The current plan again while a change is waiting: the change is undone.

Each request writes its decision on the vendor's row as it read it (one conditional UPDATE) before calling
Stripe, and gives it back if Stripe fails: of requests at the same moment one goes through and the others answer
409 and change nothing (no Stripe call, no mail).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from marketplace.db import session_scope
from marketplace.integrations import billing
from marketplace.integrations.mail import OutgoingMail
from marketplace.models import FREE_PLAN_ID, User, VendorPlan, VendorPlanStatus
from marketplace.models.base import utcnow
from marketplace.services import decisions, money
from marketplace.services.billing import customers
from marketplace.services.errors import Conflict, Invalid
from marketplace.services.payment_errors import provider_errors
from marketplace.services.permissions import require_vendor
from marketplace.services.plans import mails, subscriptions
from marketplace.services.plans.catalog import PlanView, plan_in
from marketplace.services.plans.current import CurrentPlan, current_in

ALREADY = "You are already on the {plan} plan"
BUSY = "Your plan is being changed. Please try again."
PAST_DUE = "Your last plan payment failed: your plan returns to Free on {date} unless it is paid"
NOTHING_TO_CANCEL = "You are on the Free plan: there is nothing to cancel"
ALREADY_CANCELLED = "Your {plan} plan is already cancelled: it ends on {date}"
NO_SUBSCRIPTION = "Your plan has no subscription to change. Please contact support."
FAILED = "Your plan could not be changed. Please try again."


@dataclass(frozen=True)
class PlanChange:
    client_secret: str | None  # the Payment Element pays this first invoice; the plan starts once it is paid
    message: str
    current: CurrentPlan


def _read(vendor: User) -> tuple[VendorPlan | None, CurrentPlan]:
    with session_scope() as session:
        row = session.get(VendorPlan, vendor.id)
        if row is not None:
            session.expunge(row)
        return row, current_in(session, vendor.id)


def _now(vendor: User) -> CurrentPlan:
    with session_scope() as session:
        return current_in(session, vendor.id)


@contextmanager
def _decided(row: VendorPlan, **values: object) -> Iterator[str]:
    """This request's decision, written on the row as it was read (else 409: another request or a webhook
    changed it first), before Stripe is called; given back if Stripe refuses or fails. Yields the id of the
    subscription to change."""
    if not row.stripe_subscription_id:
        raise Conflict(NO_SUBSCRIPTION)
    decided_at = utcnow()
    with session_scope() as session:
        if not decisions.claim_any(session, VendorPlan, *subscriptions.as_read(row),
                                   VendorPlan.stripe_subscription_id == row.stripe_subscription_id,
                                   values={**values, "updated_at": decided_at}):
            raise Conflict(BUSY)
    try:
        yield row.stripe_subscription_id
    except BaseException:
        with session_scope() as session:
            decisions.claim_any(session, VendorPlan, VendorPlan.user_id == row.user_id,
                                VendorPlan.updated_at == decided_at,
                                values={**{key: getattr(row, key) for key in values}, "updated_at": utcnow()})
        raise


def _tell(vendor: User, compose: Callable[..., OutgoingMail], words: dict[str, str], **values: object) -> None:
    """The decided change's mail (and what Stripe answered, e.g. the period end), in one transaction."""
    with session_scope() as session:
        if values:
            decisions.claim_any(session, VendorPlan, VendorPlan.user_id == vendor.id, values=values)
        subscriptions.tell(session, vendor.id, compose, **words)


def _date(current: CurrentPlan) -> str:
    return subscriptions.day(current.current_period_end)


def choose_plan(*, actor: User | None, plan_id: str) -> PlanChange:
    """Move the signed-in vendor to `plan_id` (see the module's rules); `client_secret` when a first payment is
    due."""
    vendor = require_vendor(actor)
    with session_scope() as session:
        target = plan_in(session, plan_id)
    row, current = _read(vendor)
    if target.is_free:
        if current.plan.is_free:
            raise Conflict(ALREADY.format(plan=target.name))
        return cancel_plan(actor=vendor)
    if current.plan.is_free:
        return _open(vendor, target)
    if current.status == VendorPlanStatus.PAST_DUE:
        raise Conflict(PAST_DUE.format(date=subscriptions.day(current.grace_ends_at)))
    if row is None:  # a paid plan always has its row
        raise Conflict(NO_SUBSCRIPTION)
    if target.id == current.plan.id:
        if current.pending_plan is None:
            raise Conflict(ALREADY.format(plan=target.name))
        return _keep(vendor, row, current)
    if target.monthly_price_cents > current.plan.monthly_price_cents:
        return _upgrade(vendor, row, target)
    return _downgrade(vendor, row, current, target)


def _price(plan: PlanView) -> str:
    with provider_errors():
        return billing.plan_price(plan_id=plan.id, plan_name=plan.name, amount=plan.monthly_price_cents)


def _open(vendor: User, plan: PlanView) -> PlanChange:
    """A subscription to `plan` waiting for its first payment (the same one again for the same vendor, plan
    and price: a double click or a reload); one already paid is applied instead."""
    customer = customers.customer_id_for(user=vendor)
    price = _price(plan)
    key = f"plan-{vendor.id}-{plan.id}-{price}"

    def create(idempotency_key: str) -> billing.Subscription:
        with provider_errors(FAILED):
            return billing.create_subscription(customer=customer, price=price, idempotency_key=idempotency_key,
                                               metadata=subscriptions.metadata_for(vendor=vendor, plan=plan))

    sub = create(key)
    if sub.status in subscriptions.LIVE:
        subscriptions.mirror(sub)  # paid already (the page closed before it said so)
        return PlanChange(client_secret=None, message=f"You are now on the {plan.name} plan", current=_now(vendor))
    if sub.status != "incomplete" or not sub.client_secret:
        sub = create(f"{key}-after-{sub.id}")  # that one expired: a new subscription
    with session_scope() as session:
        subscriptions.ensure_row(session, vendor.id)
        decisions.claim_any(session, VendorPlan, VendorPlan.user_id == vendor.id,
                            VendorPlan.plan_id == FREE_PLAN_ID, values={"stripe_subscription_id": sub.id})
    price_label = money.amount_label(plan.monthly_price_cents)
    message = f"Pay {price_label}/month to start your {plan.name} plan"
    if sub.current_period_end is not None:  # the next charge, by the clock that bills it
        message += f". The next charge of {price_label} is on {subscriptions.day(sub.current_period_end)}."
    return PlanChange(client_secret=sub.client_secret, current=_now(vendor), message=message)


def _item(subscription_id: str) -> str:
    found = billing.retrieve_subscription(subscription_id)
    if found is None:
        raise Conflict(NO_SUBSCRIPTION)
    return found.item_id


def _upgrade(vendor: User, row: VendorPlan, plan: PlanView) -> PlanChange:
    """At once: Stripe charges the prorated difference now; a declined card changes nothing (400)."""
    price = _price(plan)
    with _decided(row, plan_id=plan.id, pending_plan_id=None) as subscription_id, provider_errors(FAILED):
        try:
            sub = billing.change_price(subscription_id, item_id=_item(subscription_id), price=price, now=True,
                                       metadata=subscriptions.metadata_for(vendor=vendor, plan=plan))
        except billing.PaymentDeclined as exc:
            raise Invalid(exc.message) from exc
    _tell(vendor, mails.upgraded, {"plan": plan.name, "fee": subscriptions.fee_text(plan),
                                   "renews_on": subscriptions.day(sub.current_period_end)},
          current_period_end=sub.current_period_end)
    return PlanChange(client_secret=None, message=f"You are now on the {plan.name} plan", current=_now(vendor))


def _downgrade(vendor: User, row: VendorPlan, current: CurrentPlan, plan: PlanView) -> PlanChange:
    """At the period end: the next renewal bills the cheaper plan, nothing prorated; the plan stays until then."""
    price = _price(plan)
    with _decided(row, pending_plan_id=plan.id) as subscription_id, provider_errors(FAILED):
        billing.change_price(subscription_id, item_id=_item(subscription_id), price=price, now=False,
                             metadata=subscriptions.metadata_for(vendor=vendor, plan=plan))
    on = _date(current)
    _tell(vendor, mails.change_scheduled, {"plan": current.plan.name, "new_plan": plan.name, "on": on})
    return PlanChange(client_secret=None, message=f"Your plan changes to {plan.name} on {on}",
                      current=_now(vendor))


def _keep(vendor: User, row: VendorPlan, current: CurrentPlan) -> PlanChange:
    """Undo the change waiting for the period end: the plan renews as it is."""
    plan = current.plan
    price = _price(plan) if not current.cancelled else ""
    with _decided(row, pending_plan_id=None) as subscription_id, provider_errors(FAILED):
        if current.cancelled:
            billing.set_cancel_at_period_end(subscription_id, False)
        else:
            billing.change_price(subscription_id, item_id=_item(subscription_id), price=price, now=False,
                                 metadata=subscriptions.metadata_for(vendor=vendor, plan=plan))
    on = _date(current)
    _tell(vendor, mails.continues, {"plan": plan.name, "renews_on": on})
    return PlanChange(client_secret=None, message=f"Your {plan.name} plan continues: it renews on {on}",
                      current=_now(vendor))


def cancel_plan(*, actor: User | None) -> PlanChange:
    """Back to Free at the end of the paid period: nothing more is charged, the plan stays until then."""
    vendor = require_vendor(actor)
    row, current = _read(vendor)
    if current.plan.is_free:
        raise Conflict(NOTHING_TO_CANCEL)
    if current.cancelled:
        raise Conflict(ALREADY_CANCELLED.format(plan=current.plan.name, date=_date(current)))
    if row is None:
        raise Conflict(NO_SUBSCRIPTION)
    with _decided(row, pending_plan_id=FREE_PLAN_ID) as subscription_id, provider_errors(FAILED):
        billing.set_cancel_at_period_end(subscription_id, True)
    on = _date(current)
    _tell(vendor, mails.cancelled, {"plan": current.plan.name, "on": on})
    return PlanChange(client_secret=None, current=_now(vendor),
                      message=f"Your {current.plan.name} plan ends on {on}. You will then be on the Free plan.")


def refresh_plan(*, actor: User | None) -> CurrentPlan:
    """The vendor's plan after the Payment Element paid: Stripe's view of its subscription applied now (the
    webhook applies the same, whichever comes first)."""
    vendor = require_vendor(actor)
    row, current = _read(vendor)
    if row is None or not row.stripe_subscription_id:
        return current
    sub = subscriptions.retrieve(row.stripe_subscription_id)
    if sub is not None and subscriptions.is_plan(sub.metadata) and sub.metadata["vendorId"] == vendor.id:
        subscriptions.mirror(sub)
    return _now(vendor)
