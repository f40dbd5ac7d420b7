"""The vendor plans as the landing page offers them: read from the plans service, so an admin's edit shows here.

`PlanOption` is one plan in the words every plan page uses ('$29', 'Up to 3 agents', '10% transaction fee');
`/vendor/plans` and the admin's plan editor build theirs with `plan_option` too.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from dataclasses import dataclass

import reflex as rx

from marketplace.services import money, plans
from marketplace.state import blocking

# What comes with each plan besides its limit and fee: words of the offer, not figures, so not data.
SUPPORT = {"free": "Community support", "pro": "Priority support", "enterprise": "Dedicated account manager"}
FEATURED_PLAN = "pro"  # the landing page's solid button


@dataclass
class PlanOption:
    id: str
    name: str
    price: str  # '$29' ('$29.50' when it has cents)
    limit_label: str  # 'Up to 3 agents' | 'Unlimited listings'
    fee_label: str  # '10% transaction fee'
    support: str
    featured: bool = False
    is_free: bool = False


def price_label(cents: int) -> str:
    """'$29' for whole dollars, '$29.50' otherwise (the landing page's big figure)."""
    return f"${cents // 100:,}" if cents % 100 == 0 else money.format_amount(cents, "usd")


def limit_label(agent_limit: int | None) -> str:
    if agent_limit is None:
        return "Unlimited listings"
    return "Up to 1 agent" if agent_limit == 1 else f"Up to {agent_limit:,} agents"


def plan_option(plan: plans.PlanView) -> PlanOption:
    return PlanOption(id=plan.id, name=plan.name, price=price_label(plan.monthly_price_cents),
                      limit_label=limit_label(plan.agent_limit),
                      fee_label=f"{money.percent_label(plan.fee_percent)} transaction fee",
                      support=SUPPORT.get(plan.id, ""), featured=plan.id == FEATURED_PLAN, is_free=plan.is_free)


@functools.lru_cache(maxsize=4)
def _options(offer: tuple[plans.PlanView, ...]) -> tuple[PlanOption, ...]:
    return tuple(plan_option(plan) for plan in offer)


def offer() -> list[PlanOption]:
    """The landing page's plans: the plans come from the catalogue's cache, and their options are built once per
    version of them (shared by every tab: no handler changes one in place)."""
    return list(_options(tuple(plans.list_plans())))


class OfferState(rx.State):
    """The landing page's pricing section."""

    plans: list[PlanOption] = []
    loading: bool = True

    @rx.event
    async def on_load(self) -> AsyncIterator[None]:
        if not self.loading:  # a new tab starts loading: no delta to send for it
            self.loading = True
            yield
        self.plans = await blocking.run(offer)
        self.loading = False
