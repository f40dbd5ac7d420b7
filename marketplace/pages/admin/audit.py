"""The Audit Log tab of /admin: every admin write, newest first (Time, Actor, Action, Target, Details), paged."""

from __future__ import annotations

import reflex as rx

from marketplace.components.empty_state import empty_state
from marketplace.pages.admin.widgets import admin_card, pager, table, table_skeleton
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
    """Mounted when the tab opens; mounting loads the newest page."""
    listing = rx.cond(
        L.loading, table_skeleton(),
        rx.cond(
            L.total == 0,
            empty_state("scroll-text", "No admin actions recorded yet",
                        "Approvals, rejections, deletions and setting changes appear here.", element_id="audit-empty"),
            rx.vstack(
                table(["Time", "Actor", "Action", "Target", "Details"], L.rows, _row, min_width="860px",
                      element_id="audit-table"),
                pager(L, "audit-pager"),
                spacing="3", width="100%",
            ),
        ),
    )
    return rx.box(admin_card("Audit Log", listing, icon="scroll-text", element_id="audit-card"), width="100%",
                  on_mount=L.on_open)
