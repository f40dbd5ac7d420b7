"""The Audit Log tab of /admin: every admin write, newest first, in words (who did what to which agent, customer
or order, amounts, old -> new values), with time, actor, action code and target, paged."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from marketplace.components.data_table import Column
from marketplace.pages.admin.widgets import table_tab
from marketplace.state.admin.audit import AuditState as L
from marketplace.state.admin.audit import AuditView


def _row(entry: ObjectVar[AuditView]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(entry.summary, size="2", class_name="audit-summary", max_width="36em")),
        rx.table.cell(rx.text(entry.time, white_space="nowrap")),
        rx.table.cell(rx.text(entry.actor, class_name="audit-actor")),
        rx.table.cell(rx.code(entry.action, variant="soft", size="1")),
        rx.table.cell(rx.text(entry.target, size="1", font_family="var(--code-font-family)",
                              color_scheme="gray")),
        class_name="audit-row", data_action=entry.action,
    )


def audit_tab() -> rx.Component:
    # What happened, in words, leads (the card's title on phones); the codes and ids stay for searching.
    columns: list[str | Column] = [Column("What happened", "title"), Column("Time"), "Actor", Column("Action", "extra"),
               Column("Target", "extra")]
    return table_tab(L, "audit", "Audit Log", "scroll-text", columns, _row, min_width="860px",
                     empty="No admin actions recorded yet",
                     empty_text="Approvals, rejections, deletions and setting changes appear here.")
