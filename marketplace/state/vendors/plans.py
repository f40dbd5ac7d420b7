"""A vendor's plan: the dashboard's plan card and `/vendor/plans`, where the vendor changes it.

Every rule (what a change costs, when it takes effect, what is refused) is the plans service's; this state shows
the vendor's plan, asks before a change that waits for the period end or charges the card on file, hands a new
subscription's first payment to the Payment Element and shows the service's message in a toast.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import reflex as rx
from reflex.event import EventSpec

from marketplace.models import User
from marketplace.services import money, plans, purchases, receipts
from marketplace.state import blocking
from marketplace.state.display import format_day, time_zone
from marketplace.state.plans import PlanOption, plan_option
from marketplace.state.service_calls import Toast, attempt
from marketplace.state.vendors.page import VendorState

PAYMENT_FAILED = "The payment did not go through. Please try again."
PLANS_PATH = "/vendor/plans"


def _offer_and_current(user: User | None) -> tuple[list[plans.PlanView], plans.CurrentPlan]:
    """The plans on offer and the vendor's own."""
    return plans.list_plans(), plans.current_plan(actor=user)


def _offer_current_and_payments(user: User | None) -> tuple[list[plans.PlanView], plans.CurrentPlan,
                                                             list[receipts.PlanPaymentLine]]:
    """As `_offer_and_current`, and the vendor's plan payments with their receipts."""
    offer, current = _offer_and_current(user)
    return offer, current, receipts.plan_payments(actor=user)


@dataclass
class PlanPaymentRow:
    """One plan payment in the page's payment history, with its receipt's link."""

    id: str
    date: str  # 'Jan 5, 2026'
    plan_name: str
    amount: str  # '$29.00'
    receipt_number: str
    receipt_url: str


def agents_label(used: int, agent_limit: int | None, plan_name: str = "") -> str:
    """'2 of 3 agents' under a limit; '7 agents (unlimited)' without one; over it (a plan changed to a smaller
    one): '12 agents; the Free plan allows 3. Upgrade to add more.'"""
    agents = f"{used:,} {'agent' if used == 1 else 'agents'}"
    if agent_limit is None:
        return f"{agents} (unlimited)"
    if used > agent_limit:
        return f"{agents}; the {plan_name} plan allows {agent_limit:,}. Upgrade to add more."
    return f"{used:,} of {agent_limit:,} {'agent' if agent_limit == 1 else 'agents'}"


def period_label(current: plans.CurrentPlan, day: str) -> str:
    """When the paid plan renews, ends or changes ('' on Free); `day` is the period end as the page writes it."""
    if not day:
        return ""
    if current.pending_plan is None:
        return f"Renews on {day}"
    if current.cancelled:
        return f"Ends on {day}"
    return f"Changes to {current.pending_plan.name} on {day}"


def change_kind(current: plans.PlanView, target: plans.PlanView) -> str:
    """How the page asks about a change: 'pay' (the Payment Element), 'upgrade' (charged now to the card on
    file), 'downgrade' or 'cancel' (both at the period end). The service decides what happens; this only picks
    the words of the question."""
    if current.is_free:
        return "pay"
    if target.is_free:
        return "cancel"
    return "upgrade" if target.monthly_price_cents > current.monthly_price_cents else "downgrade"


class PlanSummary(rx.State, mixin=True):
    """The vendor's plan now, as the plan card and /vendor/plans write it."""

    plan_loading: bool = True
    plan_id: str = ""
    plan_name: str = ""
    plan_fee: str = ""  # '20%'
    plan_price: str = ""  # '$29'
    agents_used: str = ""  # '2 of 3 agents'
    limit_note: str = ""  # the limit message when no more agents may be submitted
    period: str = ""  # 'Renews on Jan 5, 2026' | 'Ends on ...' | 'Changes to Pro on ...' | '' (Free)
    period_end: str = ""  # 'Jan 5, 2026'
    pending_plan_id: str = ""
    past_due: str = ""  # the grace warning, '' when paid up

    def _day(self, moment: datetime | None) -> str:
        return format_day(moment, time_zone(getattr(self, "time_zone", "UTC"))) if moment else ""

    def _show_current(self, current: plans.CurrentPlan) -> None:
        option = plan_option(current.plan)
        self.plan_id, self.plan_name, self.plan_price = current.plan.id, current.plan.name, option.price
        self.plan_fee = money.percent_label(current.plan.fee_percent)
        self.agents_used = agents_label(current.agents_used, current.agent_limit, current.plan.name)
        self.limit_note = plans.limit_message(current.plan) if current.at_limit else ""
        self.period_end = self._day(current.current_period_end)
        self.period = period_label(current, self.period_end)
        self.pending_plan_id = current.pending_plan.id if current.pending_plan else ""
        grace = self._day(current.grace_ends_at)
        self.past_due = (f"Your last plan payment failed: your plan returns to Free on {grace} unless it is paid."
                         if grace else "")
        self.plan_loading = False


class PlanCardState(PlanSummary, VendorState):
    """The vendor dashboard's plan card, loaded when it mounts."""

    @rx.event
    async def load(self) -> EventSpec | list[EventSpec] | None:
        self.plan_loading = True
        done = await attempt(Toast(), plans.current_plan, actor=await self.viewer())
        if done.failed:
            return done.events
        self._show_current(done.value)
        return None


class VendorPlansState(PlanSummary, VendorState):
    """/vendor/plans: the plans, the vendor's marked; a confirmation, then the change or the first payment."""

    plans: list[PlanOption] = []
    payments: list[PlanPaymentRow] = []  # the vendor's plan payments, newest first, each with its receipt
    failed: str = ""
    # the question asked before a change: kind (upgrade | downgrade | cancel), which plan, the words
    confirm_kind: str = ""
    confirm_plan_id: str = ""
    confirm_title: str = ""
    confirm_text: str = ""
    changing: str = ""  # the plan id being asked for, while the server works
    # the first payment of a new subscription
    paying_for: str = ""  # the plan's name
    payment_message: str = ""  # 'Pay $29.00/month to start your Pro plan'
    client_secret: str = ""
    publishable_key: str = ""
    stripe_js_url: str = ""
    processing: bool = False
    payment_error: str = ""

    @rx.var
    def confirm_open(self) -> bool:
        return self.confirm_kind != ""

    @rx.var
    def pay_label(self) -> str:
        return "Processing..." if self.processing else f"Start {self.paying_for} plan"

    @rx.event
    async def load(self) -> AsyncIterator[Any]:
        """Runs when the page's content mounts (after VendorState has found a vendor and its time zone)."""
        self.plan_loading, self.failed = True, ""
        yield
        user = await self.viewer()
        done = await attempt(Toast(None), _offer_current_and_payments, user)
        if done.signed_out:
            yield done.events
            return
        if done.failed:
            self.failed, self.plan_loading = done.message, False
            return
        offer, current, paid = done.value
        self._show_current(current)
        self.plans = [plan_option(plan) for plan in offer]
        zone = time_zone(getattr(self, "time_zone", "UTC"))
        self.payments = [PlanPaymentRow(id=p.id, date=format_day(p.paid_at, zone), plan_name=p.plan_name,
                                        amount=p.amount, receipt_number=p.receipt_number, receipt_url=p.receipt_url)
                         for p in paid]

    @rx.event
    async def choose(self, plan_id: str) -> AsyncIterator[Any]:
        """A plan's button: from Free straight to the payment; otherwise ask first (the service says what
        happens); the current plan's button keeps it (undoes a change waiting for the period end)."""
        if self.changing or self.processing:
            return
        if plan_id == self.plan_id:
            async for event in self._change(plan_id):
                yield event
            return
        offer = {plan.id: plan for plan in await blocking.run(plans.list_plans)}
        current, target = offer.get(self.plan_id), offer.get(plan_id)
        if current is None or target is None:
            yield rx.toast.error("Error", description="Plan not found")
            return
        kind = change_kind(current, target)
        if kind == "pay":
            async for event in self._change(plan_id):
                yield event
            return
        self.confirm_kind, self.confirm_plan_id = kind, plan_id
        self.confirm_title, self.confirm_text = confirmation(kind, current=current, target=target,
                                                             period_end=self.period_end)

    @rx.event
    def close_confirm(self) -> None:
        if not self.changing:
            self.confirm_kind = self.confirm_plan_id = ""

    @rx.event
    async def confirm(self) -> AsyncIterator[Any]:
        plan_id = self.confirm_plan_id
        if not plan_id:
            return
        async for event in self._change(plan_id):
            yield event

    async def _change(self, plan_id: str) -> AsyncIterator[Any]:
        self.changing = plan_id
        yield
        user = await self.viewer()
        done = await attempt(Toast("Plan not changed"), plans.choose_plan, actor=user, plan_id=plan_id)
        self.changing = ""
        if done.failed:
            if not done.signed_out:
                self.confirm_kind = self.confirm_plan_id = ""
            yield done.events
            return
        change = done.value
        self.confirm_kind = self.confirm_plan_id = ""
        if change.client_secret:
            config = purchases.browser_config()
            self.publishable_key, self.stripe_js_url = config.publishable_key, config.stripe_js_url
            self.client_secret, self.payment_message = change.client_secret, change.message
            self.paying_for = next((p.name for p in self.plans if p.id == plan_id), "")
            self.payment_error = ""
            return
        self._show_current(change.current)
        yield rx.toast.success("Plan updated", description=change.message)

    @rx.event
    def cancel_payment(self) -> None:
        if not self.processing:
            self.client_secret = self.paying_for = self.payment_message = self.payment_error = ""

    @rx.event
    def payment_started(self) -> None:
        self.processing, self.payment_error = True, ""

    @rx.event
    def payment_failed(self, message: str) -> None:
        self.processing, self.payment_error = False, message or PAYMENT_FAILED

    @rx.event
    def payment_incomplete(self, _status: str) -> None:
        self.payment_failed("")

    @rx.event
    def stripe_unavailable(self, message: str) -> EventSpec:
        self.processing, self.client_secret = False, ""
        return rx.toast.error("Error", description=message or PAYMENT_FAILED)

    @rx.event
    async def payment_succeeded(self, _payment_intent_id: str) -> AsyncIterator[Any]:
        """Stripe took the first payment: the server reads the subscription from Stripe and applies it."""
        self.processing = True
        yield
        done = await attempt(Toast(None), plans.refresh_plan, actor=await self.viewer())
        if done.signed_out:
            self.processing = False
            yield done.events
            return
        if done.failed:
            self.payment_failed(done.message)
            return
        current = done.value
        self.processing = False
        self.client_secret = self.paying_for = self.payment_message = ""
        self._show_current(current)
        yield rx.toast.success("Plan updated", description=f"You are now on the {current.plan.name} plan.")


def confirmation(kind: str, *, current: plans.PlanView, target: plans.PlanView, period_end: str) -> tuple[str, str]:
    """The question before a change that charges the card on file or waits for the period end."""
    if kind == "upgrade":
        return (f"Upgrade to {target.name}?",
                f"Your {target.name} plan starts now. The card on file is charged the prorated difference today, "
                f"then {money.format_amount(target.monthly_price_cents, 'usd')} a month.")
    if kind == "cancel":
        return (f"Cancel your {current.name} plan?",
                f"Your {current.name} plan stays until {period_end}. You will then be on the Free plan.")
    return (f"Change to {target.name}?",
            f"Your {current.name} plan stays until {period_end}. Your plan then changes to {target.name}.")
