"""/admin/settings' Vendor Plans section: each plan's name, monthly price, agent limit and fee (admins only).

The plans service validates (the fee as the commission rate is) and audits; a refused value is shown under the
field it names (a toast covered the input and named no field), else as the 'Invalid value' toast. The Free
plan's fee is the commission rate: saving it shows the new rate in the Commission Rate card too (and saving that
card reloads this section).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import reflex as rx

from marketplace.services import money, plans, platform
from marketplace.services.errors import Invalid
from marketplace.state import blocking
from marketplace.state.admin.commission import INVALID_VALUE
from marketplace.state.admin.page import AdminToast
from marketplace.state.admin.settings import AdminSettingsState
from marketplace.state.forms import focus_first_error
from marketplace.state.service_calls import attempt
from marketplace.state.session import ViewerMixin

PLAN_SAVED = "Plan updated"
PLAN_FAILED = "Failed to update the plan."
FIELDS = ("name", "monthlyPrice", "agentLimit", "feePercent")  # the form's inputs, as the service names them


@dataclass
class PlanDraft:
    """One plan as its form starts: the stored values as the inputs take them."""

    id: str
    name: str
    price: str  # '29.00'
    agent_limit: str  # '3', '' when unlimited
    fee: str  # '10' (no percent sign, as the commission input)
    is_free: bool
    version: str  # changes with every save, so the form is drawn again with the stored values


def plan_draft(plan: plans.PlanView) -> PlanDraft:
    return PlanDraft(id=plan.id, name=plan.name, price=money.format_cents(plan.monthly_price_cents),
                     agent_limit="" if plan.agent_limit is None else str(plan.agent_limit),
                     fee=money.percent_label(plan.fee_percent).removesuffix("%"), is_free=plan.is_free,
                     version=f"{plan.id}-{plan.updated_at.isoformat()}-{plan.fee_percent}")


def form_text(form: dict[str, Any], key: str) -> str | None:
    """A submitted field as text; None when the form has no such field (left unchanged)."""
    value = form.get(key)
    return None if value is None else str(value)


class AdminPlansState(ViewerMixin, rx.State):
    plans: list[PlanDraft] = []
    loading: bool = True
    saving: str = ""  # the plan id being saved
    error_at: str = ""  # '{plan id}-{field}' whose value was refused, shown under that input
    error: str = ""

    @rx.event
    async def load(self) -> AsyncIterator[Any]:
        yield
        self.plans = [plan_draft(plan) for plan in await blocking.run(plans.list_plans)]
        self.loading = False

    @rx.event
    async def save(self, form: dict[str, Any]) -> AsyncIterator[Any]:
        plan_id = str(form.get("planId", ""))
        if self.saving or not plan_id:
            return
        self.saving, self.error_at, self.error = plan_id, "", ""
        yield
        user = await self.viewer()
        free = next((draft.is_free for draft in self.plans if draft.id == plan_id), False)
        done = await attempt(  # unexpected failures are logged
            AdminToast(PLAN_FAILED, unexpected=True), plans.update_plan, actor=user, plan_id=plan_id,
            name=form_text(form, "name"), monthly_price=None if free else form_text(form, "monthlyPrice"),
            agent_limit=form_text(form, "agentLimit"), fee_percent=form_text(form, "feePercent"))
        if done.failed:
            self.saving = ""
            error = done.error
            if isinstance(error, Invalid) and error.field in FIELDS:
                self.error_at, self.error = f"{plan_id}-{error.field}", error.message
                yield focus_first_error()
            else:
                yield (rx.toast.error(INVALID_VALUE[0], description=error.message or INVALID_VALUE[1])
                       if isinstance(error, Invalid) else done.events)
            return
        saved = done.value
        self.plans = [plan_draft(saved) if draft.id == saved.id else draft for draft in self.plans]
        self.saving = ""
        if saved.is_free:  # one number: the commission card shows the rate just stored
            settings = await self.get_state(AdminSettingsState)
            stored = await blocking.run(platform.list_settings, actor=user)
            settings._show({row.key: row.value for row in stored})
        yield rx.toast.success(PLAN_SAVED, description=f"The {saved.name} plan has been saved.")
