"""The Reports tab of /admin: customer reports by status (Pending, Reviewed, Resolved), each with the moves its
status allows: Mark Reviewed and Resolve."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from marketplace.pages.admin.widgets import action_buttons, row_button, table_tab
from marketplace.state.admin.reports import STATUS_LABELS, ReportView
from marketplace.state.admin.reports import ReportsState as R

STATUS_COLORS = {"pending": "amber", "reviewed": "blue", "resolved": "green"}


def _moves(report: ObjectVar[ReportView]) -> rx.Component:
    busy = R.busy != ""
    return action_buttons(
        rx.cond(report.moves.contains("reviewed"),
                row_button("Mark Reviewed", "eye", R.act("reviewed", report.id), "mark-reviewed", disabled=busy)),
        rx.cond(report.moves.contains("resolved"),
                row_button("Resolve", "check", R.act("resolved", report.id), "resolve-report", disabled=busy,
                           color_scheme="green")),
        rx.cond(report.moves.length() == 0, rx.text("—", color_scheme="gray")),
    )


def _row(report: ObjectVar[ReportView]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.vstack(
            rx.text(report.type, weight="bold", size="2", class_name="report-type"),
            rx.text(report.reason, size="2", class_name="report-reason"),
            rx.cond(report.description != "",
                    rx.text(report.description, size="1", color_scheme="gray", class_name="report-description")),
            spacing="0", max_width="28em",
        )),
        rx.table.cell(rx.link(report.agent_name, href=f"/agents/{report.agent_id}", is_external=True, size="2")),
        rx.table.cell(rx.match(report.status,
                               *[(status, rx.badge(label, color_scheme=STATUS_COLORS[status]))
                                 for status, label in STATUS_LABELS.items()],
                               rx.badge(report.status_label)), class_name="report-status"),
        rx.table.cell(rx.text(report.date, white_space="nowrap")),
        rx.table.cell(_moves(report)),
        class_name="report-row", data_id=report.id,
    )


def _status_filter() -> rx.Component:
    return rx.segmented_control.root(
        *[rx.segmented_control.item(label, value=status) for status, label in STATUS_LABELS.items()],
        value=R.status, on_change=R.set_status, size="1", id="reports-status",
    )


def reports_tab() -> rx.Component:
    return table_tab(R, "reports", "Customer Reports", "flag", ["Report", "Agent", "Status", "Reported", "Actions"],
                     _row, min_width="760px", empty=R.empty_title,
                     empty_text="Reports customers send about agents appear here.", filters=_status_filter())
