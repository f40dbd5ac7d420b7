"""/admin/settings' Vendor Plans section: one form per plan (name, monthly price, agent limit, fee)."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from marketplace.components.forms import field
from marketplace.components.spinner import skeleton_block
from marketplace.state.admin.plans import AdminPlansState as P
from marketplace.state.admin.plans import PlanDraft


def _input(label: rx.Var | str, name: str, plan: ObjectVar[PlanDraft], value: rx.Var, **props: object) -> rx.Component:
    input_id = f"plan-{plan.id}-{name}"
    error = rx.cond(P.error_at == f"{plan.id}-{name}", P.error, "")
    return field(label, rx.input(id=input_id, name=name, default_value=value, size="3", width="100%", **props),
                 error, field_id=input_id)


def _plan_form(plan: ObjectVar[PlanDraft]) -> rx.Component:
    saving = P.saving == plan.id
    return rx.card(
        rx.form(
            rx.vstack(
                rx.el.input(type="hidden", name="planId", value=plan.id),
                _input("Name", "name", plan, plan.name, max_length=60),
                rx.cond(
                    plan.is_free,
                    field("Monthly price ($)", rx.text("$0: the Free plan has no price", size="2",
                                                      color_scheme="gray")),
                    _input("Monthly price ($)", "monthlyPrice", plan, plan.price, input_mode="decimal"),
                ),
                _input("Agent limit (empty: unlimited)", "agentLimit", plan, plan.agent_limit, input_mode="numeric"),
                _input(rx.cond(plan.is_free, "Fee (%) = commission rate", "Fee (%)"), "feePercent", plan, plan.fee,
                       input_mode="decimal"),
                rx.button(rx.cond(saving, rx.spinner(size="2"), rx.icon("save", size=16)),
                          rx.cond(saving, "Saving...", "Save plan"), type="submit", disabled=P.saving != "",
                          id=f"save-plan-{plan.id}", width="100%"),
                spacing="3", width="100%",
            ),
            on_submit=P.save, no_validate=True, width="100%", key=plan.version,
        ),
        width="100%", id=f"plan-editor-{plan.id}",
    )


def plans_section() -> rx.Component:
    return rx.vstack(
        rx.hstack(rx.icon("layers", size=20, color="var(--accent-9)"), rx.heading("Vendor Plans", size="5", as_="h2"),
                  align="center", spacing="2"),
        rx.text("What vendors pay each month, how many agents they may list and the platform's fee on their sales. "
                "The Free plan's fee is the commission rate. A new price applies to new subscriptions; a new fee to "
                "later sales and renewals.", size="2", color_scheme="gray"),
        rx.cond(
            P.loading,
            rx.grid(*[skeleton_block("20em") for _ in range(3)], columns=rx.breakpoints(initial="1", md="3"),
                    spacing="4", width="100%"),
            rx.grid(rx.foreach(P.plans, _plan_form), columns=rx.breakpoints(initial="1", md="3"), spacing="4",
                    width="100%", id="plan-editors"),
        ),
        spacing="3", width="100%", id="plans-settings", on_mount=P.load,
    )
