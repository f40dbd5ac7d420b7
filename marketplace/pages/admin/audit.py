"""The Audit Log tab of /admin: every admin write, newest first (Time, Actor, Action, Target, Details), paged."""

from __future__ import annotations

import reflex as rx

from marketplace.components.data_table import Column
from marketplace.pages.admin.widgets import table_tab
from marketplace.state.admin.audit import AuditState as L
from marketplace.state.admin.audit import AuditView


def _row(entry: AuditView) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(entry.time, white_space="nowrap")),
        rx.table.cell(entry.actor),
        rx.table.cell(rx.code(entry.action, variant="soft")),
        rx.table.cell(rx.text(entry.target, size="1", font_family="var(--code-font-family)")),
        rx.table.cell(rx.text(entry.details, size="1", color_scheme="gray")),
        class_name="audit-row", data_action=entry.action,
    )


def audit_tab() -> rx.Component:
    columns = [Column("Time"), "Actor", Column("Action", "title"), Column("Target", "extra"), "Details"]
    return table_tab(L, "audit", "Audit Log", "scroll-text", columns, _row, min_width="860px",
                     empty="No admin actions recorded yet",
                     empty_text="Approvals, rejections, deletions and setting changes appear here.")
