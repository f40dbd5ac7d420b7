"""/admin: title, the four summary cards, and the tab bar over every admin tab, for admins only.

One tab spec drives the labels (with counts), the `?tab=` addresses and the panels; each panel loads its own
data when it mounts (through its state's `on_open`).
"""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.components.layout import container, page_frame
from marketplace.components.spinner import section_spinner
from marketplace.components.tabs import TabSpec, tab_view
from marketplace.pages.admin.agents import agents_tab
from marketplace.pages.admin.analytics import analytics_tab
from marketplace.pages.admin.applications import applications_tab
from marketplace.pages.admin.approvals import approvals_tab
from marketplace.pages.admin.audit import audit_tab
from marketplace.pages.admin.customers import customers_tab, vendors_tab
from marketplace.pages.admin.license_keys import license_keys_tab
from marketplace.pages.admin.overview import overview_tab
from marketplace.pages.admin.refunds import refunds_tab
from marketplace.pages.admin.reports import reports_tab
from marketplace.pages.admin.sales import sales_tab
from marketplace.pages.admin.stats import stats_tab
from marketplace.pages.admin.widgets import denied_card
from marketplace.state.admin.page import AdminEvents
from marketplace.state.admin.page import AdminState as A

TABS = [
    TabSpec("overview", "Overview", None, overview_tab, icon="layout-dashboard"),
    TabSpec("customers", "Customers", A.total_customers, customers_tab, icon="users"),
    TabSpec("vendors", "Vendors", A.active_vendors, vendors_tab, icon="store"),
    TabSpec("agents", "Agents", A.total_agents, agents_tab, icon="bot"),
    TabSpec("vendor-applications", "Applications", A.pending_applications, applications_tab, icon="file-user"),
    TabSpec("agent-approvals", "Approvals", A.pending_agents, approvals_tab, icon="clipboard-check"),
    TabSpec("reports", "Reports", A.pending_reports, reports_tab, icon="flag"),
    TabSpec("refunds", "Refunds", A.requested_refunds, refunds_tab, icon="undo-2"),
    TabSpec("license-keys", "License Keys", None, license_keys_tab, icon="key-round"),
    TabSpec("analytics", "Analytics", None, analytics_tab, icon="chart-pie"),
    TabSpec("stats", "Stats", None, stats_tab, icon="chart-line"),
    TabSpec("sales", "Sales & Commissions", None, sales_tab, icon="dollar-sign"),
    TabSpec("audit", "Audit Log", None, audit_tab, icon="scroll-text"),
]


def _summary_card(name: str, tab: str, title: str, icon: str, value: Var, caption: str) -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.vstack(
                rx.text(title, size="2", weight="medium", color_scheme="gray"),
                rx.heading(rx.el.p(value), size=rx.breakpoints(initial="5", sm="7"), id=f"summary-{name}-value",
                           as_child=True),
                rx.text(caption, size="1", color_scheme="gray"),
                spacing="1", min_width="0",
            ),
            rx.spacer(),
            rx.icon(icon, size=22, color="var(--accent-9)", flex_shrink="0", display=["none", "block"]),
            width="100%",
        ),
        on_click=AdminEvents.set_tab(tab), cursor="pointer", role="button", id=f"summary-{name}",
        _hover={"box_shadow": "0 0 0 1px var(--accent-8)"},
    )


def _summary() -> rx.Component:
    return rx.grid(
        _summary_card("customers", "customers", "Total Customers", "users", A.total_customers, "Registered customers"),
        _summary_card("vendors", "vendors", "Active Vendors", "store", A.active_vendors, "Approved vendors"),
        _summary_card("agents", "agents", "Total Agents", "bot", A.total_agents, "In the system"),
        _summary_card("earnings", "sales", "Admin Earnings", "dollar-sign", A.admin_earnings, "Platform commission"),
        columns=rx.breakpoints(initial="2", lg="4"), spacing=rx.breakpoints(initial="2", sm="4"), width="100%",
        id="admin-summary",
    )


def _admin_area() -> rx.Component:
    return container(
        rx.vstack(
            rx.vstack(
                rx.heading("Admin Panel", size=rx.breakpoints(initial="7", sm="8"), id="admin-heading", as_="h1"),
                rx.text("Manage customers, vendors, agents, and platform operations", color_scheme="gray"),
                spacing="1",
            ),
            _summary(),
            tab_view(TABS, A.tab, AdminEvents.set_tab, compact=True, label="Admin section"),
            spacing="5", width="100%",
        ),
        id="admin-area",
    )


def admin_page() -> rx.Component:
    return page_frame(rx.match(A.mode, ("denied", denied_card()), ("admin", _admin_area()),
                               section_spinner("admin-loading")))
