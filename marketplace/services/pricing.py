"""What an agent's pricing model promises, in words: its name (the wizard's choices, the admin's old -> new), the
checkout's order summary line, the date a monthly subscription would first renew, and what each charge was for.
The price label itself is `money.price_label` (one rule for every page)."""

from __future__ import annotations

import calendar
from datetime import datetime

from marketplace.models import OrderKind, PricingModel
from marketplace.services import money

MODEL_NAMES: dict[str, str] = {PricingModel.MONTHLY: "Monthly subscription", PricingModel.ONE_TIME: "One-time licence"}
MODEL_DETAILS = {PricingModel.MONTHLY: "Charged every month until the buyer cancels",
                 PricingModel.ONE_TIME: "Paid once, with free updates for 1 year"}
ORDER_KIND_LABELS: dict[str, str] = {OrderKind.PURCHASE: "Purchase", OrderKind.SUBSCRIPTION: "Subscription",
                     OrderKind.RENEWAL: "Renewal"}
LICENCE_LINE = "AI Agent License"
SUBSCRIPTION_LINE = "Monthly subscription - renews on {date}, cancel anytime"
# Free trials (issue 31): what the agent page, the cards, checkout and My Agents promise.
TRIAL_OFFER = "Free for {days}, then {price}"
TRIAL_CHECKOUT = "Free for {days}, then {price} starting {date}. Cancel before then and you pay nothing."
TRIAL_ALREADY_USED = "You have already had a free trial of this agent, so this subscription starts paid today."
TRIAL_ENDS = "Trial ends on {date}"
# A monthly agent's checkout with nothing to pay today (a trial, a 100% code) and a code's months.
DUE_TODAY, TOTAL = "Due today", "Total"
THEN_MONTHLY = "Then {amount}/month from {date}"
THEN_DISCOUNTED = "Then {amount} on {date}, {monthly}/month after the discount"
CODE_MONTHS = "{months}, then {monthly}/month"
CODE_DISCOUNT = "Code {code}: {amount}"


def one_month_after(moment: datetime) -> datetime:
    """The same day next month, or that month's last day when it is shorter (Jan 31 -> Feb 28), as Stripe
    anchors monthly billing."""
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


def trial_text(days: int) -> str:
    """A trial's length as the admin compares it and the offers say it: 'No free trial', '1 day', '7 days'."""
    if days <= 0:
        return "No free trial"
    return "1 day" if days == 1 else f"{days} days"


def trial_offer(*, trial_days: int, pricing_model: str, price_cents: int, currency: str = "usd") -> str:
    """'Free for 7 days, then $29.99/month' for a paid monthly agent with a trial; '' otherwise (one rule for the
    agent page and the cards)."""
    if trial_days <= 0 or pricing_model != PricingModel.MONTHLY or price_cents == 0:
        return ""
    price = money.price_label(price_cents, pricing_model=pricing_model, currency=currency)
    return TRIAL_OFFER.format(days=trial_text(trial_days), price=price)


def trial_checkout_line(*, trial_days: int, price: str, starts_on: str) -> str:
    """Checkout's promise for a trial: 'Free for 7 days, then $29.99/month starting {date}. Cancel before then and
    you pay nothing.' (`price` as money.price_label writes it, `starts_on` the trial's end as pages write dates)."""
    return TRIAL_CHECKOUT.format(days=trial_text(trial_days), price=price, date=starts_on)


def order_summary_line(*, pricing_model: str, price_cents: int, renews_on: str) -> str:
    """The line under the agent's name at checkout: what the buyer gets. `renews_on` is the first renewal's date
    as pages write dates ('Jan 5, 2025'); only a paid monthly subscription names it (a free agent is claimed once,
    nothing renews)."""
    if pricing_model == PricingModel.ONE_TIME or price_cents == 0:
        return LICENCE_LINE
    return SUBSCRIPTION_LINE.format(date=renews_on)


def order_kind_label(kind: str) -> str:
    """What a charge was for, as sales lists label it: 'Purchase' (a licence or a free claim), 'Subscription' (a
    subscription's first payment) or 'Renewal'."""
    return ORDER_KIND_LABELS.get(kind, kind.title())


def code_discount_line(*, code: str | None, discount: int, currency: str) -> str:
    """What a promotion code took off a charge, as the buyer's Orders and the vendor's sales say it: 'Code SPRING:
    -$7.50'; '' for a charge no code discounted (or once the code's months are over)."""
    if not code or not discount:
        return ""
    return CODE_DISCOUNT.format(code=code, amount=money.format_amount(-discount, currency))


def due_later_line(*, next_charge: int, monthly: int, currency: str, starts_on: str, every_month: bool) -> str:
    """What a subscription that costs nothing today charges next: 'Then $29.99/month from Dec 9, 2026', or with a
    code that discounts that charge but not every month 'Then $14.99 on Dec 9, 2026, $29.99/month after the
    discount' (`starts_on` as pages write dates)."""
    amount = money.format_amount(next_charge, currency)
    if every_month or next_charge == monthly:
        return THEN_MONTHLY.format(amount=amount, date=starts_on)
    return THEN_DISCOUNTED.format(amount=amount, date=starts_on, monthly=money.format_amount(monthly, currency))


def code_months_line(*, months: str, monthly: int, currency: str, every_month: bool) -> str:
    """Which payments a monthly agent's code discounts, at checkout: 'First 3 months, then $29.99/month',
    'First payment, then $29.99/month' or 'Every month'."""
    if every_month:
        return months
    return CODE_MONTHS.format(months=months, monthly=money.format_amount(monthly, currency))
