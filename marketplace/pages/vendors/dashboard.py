"""The Dashboard tab of /vendor: stat cards, earnings chart, payment setup, track record, payouts, sales, agents."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.components.badges import agent_status_badge, payout_status_badge
from marketplace.components.data_table import Column, table
from marketplace.components.empty_state import empty_state
from marketplace.components.image import agent_image
from marketplace.components.links import button_link
from marketplace.components.promotion_codes import promotion_codes_section
from marketplace.components.spinner import skeleton_block
from marketplace.pages.vendors.license_keys import keys_button, keys_dialog
from marketplace.pages.vendors.plan_card import plan_card
from marketplace.state.vendors.dashboard import AgentRow, PayoutRow, SaleRow
from marketplace.state.vendors.dashboard import VendorDashboardState as D
from marketplace.state.vendors.promotion_codes import VendorCodesState


def _card(title: str, *children: rx.Component, icon: str, element_id: str, action: rx.Component | None = None,
          **props: object) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.icon(icon, size=18, color="var(--accent-9)"),
                rx.heading(title, size="4", as_="h2"),
                rx.spacer(),
                *([action] if action is not None else []),
                align="center", width="100%", wrap="wrap", spacing="2",
            ),
            *children,
            spacing="4", width="100%",
        ),
        width="100%", id=element_id, **props,
    )


# --- stat cards --------------------------------------------------------------------------------------------


def _stat(name: str, title: str, icon: str, value: Var, caption: Var | str) -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.vstack(
                rx.text(title, size="2", weight="medium", color_scheme="gray"),
                rx.cond(D.loading, skeleton_block("1.9em", "6em"),
                        rx.heading(rx.el.p(value), size=rx.breakpoints(initial="5", sm="7"), id=f"stat-{name}",
                                   as_child=True)),
                rx.text(caption, size="1", color_scheme="gray", id=f"stat-{name}-caption"),
                spacing="1", min_width="0",
            ),
            rx.spacer(),
            rx.icon(icon, size=22, color="var(--accent-9)", flex_shrink="0", display=["none", "block"]),
            width="100%",
        ),
        class_name="stat-card",
    )


def _stats() -> rx.Component:
    return rx.grid(
        _stat("total-earnings", "Total Earnings", "wallet", D.total_earnings, f"Your {D.vendor_share}% share"),
        _stat("total-revenue", "Total Revenue", "dollar-sign", D.total_revenue, "Paid by customers"),
        _stat("month-earnings", "This Month Earnings", "calendar", D.month_earnings, "Since the 1st (UTC)"),
        _stat("month-revenue", "This Month Revenue", "trending-up", D.month_revenue, "Since the 1st (UTC)"),
        _stat("total-sales", "Total Sales", "shopping-cart", D.total_sales, "Completed orders"),
        _stat("approved-agents", "Approved Agents", "bot", D.approved_agents,
              f"of {D.total_agents} total · ★ {D.avg_rating} avg rating"),
        columns=rx.breakpoints(initial="2", lg="3"), spacing=rx.breakpoints(initial="2", sm="4"), width="100%",
        id="vendor-stats",
    )


def _recurring() -> rx.Component:
    """Subscriptions: who pays every month, what that is worth, and what went in the last 30 days."""
    return rx.grid(
        _stat("active-subscribers", "Active Subscribers", "users", D.active_subscribers, "Paying every month"),
        _stat("mrr", "Monthly Recurring Revenue", "repeat", D.mrr, "Active subscriptions, in USD"),
        _stat("cancellations", "Cancellations", "user-minus", D.cancellations, "Last 30 days"),
        _stat("refunds", "Refunds", "undo-2", D.refunds, f"{D.refunded} refunded · last 30 days"),
        _stat("trialing-subscribers", "In Free Trial", "gift", D.trialing, "Not paying yet · not in MRR"),
        _stat("trial-conversion", "Trial to Paid", "badge-check", D.trial_conversion, D.trial_conversion_note),
        columns=rx.breakpoints(initial="2", lg="3"), spacing=rx.breakpoints(initial="2", sm="4"), width="100%",
        id="vendor-recurring",
    )


def _toolbar() -> rx.Component:
    return rx.hstack(
        rx.hstack(
            rx.badge(f"Vendor share {D.vendor_share}%", color_scheme="green", size="2", high_contrast=True,
                     id="vendor-share"),  # green 11 on 3 is 4.28:1, under WCAG AA
            rx.badge(f"Platform fee {D.platform_share}%", color_scheme="gray", size="2", id="platform-fee"),
            spacing="2", wrap="wrap",
        ),
        rx.spacer(),
        rx.hstack(
            rx.el.a(rx.button(rx.icon("download", size=16), "Download CSV", variant="outline"),
                    href="/api/vendor/sales.csv", download="", id="download-csv",
                    reload_document=True),  # a Reflex <a> routes client-side: let the browser fetch the file
            button_link(rx.icon("plus", size=16), "Add New Agent", href="/vendor/add-agent", id="add-agent"),
            spacing="2", wrap="wrap",
        ),
        width="100%", align="center", wrap="wrap", spacing="3",
    )


# --- chart -------------------------------------------------------------------------------------------------


def _period_button(label: str, period: str) -> rx.Component:
    return rx.button(label, size="1", variant=rx.cond(D.period == period, "solid", "soft"),
                     on_click=D.set_period(period), id=f"period-{period}")


def _chart() -> rx.Component:
    chart = rx.recharts.bar_chart(
        rx.recharts.cartesian_grid(stroke_dasharray="3 3", vertical=False),
        rx.recharts.x_axis(data_key="label", tick_line=False, font_size=12),
        rx.recharts.y_axis(width=48, font_size=12),
        # each bar's amount as the server formatted it ("$6.00"), not the float it is drawn from
        rx.recharts.graphing_tooltip(custom_attrs={"formatter": Var(
            "((value, name, item) => (item && item.payload && item.payload[item.dataKey + '_text']) ?? value)")}),
        rx.recharts.legend(),
        # no grow-in animation: a period switch shows the new bars at once (and screenshots show them too)
        rx.recharts.bar(data_key="vendor", name="Vendor share ($)", stack_id="earnings", fill="var(--accent-9)",
                        is_animation_active=False),
        rx.recharts.bar(data_key="fee", name="Platform fee ($)", stack_id="earnings", fill="var(--amber-9)",
                        is_animation_active=False),
        data=D.chart, width="100%", height=280,
    )
    return _card(
        "Earnings over time",
        rx.cond(D.loading, skeleton_block("280px"),
                rx.vstack(
                    rx.box(chart, width="100%", id="earnings-chart"),
                    rx.text(f"{D.chart_sales} sales in this period", size="1", color_scheme="gray",
                            id="chart-sales"),
                    width="100%", spacing="1",
                )),
        icon="chart-column", element_id="earnings-card",
        action=rx.hstack(_period_button("Last 30 days", "day"), _period_button("Last 12 months", "month"),
                         spacing="1"),
    )


# --- payment setup -----------------------------------------------------------------------------------------


def _connect_button(label: str) -> rx.Component:
    return rx.button(rx.cond(D.linking, rx.spinner(size="2"), rx.icon("external-link", size=16)), label,
                     on_click=D.connect_stripe, disabled=D.linking, id="connect-stripe")


def _capability(label: str, enabled: Var, off_label: str, element_id: str) -> rx.Component:
    """One thing Stripe can do for the vendor, on or not yet (kept apart from the track record's 'Verified')."""
    return rx.cond(
        enabled,
        rx.badge(rx.icon("circle-check", size=12), f"{label} enabled", color_scheme="green", variant="soft",
                 id=element_id, data_enabled="true"),
        rx.badge(rx.icon("clock", size=12), off_label, color_scheme="amber", variant="soft", id=element_id,
                 data_enabled="false"),
    )


def _capabilities(payouts_off: str = "Payouts not enabled yet") -> rx.Component:
    return rx.hstack(
        _capability("Charges", D.charges_enabled, "Charges not enabled yet", "charges-enabled"),
        _capability("Payouts", D.payouts_enabled, payouts_off, "payouts-enabled"),
        spacing="2", wrap="wrap",
    )


def _payment_setup() -> rx.Component:
    not_connected = rx.vstack(
        rx.badge("Not connected", color_scheme="gray", size="2", id="payment-state"),
        rx.text("Connect a Stripe account to be paid your share of every sale directly.", size="2",
                color_scheme="gray"),
        _connect_button("Connect Stripe"),
        spacing="3", align="start",
    )
    needs_action = rx.vstack(
        rx.badge(rx.icon("triangle-alert", size=12), "Action required", color_scheme="amber", size="2",
                 id="payment-state"),
        rx.cond(
            D.requirements.length() > 0,
            rx.vstack(
                rx.text("Stripe needs more information before it can pay you:", size="2", color_scheme="gray"),
                rx.el.ul(rx.foreach(D.requirements, lambda r: rx.el.li(rx.text(r, size="2"))),
                         id="requirements-due", style={"padding_left": "1.25em", "list_style": "disc"}),
                spacing="2",
            ),
            rx.text("Finish your Stripe onboarding to be paid for your sales.", size="2", color_scheme="gray",
                    id="onboarding-unfinished"),
        ),
        _capabilities(),
        _connect_button("Complete setup"),
        spacing="3", align="start",
    )
    verifying = rx.vstack(
        rx.badge(rx.icon("hourglass", size=12), "Pending verification", color_scheme="blue", size="2",
                 id="payment-state"),
        rx.text(f"Stripe is verifying the details you sent, {D.verification_wait}. There is nothing you need to do: "
                "payouts start once it is done.", size="2", color_scheme="gray", id="verification-note"),
        _capabilities("Payouts pending verification"),
        spacing="3", align="start",
    )
    ready = rx.vstack(
        rx.badge(rx.icon("circle-check", size=12), "Ready", color_scheme="green", size="2", id="payment-state"),
        rx.text("Your Stripe account is connected: new sales are split and paid out to you.", size="2",
                color_scheme="gray"),
        _capabilities(),
        rx.cond(D.account_country != "",
                rx.text(f"Country {D.account_country} · payouts in {D.account_currency}", size="1",
                        color_scheme="gray", id="account-details")),
        _connect_button("Update Stripe details"),
        spacing="3", align="start",
    )
    return _card(
        "Payment setup",
        rx.cond(
            D.payments_loading,
            rx.vstack(skeleton_block("1.4em", "8em"), skeleton_block("1em"), skeleton_block("2em", "10em"),
                      width="100%"),
            rx.cond(
                D.payments_unavailable,
                rx.text("Payment information is unavailable right now. Please try again later.", size="2",
                        color_scheme="gray"),
                rx.match(D.payment_state, ("ready", ready), ("verifying", verifying), ("needs_action", needs_action),
                         not_connected),
            ),
        ),
        icon="landmark", element_id="payment-setup",
    )


# --- track record ------------------------------------------------------------------------------------------


def _figure(label: str, value: rx.Component) -> rx.Component:
    return rx.hstack(rx.text(label, size="2", color_scheme="gray"), rx.spacer(), value, width="100%",
                     align="center")


def _track_record() -> rx.Component:
    quality = rx.match(
        D.quality_level,
        ("high", rx.badge(D.quality_score, variant="solid", id="quality-score")),
        ("mid", rx.badge(D.quality_score, color_scheme="gray", variant="soft", id="quality-score")),
        rx.badge(D.quality_score, color_scheme="red", variant="solid", id="quality-score"),
    )
    rate_color = rx.match(D.approval_tone, ("green", "var(--green-11)"), ("yellow", "var(--amber-11)"),
                          "var(--red-11)")
    verified = rx.vstack(
        rx.cond(D.verified,
                rx.badge(rx.icon("badge-check", size=12), "Verified vendor", color_scheme="green", size="2",
                         id="verified"),
                rx.badge("Not verified yet", color_scheme="gray", size="2", id="verified")),
        rx.text(D.verified_rule, size="1", color_scheme="gray", id="verified-rule"),
        spacing="1", width="100%",
    )
    figures = rx.vstack(
        _figure("Submissions", rx.text(D.submissions, weight="bold", id="total-submissions")),
        _figure("Approved", rx.text(D.approved_submissions, weight="bold", id="approved-submissions")),
        _figure("Rejected", rx.text(D.rejected_submissions, weight="bold", id="rejected-submissions")),
        _figure("Approval rate", rx.text(f"{D.approval_rate}%", weight="bold", color=rate_color, id="approval-rate",
                                         data_tone=D.approval_tone)),
        _figure("Average approval time", rx.text(f"{D.approval_hours} hours", weight="bold",
                                                 id="approval-time")),
        _figure("Quality score", quality),
        _figure("Last submission", rx.text(rx.cond(D.last_submission != "", D.last_submission, "Never"),
                                           weight="bold", id="last-submission")),
        spacing="2", width="100%",
    )
    # Before the first submission there is nothing to grade: no score, no rate.
    no_submissions = empty_state("award", "No submissions yet",
                                 "Your approval rate and quality score appear once you submit your first agent.",
                                 element_id="no-submissions")
    return _card(
        "Track record",
        rx.cond(D.stats_loading, rx.text("Loading vendor stats...", color_scheme="gray", id="stats-loading"),
                rx.vstack(verified, rx.cond(D.submissions == 0, no_submissions, figures), spacing="3",
                          width="100%")),
        icon="award", element_id="track-record",
    )


# --- payouts -----------------------------------------------------------------------------------------------


def _payout_row(payout: PayoutRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(payout.amount, weight="bold"), " ", rx.text(payout.currency, as_="span", size="1",
                                                                         color_scheme="gray")),
        rx.table.cell(payout_status_badge(payout.status)),
        rx.table.cell(payout.method),
        rx.table.cell(payout.type),
        rx.table.cell(rx.cond(payout.arrival != "", payout.arrival, "—")),
        rx.table.cell(payout.created),
        rx.table.cell(rx.cond(payout.failure != "", rx.text(payout.failure, size="1", color_scheme="red"))),
        class_name="payout-row", data_status=payout.status,
    )


def _payouts() -> rx.Component:
    payouts = table(["Amount", "Status", Column("Method", "extra"), Column("Type", "extra"), "Arrival", "Created",
                     "Failure"], D.shown_payouts, _payout_row, min_width="720px", element_id="payouts-table",
                    size="1")
    return _card(
        "Payout history",
        rx.cond(
            D.payments_loading,
            rx.vstack(skeleton_block("1.6em"), skeleton_block("1.6em"), skeleton_block("1.6em"), width="100%"),
            rx.cond(D.payouts.length() == 0,
                    empty_state("banknote", "No payouts yet",
                                "Payouts appear here once your connected account has a balance to pay out.",
                                element_id="payouts-empty"),
                    payouts),
        ),
        icon="banknote", element_id="payouts",
        action=rx.cond(D.more_payouts, rx.button("View All", variant="outline", size="1", disabled=True,
                                                 id="payouts-view-all")),
    )


# --- recent sales ------------------------------------------------------------------------------------------


def _sale_row(sale: SaleRow) -> rx.Component:
    kind = rx.cond(
        sale.split,
        rx.badge(rx.icon("split", size=12), f"Split {sale.split_label}", color_scheme="green"),
        rx.tooltip(rx.badge(rx.icon("landmark", size=12), "Direct", color_scheme="orange"),
                   content=rx.cond(sale.reason != "", sale.reason, "Paid to the platform")),
    )
    return rx.table.row(
        rx.table.cell(rx.vstack(rx.text(sale.agent, weight="medium"),
                                rx.text(sale.kind, size="1", color_scheme="gray", class_name="sale-kind"),
                                spacing="0")),
        rx.table.cell(sale.customer),
        rx.table.cell(rx.text(sale.date, white_space="nowrap")),
        rx.table.cell(rx.vstack(rx.text(sale.total, class_name="sale-total"),
                                rx.cond(sale.discount != "", rx.text(sale.discount, size="1", color="var(--green-11)",
                                                                     class_name="sale-discount")),
                                # the lines follow the cell's text-align: right, as every figure, on a phone's card
                                spacing="0", align="stretch")),
        rx.table.cell(rx.text(sale.earnings, weight="bold", color="var(--green-11)")),
        rx.table.cell(sale.fee),
        rx.table.cell(kind),
        class_name="sale-row", data_order=sale.id,
    )


def _sales() -> rx.Component:
    sales = rx.vstack(
        table(["Agent", "Customer", "Date", "Total", "Your earnings", Column("Platform fee", "extra"),
               Column("Payment", "extra")], D.sales, _sale_row, min_width="820px", element_id="sales-table", size="1"),
        rx.text(f"Showing {D.sales.length()} of {D.sales_total} sales", size="1", color_scheme="gray",
                id="sales-count"),
        width="100%", spacing="2",
    )
    return _card(
        "Recent sales",
        rx.cond(
            D.loading,
            rx.vstack(skeleton_block("1.6em"), skeleton_block("1.6em"), skeleton_block("1.6em"), width="100%"),
            rx.cond(D.sales.length() == 0,
                    empty_state("shopping-cart", "No sales yet", "Sales of your agents will appear here.",
                                element_id="sales-empty"),
                    sales),
        ),
        icon="receipt", element_id="recent-sales",
    )


# --- own agents --------------------------------------------------------------------------------------------


def _version(agent: AgentRow) -> rx.Component:
    """The live version, and the one waiting for review when the pending changes bring new files."""
    return rx.text(
        rx.text(f"Version {agent.version_label}", as_="span", class_name="live-version"),
        rx.cond(agent.pending_version_label != "",
                rx.text(f" · {agent.pending_version_label} in review", as_="span", color="var(--blue-11)",
                        class_name="pending-version")),
        size="1", color_scheme="gray", class_name="agent-version",
    )


def _agent(agent: AgentRow) -> rx.Component:
    return rx.hstack(
        agent_image(agent.image_url, width="48px", height="48px", emoji_size="1.5em"),
        rx.vstack(
            rx.hstack(rx.text(agent.name, weight="bold"), agent_status_badge(agent.status),
                      rx.cond(agent.has_revision, rx.badge(rx.icon("clock", size=12), "changes in review",
                                                           color_scheme="blue", class_name="revision-badge")),
                      rx.cond(agent.revision_rejected, rx.badge(rx.icon("circle-x", size=12), "changes rejected",
                                                                color_scheme="red",
                                                                class_name="revision-rejected-badge")),
                      spacing="2", align="center", wrap="wrap"),
            rx.text(f"{agent.price} · {agent.sales_count} sold · ★ {agent.rating} ({agent.review_count})",
                    size="1", color_scheme="gray"),
            _version(agent),
            rx.cond(agent.scan != "",
                    rx.text(agent.scan, size="1", class_name="agent-scan", data_scan=agent.scan_status,
                            color=rx.match(agent.scan_status, ("clean", "var(--green-11)"),
                                           ("infected", "var(--red-11)"), ("flagged", "var(--orange-11)"),
                                           "var(--gray-11)"))),
            rx.cond(agent.revision_rejected,
                    rx.text("Your latest changes were rejected; the live listing is unchanged.",
                            rx.cond(agent.revision_rejection_reason != "",
                                    f" Reason: {agent.revision_rejection_reason}", ""),
                            size="1", color="var(--red-11)", class_name="revision-rejection")),
            rx.cond(agent.rejection_reason != "",
                    rx.text(f"Reason: {agent.rejection_reason}", size="1", color="var(--red-11)",
                            class_name="rejection-reason")),
            spacing="1", min_width="0",
        ),
        rx.spacer(),
        rx.text(agent.submitted, size="1", color_scheme="gray", display=["none", "block"], white_space="nowrap"),
        rx.hstack(
            keys_button(agent.id, agent.name),
            button_link(rx.icon("pencil", size=14), "Edit", href=f"/vendor/agents/{agent.id}/edit", size="1",
                        variant="soft", class_name="edit-agent", flex_shrink="0"),
            # stacked on phones, so the agent's name keeps the room
            direction=rx.breakpoints(initial="column", sm="row"), spacing="2", align="end", flex_shrink="0",
        ),
        width="100%", align="start", padding_y="0.6em", border_bottom="1px solid var(--gray-a4)",
        class_name="vendor-agent", data_agent=agent.name, data_status=agent.status,
    )


def _agents() -> rx.Component:
    return _card(
        "My agents",
        rx.cond(
            D.loading,
            rx.vstack(skeleton_block("3em"), skeleton_block("3em"), width="100%"),
            rx.cond(D.agents.length() == 0,
                    empty_state("bot", "No agents yet", "Submit your first agent for review.",
                                button_link("Add your first agent", href="/vendor/add-agent"),
                                element_id="agents-empty"),
                    rx.box(rx.foreach(D.agents, _agent), width="100%")),
        ),
        keys_dialog(),
        icon="bot", element_id="vendor-agents",
    )


def dashboard_tab() -> rx.Component:
    """Mounted when the tab opens; mounting loads the data."""
    return rx.vstack(
        _toolbar(),
        plan_card(),
        _stats(),
        _recurring(),
        _chart(),
        rx.grid(_payment_setup(), _track_record(), columns=rx.breakpoints(initial="1", md="2"), spacing="4",
                width="100%"),
        _payouts(),
        _sales(),
        _agents(),
        promotion_codes_section(VendorCodesState, admin=False, element_id="vendor-promotion-codes"),
        spacing="4", width="100%", on_mount=D.load, id="vendor-dashboard",
    )
