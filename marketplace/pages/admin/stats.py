"""The Stats tab of /admin: a 30-day revenue and sales chart and a 12-week chart of new users and agents."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.components.empty_state import empty_state
from marketplace.components.spinner import skeleton_block
from marketplace.pages.admin.widgets import admin_card
from marketplace.state.admin.stats import DAYS, WEEKS
from marketplace.state.admin.stats import StatsState as S

CHART_HEIGHT = 280


def _figure(label: str, value: Var, caption: str, key: str) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.text(label, size="2", color_scheme="gray", weight="medium"),
            rx.cond(S.loading, skeleton_block("1.8em", "5em"),
                    rx.heading(rx.el.p(value), size=rx.breakpoints(initial="5", sm="6"), id=f"stats-{key}",
                               as_child=True)),
            rx.text(caption, size="1", color_scheme="gray"),
            spacing="1",
        ),
        width="100%",
    )


def _card(title: str, icon: str, body: rx.Component, element_id: str) -> rx.Component:
    return admin_card(title, rx.cond(S.loading, skeleton_block(f"{CHART_HEIGHT}px"), body), icon=icon,
                      element_id=element_id)


def _sales_chart() -> rx.Component:
    # no grow-in animation: screenshots and tests see the drawn bars at once
    chart = rx.recharts.composed_chart(
        rx.recharts.cartesian_grid(stroke_dasharray="3 3", vertical=False),
        rx.recharts.x_axis(data_key="label", tick_line=False, font_size=11, interval="preserveStartEnd",
                           min_tick_gap=16),
        rx.recharts.y_axis(y_axis_id="revenue", width=56, font_size=11),
        rx.recharts.y_axis(y_axis_id="sales", orientation="right", width=32, font_size=11, allow_decimals=False),
        rx.recharts.graphing_tooltip(),
        rx.recharts.legend(),
        rx.recharts.bar(data_key="revenue", name="Revenue ($)", y_axis_id="revenue", fill="var(--accent-9)",
                        is_animation_active=False),
        rx.recharts.line(data_key="sales", name="Sales", y_axis_id="sales", stroke="var(--amber-9)", stroke_width=2,
                         dot={"r": 2}, type_="linear", is_animation_active=False),
        data=S.daily, width="100%", height=CHART_HEIGHT, margin={"left": 0, "right": 0, "top": 8, "bottom": 0},
    )
    body = rx.cond(
        S.has_sales,
        rx.box(chart, width="100%", id="daily-chart"),
        empty_state("chart-column", "No sales yet", f"No completed sales in the last {DAYS} days.",
                    element_id="daily-empty"),
    )
    return _card(f"Revenue and sales, last {DAYS} days", "chart-column", body, "stats-daily")


def _signups_chart() -> rx.Component:
    chart = rx.recharts.bar_chart(
        rx.recharts.cartesian_grid(stroke_dasharray="3 3", vertical=False),
        rx.recharts.x_axis(data_key="short", tick_line=False, font_size=11, interval="preserveStartEnd",
                           min_tick_gap=16),
        rx.recharts.y_axis(width=40, font_size=11, allow_decimals=False),
        rx.recharts.graphing_tooltip(),
        rx.recharts.legend(),
        rx.recharts.bar(data_key="users", name="New users", fill="var(--accent-9)", is_animation_active=False),
        rx.recharts.bar(data_key="agents", name="New agents", fill="var(--green-9)", is_animation_active=False),
        data=S.weekly, width="100%", height=CHART_HEIGHT, margin={"left": 0, "right": 0, "top": 8, "bottom": 0},
    )
    body = rx.cond(
        S.has_signups,
        rx.box(chart, width="100%", id="weekly-chart"),
        empty_state("users", "No sign-ups yet", f"No new users or agents in the last {WEEKS} weeks.",
                    element_id="weekly-empty"),
    )
    return _card(f"New users and agents per week, last {WEEKS} weeks", "users", body, "stats-weekly")


def stats_tab() -> rx.Component:
    """Mounted when the tab opens; mounting reads both series."""
    return rx.vstack(
        rx.grid(
            _figure("Revenue", S.revenue, f"Last {DAYS} days", "revenue"),
            _figure("Sales", S.sales, f"Last {DAYS} days", "sales"),
            _figure("New users", S.new_users, f"Last {WEEKS} weeks", "users"),
            _figure("New agents", S.new_agents, f"Last {WEEKS} weeks", "agents"),
            columns=rx.breakpoints(initial="2", md="4"), spacing=rx.breakpoints(initial="2", sm="4"), width="100%",
        ),
        _sales_chart(),
        _signups_chart(),
        spacing="4", width="100%", id="admin-stats", on_mount=S.on_open,
    )
