"""The Sales & Commissions tab of /admin: Sales Overview, Commission Split Analytics, Commission Settings and
Recent Commission Earnings (10 rows, then a line counting the rest), with the CSV export."""

from __future__ import annotations

import reflex as rx

from marketplace.components.data_table import Column
from marketplace.components.empty_state import empty_state
from marketplace.pages.admin.promotion_codes import admin_promotion_codes
from marketplace.pages.admin.widgets import admin_card, figure, rate_figure, summary_figure, table, table_skeleton
from marketplace.state.admin.sales import CommissionView, PlanRevenueView
from marketplace.state.admin.sales import SalesState as S


def _overview() -> rx.Component:
    return admin_card(
        "Sales Overview",
        rx.vstack(
            summary_figure(S, "Total Platform Revenue", S.total_revenue, "sales-total-revenue"),
            summary_figure(S, "Your Commission", S.admin_commission, "sales-your-commission",
                           color="var(--green-11)"),
            summary_figure(S, "Vendor Earnings", S.vendor_earnings, "sales-vendor-earnings"),
            summary_figure(S, "Total Sales", S.total_sales, "sales-total-sales"),
            summary_figure(S, "Active Subscriptions", S.active_subscriptions, "sales-active-subscriptions"),
            summary_figure(S, "Monthly Recurring Revenue", S.mrr, "sales-mrr"),
            spacing="0", width="100%",
        ),
        icon="dollar-sign", element_id="sales-overview",
    )


def _split() -> rx.Component:
    return admin_card(
        "Commission Split Analytics",
        rx.vstack(
            summary_figure(S, "Split Payment Success Rate", S.split_rate, "split-rate"),
            summary_figure(S, "Split Payments", S.split_payments, "split-payments"),
            summary_figure(S, "Direct Payments", S.direct_payments, "direct-payments"),
            summary_figure(S, "Vendor Payouts", S.vendor_payouts, "vendor-payouts"),
            spacing="0", width="100%",
        ),
        icon="split", element_id="split-analytics",
    )


def _plan_revenue(plan: PlanRevenueView) -> rx.Component:
    return figure(plan.name, rx.hstack(rx.text(plan.vendors, size="1", color_scheme="gray"),
                                       rx.text(plan.revenue, weight="bold"), align="baseline", spacing="2"))


def _plans() -> rx.Component:
    """What vendors paid for their plans: first payments, upgrades and renewals, in USD."""
    return admin_card(
        "Vendor Plan Revenue",
        rx.vstack(
            summary_figure(S, "Total Plan Revenue", S.plan_revenue, "sales-plan-revenue"),
            rx.cond(S.loading, rx.fragment(), rx.foreach(S.plan_revenues, _plan_revenue)),
            spacing="0", width="100%", id="plan-revenue-list",
        ),
        icon="layers", element_id="plan-revenue",
    )


def _settings() -> rx.Component:
    return admin_card(
        "Commission Settings",
        rx.vstack(
            rate_figure(S),
            rx.text("Platform commission on each sale", size="1", color_scheme="gray", id="commission-note"),
            rx.link("More platform settings", href="/admin/settings", size="1"),
            spacing="2", width="100%",
        ),
        icon="percent", element_id="commission-settings",
    )


def _row(entry: CommissionView) -> rx.Component:
    kind = rx.cond(entry.split,
                   rx.badge(rx.icon("split", size=12), entry.payment_type, color_scheme="green"),
                   rx.badge(rx.icon("landmark", size=12), entry.payment_type, color_scheme="orange"))
    order_kind = rx.hstack(
        rx.badge(entry.kind, variant="soft", color_scheme="gray", class_name="order-kind"),
        rx.cond(entry.refunded, rx.badge(rx.icon("undo-2", size=12), "Refunded", color_scheme="red",
                                         class_name="order-refunded")),
        spacing="1", wrap="wrap",
    )
    struck = rx.cond(entry.refunded, "line-through", "none")
    # A refunded sale's commission went back with it: struck through in grey and marked reversed, never green
    # (the totals above leave it out).
    commission = rx.cond(
        entry.refunded,
        rx.vstack(rx.text(entry.commission, color_scheme="gray", text_decoration="line-through"),
                  rx.text("Reversed", size="1", color_scheme="gray", class_name="commission-reversed"),
                  spacing="0"),
        rx.text(entry.commission, weight="bold", color="var(--green-11)"),
    )
    return rx.table.row(
        rx.table.cell(rx.text(entry.agent, weight="medium")),
        rx.table.cell(order_kind),
        rx.table.cell(rx.vstack(rx.text(entry.sale_amount, text_decoration=struck, class_name="commission-sale"),
                                rx.cond(entry.discount != "",
                                        # wraps in the table: kept on one line it pushed the Date column past
                                        # the card's edge at 1280 px
                                        rx.text(entry.discount, size="1", color="var(--green-11)",
                                                class_name="commission-discount")),
                                # the lines follow the cell's text-align: right, as every figure, on a phone's card
                                spacing="0", align="stretch")),
        rx.table.cell(kind),
        rx.table.cell(commission, class_name="commission-amount"),
        rx.table.cell(rx.text(entry.vendor_payout, text_decoration=struck)),
        rx.table.cell(rx.text(entry.customer, title=entry.customer, max_width="12em", overflow="hidden",
                              text_overflow="ellipsis", white_space="nowrap", class_name="commission-customer")),
        # The day and, under it, the time: on one line the column ran past the card's edge at 1280 px.
        rx.table.cell(rx.vstack(rx.text(entry.day, white_space="nowrap"),
                                rx.text(entry.time, size="1", color_scheme="gray", white_space="nowrap"),
                                spacing="0"), class_name="commission-date"),
        class_name="commission-row", data_order=entry.order_id,
    )


def _commissions() -> rx.Component:
    listing = rx.cond(
        S.loading, table_skeleton(),
        rx.cond(
            S.commissions.length() == 0,
            empty_state("receipt", "No commission earnings yet", element_id="commissions-empty"),
            rx.vstack(
                table(["Agent", "Order", "Sale Amount", Column("Payment Type", "extra"), "Your Commission",
                       "Vendor Payout", Column("Customer", "extra"), "Date"], S.commissions, _row, min_width="980px",
                      element_id="commissions-table"),
                rx.cond(S.more_commissions > 0,
                        rx.text(f"And {S.more_commissions} more commission entries...", size="2",
                                color_scheme="gray", id="more-commissions")),
                spacing="3", width="100%",
            ),
        ),
    )
    export = rx.el.a(rx.button(rx.icon("download", size=16), "Export CSV", variant="outline", size="2"),
                     href="/api/admin/commissions.csv", download="", id="export-commissions",
                     reload_document=True)  # a Reflex <a> routes client-side: let the browser fetch the file
    return admin_card("Recent Commission Earnings", listing, icon="receipt", element_id="recent-commissions",
                      action=export)


def sales_tab() -> rx.Component:
    """Mounted when the tab opens; mounting loads the summary and the newest commission entries."""
    return rx.vstack(
        rx.grid(_overview(), _split(), _plans(), _settings(), columns=rx.breakpoints(initial="1", md="2", lg="3"),
                spacing="4", width="100%"),
        _commissions(),
        admin_promotion_codes(),  # a lever of sales: codes for any agent or all (the tab row holds thirteen tabs)
        spacing="4", width="100%", on_mount=S.on_open, id="admin-sales",
    )
