"""The Agents tab of /admin: search, the table (Name, Vendor, Price, Status, Rating, Created, Actions), paging,
the details dialog, Approve for agents not live, and the delete confirmation."""

from __future__ import annotations

import reflex as rx
from reflex.vars import Var

from marketplace.components.empty_state import empty_state
from marketplace.components.image import agent_image
from marketplace.pages.admin.widgets import (
    action_buttons,
    admin_card,
    confirm_dialog,
    detail,
    details_dialog,
    pager,
    search_box,
    table,
    table_skeleton,
)
from marketplace.state.admin.agents import AgentsState as G
from marketplace.state.admin.agents import AgentView


def _status(agent: AgentView) -> rx.Component:
    return rx.match(
        agent.status_label,
        ("Approved", rx.badge(rx.icon("circle-check", size=12), "Approved", color_scheme="green")),
        ("Rejected", rx.badge(rx.icon("circle-x", size=12), "Rejected", color_scheme="red")),
        rx.badge(rx.icon("clock", size=12), "Pending", color_scheme="amber"),
    )


def _approve_button(agent_id: Var[str], *, size: str = "1", variant: str = "soft", **props: object) -> rx.Component:
    return rx.button(rx.cond(G.busy == agent_id, rx.spinner(size="1"), rx.icon("check", size=14)), "Approve",
                     size=size, color_scheme="green", variant=variant, on_click=G.approve(agent_id),
                     disabled=G.busy != "", **props)


def _row(agent: AgentView) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(agent.name, weight="medium")),
        rx.table.cell(agent.vendor),
        rx.table.cell(rx.text(agent.price, white_space="nowrap")),
        rx.table.cell(_status(agent)),
        rx.table.cell(rx.text(f"★ {agent.rating} ({agent.review_count})", white_space="nowrap")),
        rx.table.cell(rx.text(agent.created, white_space="nowrap")),
        rx.table.cell(action_buttons(
            rx.button(rx.icon("eye", size=14), "View", size="1", variant="soft", on_click=G.view(agent.id),
                      class_name="view-agent"),
            rx.cond(agent.status == "pending", _approve_button(agent.id, class_name="approve-agent")),
            rx.button(rx.icon("trash-2", size=14), "Delete", size="1", variant="soft", color_scheme="red",
                      on_click=G.ask_delete(agent.id), class_name="delete-agent"),
        )),
        class_name="agent-row", data_id=agent.id, data_name=agent.name,
    )


def _details() -> rx.Component:
    a = G.viewing
    body = rx.vstack(
        rx.hstack(
            agent_image(a.image_url, width="64px", height="64px", emoji_size="1.8em"),
            rx.vstack(rx.heading(a.name, size="4"), rx.text(f"{a.price}/month", size="2", weight="bold"),
                      spacing="1"),
            spacing="3", align="center",
        ),
        detail("Description", rx.text(a.description, size="2", white_space="pre-wrap")),
        detail("Category", a.category),
        detail("Status", _status(a)),
        detail("Rating", f"★ {a.rating} ({a.review_count} reviews)"),
        detail("Vendor", a.vendor),
        detail("Demo URL", rx.cond(a.demo_url != "", rx.link(a.demo_url, href=a.demo_url, is_external=True, size="2"),
                                   rx.text("None", size="2", color_scheme="gray"))),
        detail("Tags", rx.cond(a.tags.length() > 0,
                               rx.hstack(rx.foreach(a.tags, lambda t: rx.badge(t, variant="soft")), wrap="wrap",
                                         spacing="1"),
                               rx.text("No tags", size="2", color_scheme="gray"))),
        detail("Created", a.created),
        spacing="3", width="100%",
    )
    return details_dialog("Agent Details", body, open=G.view_open, on_open_change=G.set_view_open,
                          footer=rx.cond(a.status == "pending", _approve_button(a.id, size="2", variant="solid",
                                                                                id="approve-agent-now")),
                          element_id="agent-details")


def agents_tab() -> rx.Component:
    """Mounted when the tab opens; mounting loads the first page."""
    listing = rx.cond(
        G.loading, table_skeleton(),
        rx.cond(
            G.total == 0,
            empty_state("bot", rx.cond(G.search != "", "No agents match your search", "No agents in the system yet"),
                        element_id="agents-empty"),
            rx.vstack(
                table(["Name", "Vendor", "Price", "Status", "Rating", "Created", "Actions"], G.rows, _row,
                      min_width="860px", element_id="agents-table"),
                pager(G, "agents-pager"),
                spacing="3", width="100%",
            ),
        ),
    )
    return rx.box(
        admin_card("Agents", listing, icon="bot", element_id="agents-card",
                   action=search_box(G, "Search agents", "agents-search")),
        _details(),
        confirm_dialog(open=G.confirm_id != "", title="Delete agent", text="This action cannot be undone.",
                       name=G.confirm_name, confirm_label="Delete", on_confirm=G.delete, on_cancel=G.cancel_delete,
                       busy=G.busy != "", element_id="delete-agent-dialog"),
        width="100%", on_mount=G.on_open,
    )
