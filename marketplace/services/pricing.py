"""What an agent's pricing model promises, in words: its name (the wizard's choices, the admin's old -> new), the
checkout's order summary line, the date a monthly subscription would first renew, and what each charge was for.
The price label itself is `money.price_label` (one rule for every page)."""

from __future__ import annotations

import calendar
from datetime import datetime

from marketplace.models import OrderKind, PricingModel

MODEL_NAMES = {PricingModel.MONTHLY: "Monthly subscription", PricingModel.ONE_TIME: "One-time licence"}
MODEL_DETAILS = {PricingModel.MONTHLY: "Charged every month until the buyer cancels",
                 PricingModel.ONE_TIME: "Paid once, with free updates for 1 year"}
ORDER_KIND_LABELS = {OrderKind.PURCHASE: "Purchase", OrderKind.SUBSCRIPTION: "Subscription",
                     OrderKind.RENEWAL: "Renewal"}
LICENCE_LINE = "AI Agent License"
SUBSCRIPTION_LINE = "Monthly subscription - renews on {date}, cancel anytime"


def one_month_after(moment: datetime) -> datetime:
    """The same day next month, or that month's last day when it is shorter (Jan 31 -> Feb 28), as Stripe
    anchors monthly billing."""
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return moment.replace(year=year, month=month, day=min(moment.day, calendar.monthrange(year, month)[1]))


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
