"""The Analytics tab of /admin: three summary cards, recent customer reports, four ranking cards."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.vars import ArrayVar, ObjectVar, Var

from marketplace.components.spinner import section_spinner
from marketplace.state.admin.analytics import AnalyticsState as S
from marketplace.state.admin.analytics import RankItem, ReportCard
from marketplace.state.admin.page import AdminEvents


def _card(title: str, icon: str, *children: rx.Component, element_id: str, color: str = "var(--accent-9)",
          **props: object) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.icon(icon, size=18, color=color, flex_shrink="0"), rx.heading(title, size="3", as_="h2"),
                      align="center", spacing="2"),
            *children,
            spacing="3", width="100%",
        ),
        width="100%", id=element_id, **props,
    )


def _row(label: str, value: Var | rx.Component, *, key: str, color: str | None = None) -> rx.Component:
    shown = value if isinstance(value, rx.Component) else rx.text(value, weight="bold", size="2", color=color)
    return rx.hstack(rx.text(label, size="2", color_scheme="gray"), rx.spacer(), shown, width="100%",
                     align="center", class_name="figure", data_key=key, id=f"figure-{key}")


def _summary() -> rx.Component:
    return rx.grid(
        _card("Vendor Applications", "store",
              _row("Pending", S.applications_pending, key="applications-pending", color="var(--amber-11)"),
              _row("Approved", S.applications_approved, key="applications-approved", color="var(--green-11)"),
              _row("Rejected", S.applications_rejected, key="applications-rejected", color="var(--red-11)"),
              rx.separator(size="4"),
              _row("Total", S.applications_total, key="applications-total"),
              element_id="analytics-applications"),
        _card("Agent Quality", "award",
              _row("Total agents", S.agents_total, key="agents-total"),
              _row("Pending approval", S.agents_pending, key="agents-pending", color="var(--amber-11)"),
              _row("Approved", S.agents_approved, key="agents-approved", color="var(--green-11)"),
              _row("Average rating",
                   rx.hstack(rx.icon("star", size=14, fill="var(--amber-9)", color="var(--amber-9)"),
                             rx.text(S.average_rating, weight="bold", size="2"), spacing="1", align="center"),
                   key="average-rating"),
              _row("Rated agents", S.rated_agents, key="rated-agents"),
              element_id="analytics-quality"),
        _card("Customer Reports", "flag",
              _row("Pending review", S.reports_pending, key="reports-pending", color="var(--amber-11)"),
              _row("Reviewed", S.reports_reviewed, key="reports-reviewed", color="var(--blue-11)"),
              _row("Resolved", S.reports_resolved, key="reports-resolved", color="var(--green-11)"),
              rx.separator(size="4"),
              _row("Total", S.reports_total, key="reports-total"),
              element_id="analytics-reports"),
        columns=rx.breakpoints(initial="1", md="3"), spacing="4", width="100%",
    )


def _report(report: ObjectVar[ReportCard]) -> rx.Component:
    busy = S.busy != ""
    return rx.box(
        rx.flex(
            rx.vstack(
                rx.hstack(
                    rx.text(report.type, weight="bold", size="2", class_name="report-type"),
                    rx.badge("Agent Report", color_scheme="gray", variant="soft"),
                    rx.badge("Pending", color_scheme="amber"),
                    spacing="2", wrap="wrap", align="center",
                ),
                rx.text(report.reason, size="2", class_name="report-reason"),
                rx.cond(report.description != "",
                        rx.text(report.description, size="2", color_scheme="gray", class_name="report-description")),
                rx.hstack(
                    rx.text(report.date, size="1", color_scheme="gray"),
                    rx.cond(report.agent_id != "",
                            rx.link(report.agent_name, href=f"/agents/{report.agent_id}", is_external=True, size="1")),
                    spacing="2", wrap="wrap",
                ),
                spacing="1", min_width="0", flex="1",
            ),
            rx.hstack(
                rx.button(rx.icon("eye", size=14), "Mark Reviewed", size="1", variant="soft", disabled=busy,
                          on_click=S.set_report_status(report.id, "reviewed"), class_name="mark-reviewed"),
                rx.button(rx.icon("check", size=14), "Resolve", size="1", color_scheme="green", disabled=busy,
                          on_click=S.set_report_status(report.id, "resolved"), class_name="resolve-report"),
                spacing="2", flex_shrink="0",
            ),
            direction=rx.breakpoints(initial="column", sm="row"), gap="3", width="100%",
            align=rx.breakpoints(initial="start", sm="center"),
        ),
        padding_y="0.75em", border_bottom="1px solid var(--gray-a4)", width="100%", class_name="report",
        data_id=report.id,
    )


def _reports() -> rx.Component:
    return _card(
        "Recent Customer Reports (Pending Review)", "message-square-warning",
        rx.cond(S.recent_reports.length() == 0,
                rx.text("No reports waiting for review", size="2", color_scheme="gray", id="reports-empty"),
                rx.box(rx.foreach(S.recent_reports, _report), width="100%")),
        rx.button("All reports, by status", rx.icon("arrow-right", size=14), variant="ghost", size="1",
                  on_click=AdminEvents.set_tab("reports"), id="all-reports"),
        element_id="recent-reports", color="var(--amber-9)",
    )


def _rank_item(item: ObjectVar[RankItem], *, category: bool) -> rx.Component:
    lead = (rx.text(item.detail, size="4", line_height="1") if category
            else rx.text(item.detail, size="1", color_scheme="gray"))
    return rx.link(
        rx.hstack(
            rx.badge(f"#{item.rank}", variant="soft", radius="full", flex_shrink="0"),
            *([lead] if category else []),
            rx.vstack(
                rx.text(item.name, size="2", weight="medium", class_name="rank-name",
                        style={"overflow": "hidden", "text_overflow": "ellipsis", "white_space": "nowrap"},
                        max_width="100%"),
                *([] if category else [lead]),
                spacing="0", min_width="0", flex="1",
            ),
            rx.vstack(
                rx.text(item.count, size="1", weight="bold", class_name="rank-count", white_space="nowrap"),
                rx.cond(item.extra != "",
                        rx.text(item.extra, size="1", color_scheme="gray", class_name="rank-extra",
                                white_space="nowrap")),
                spacing="0", align="end", flex_shrink="0",
            ),
            align="center", spacing="2", width="100%",
        ),
        href=item.href, is_external=True, underline="none", color_scheme="gray", high_contrast=True,
        width="100%", padding="0.4em", border_radius="var(--radius-2)", class_name="rank-item",
        _hover={"background": "var(--gray-a3)"},
    )


def _ranking(title: str, icon: str, items: ArrayVar[Any], empty: str, key: str, *,
             category: bool = False) -> rx.Component:
    return _card(
        title, icon,
        rx.cond(items.length() == 0,
                rx.text(empty, size="2", color_scheme="gray", class_name="ranking-empty"),
                rx.vstack(rx.foreach(items, lambda item: _rank_item(item, category=category)), spacing="1",
                          width="100%")),
        element_id=f"ranking-{key}", min_width="0",
    )


def _rankings() -> rx.Component:
    return rx.grid(
        _ranking("Most Bought Agents", "shopping-cart", S.most_bought, "No purchase data available yet", "bought"),
        _ranking("Most Saved Agents", "heart", S.most_saved, "No favorites data available yet", "saved"),
        _ranking("Most Viewed Agents", "eye", S.most_viewed, "No view data available yet", "viewed"),
        _ranking("Top Category", "layout-grid", S.top_categories, "No category data available yet", "category",
                 category=True),
        columns=rx.breakpoints(initial="1", sm="2"), spacing="4", width="100%",
    )


def analytics_tab() -> rx.Component:
    """Mounted when the tab opens; mounting reads the figures."""
    return rx.box(rx.cond(
        S.loading,
        rx.vstack(section_spinner("analytics-loading"), rx.text("Loading analytics...", color_scheme="gray"),
                  align="center", width="100%"),
        rx.vstack(_summary(), _reports(), _rankings(), spacing="4", width="100%", id="admin-analytics"),
    ), width="100%", on_mount=S.on_open)
