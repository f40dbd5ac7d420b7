"""The vendor dashboard's plan card: plan, fee, agents used of the limit, when it renews or ends, Change plan."""

from __future__ import annotations

import reflex as rx

from marketplace.components.links import button_link
from marketplace.components.spinner import skeleton_block
from marketplace.state.vendors.plans import PlanCardState as P


def _fact(label: str, value: rx.Var | str, fact_id: str) -> rx.Component:
    return rx.vstack(rx.text(label, size="1", color_scheme="gray"),
                     rx.text(value, size="3", weight="bold", id=fact_id), spacing="0", min_width="0")


def plan_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.icon("layers", size=18, color="var(--accent-9)"),
                rx.heading("Your Plan", size="4", as_="h2"),
                rx.spacer(),
                button_link("Change plan", href="/vendor/plans", variant="outline", size="2", id="change-plan"),
                align="center", width="100%", wrap="wrap", spacing="2",
            ),
            rx.cond(
                P.plan_loading,
                skeleton_block("3em"),
                rx.vstack(
                    rx.grid(
                        _fact("Plan", P.plan_name, "plan-card-name"),
                        _fact("Transaction fee", P.plan_fee, "plan-card-fee"),
                        _fact("Agents", P.agents_used, "plan-card-agents"),
                        columns=rx.breakpoints(initial="2", sm="3"), spacing="4", width="100%",
                    ),
                    rx.cond(P.period != "", rx.text(P.period, size="2", color_scheme="gray", id="plan-card-period")),
                    rx.cond(P.past_due != "", rx.callout(P.past_due, icon="triangle-alert", color_scheme="red",
                                                        size="1", width="100%", id="plan-card-past-due")),
                    rx.cond(P.limit_note != "", rx.callout(P.limit_note, icon="info", color_scheme="amber",
                                                          size="1", width="100%", id="plan-card-limit")),
                    spacing="3", width="100%",
                ),
            ),
            spacing="4", width="100%",
        ),
        width="100%", id="plan-card", on_mount=P.load,
    )
