"""The Overview tab of /admin: Platform Statistics (with the inline commission rate) and Pending Actions."""

from __future__ import annotations

import reflex as rx
from reflex.vars import NumberVar

from marketplace.pages.admin.widgets import admin_card, rate_figure, summary_figure
from marketplace.state.admin.approvals import PendingAgentsState as P
from marketplace.state.admin.commission import OverviewState as O
from marketplace.state.admin.page import AdminEvents
from marketplace.state.admin.page import AdminState as A


def _statistics() -> rx.Component:
    return admin_card(
        "Platform Statistics",
        rx.vstack(
            summary_figure(O, "Total Revenue", O.total_revenue, "overview-total-revenue"),
            summary_figure(O, "Admin Commission", O.admin_commission, "overview-admin-commission"),
            summary_figure(O, "Vendor Earnings", O.vendor_earnings, "overview-vendor-earnings"),
            rate_figure(O),
            summary_figure(O, "Total Sales", O.total_sales, "overview-total-sales"),
            summary_figure(O, "Active Subscriptions", O.active_subscriptions, "overview-active-subscriptions"),
            summary_figure(O, "Free Trials", O.trialing_subscriptions, "overview-trialing-subscriptions"),
            summary_figure(O, "Monthly Recurring Revenue", O.mrr, "overview-mrr"),
            spacing="0", width="100%",
        ),
        icon="chart-no-axes-combined", element_id="platform-statistics",
    )


def _pending_row(label: str, count: NumberVar[int], tab: str, icon: str, subtab: str = "") -> rx.Component:
    """A row opening its tab (and, on Approvals, the sub-tab it counts)."""
    return rx.hstack(
        rx.icon(icon, size=16, color="var(--gray-10)"),
        rx.text(label, size="2"),
        rx.spacer(),
        rx.text(count, weight="bold", color=rx.cond(count > 0, "var(--red-11)", "var(--gray-11)"),
                class_name="pending-count", data_red=rx.cond(count > 0, "true", "false")),
        rx.icon("chevron-right", size=16, color="var(--gray-9)"),
        on_click=[P.set_subtab(subtab), AdminEvents.set_tab(tab)] if subtab else AdminEvents.set_tab(tab),
        role="button",
        cursor="pointer", width="100%", align="center", spacing="2",
        padding="0.6em", border_radius="var(--radius-2)", _hover={"background": "var(--gray-a3)"},
        id=f"pending-{tab}-{label.lower().replace(' ', '-')}", class_name="pending-action",
    )


def _pending_actions() -> rx.Component:
    return admin_card(
        "Pending Actions",
        rx.vstack(
            _pending_row("Vendor Applications", A.pending_applications, "vendor-applications", "store"),
            _pending_row("Agent Approvals", A.pending_agents, "agent-approvals", "clipboard-check", "pending"),
            _pending_row("Approved Agents", A.approved_agents, "agent-approvals", "circle-check", "approved"),
            spacing="1", width="100%",
        ),
        icon="bell-ring", element_id="pending-actions",
    )


def overview_tab() -> rx.Component:
    """Mounted when the tab opens; mounting loads the summary."""
    return rx.grid(
        _statistics(), _pending_actions(),
        columns=rx.breakpoints(initial="1", md="2"), spacing="4", width="100%", on_mount=O.on_open,
        id="admin-overview",
    )
