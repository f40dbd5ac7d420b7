"""The Agents tab of /admin: search, the table (Name, Vendor, Price, Status, Rating, Created, Actions), paging,
the details dialog, Approve for agents not live, and the delete confirmation."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar, Var

from marketplace.components.data_table import Column
from marketplace.components.image import agent_image
from marketplace.pages.admin.widgets import (
    action_buttons,
    confirm_dialog,
    detail,
    details_dialog,
    row_button,
    table_tab,
)
from marketplace.state.admin.agents import DELETE_AGENT, AgentView
from marketplace.state.admin.agents import AgentsState as G


def _status(agent: ObjectVar[AgentView]) -> rx.Component:
    return rx.match(
        agent.status_label,
        ("Approved", rx.badge(rx.icon("circle-check", size=12), "Approved", color_scheme="green")),
        ("Rejected", rx.badge(rx.icon("circle-x", size=12), "Rejected", color_scheme="red")),
        rx.badge(rx.icon("clock", size=12), "Pending", color_scheme="amber"),
    )


def _approve_button(agent_id: Var[str], *, size: str = "1", variant: str = "soft", **props: object) -> rx.Component:
    return rx.button(rx.cond(G.busy == agent_id, rx.spinner(size="1"), rx.icon("check", size=14)), "Approve",
                     size=size, color_scheme="green", variant=variant, on_click=G.act("approve", agent_id),
                     disabled=G.busy != "", **props)


def _row(agent: ObjectVar[AgentView]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.text(agent.name, weight="medium")),
        rx.table.cell(agent.vendor),
        rx.table.cell(rx.text(agent.price, white_space="nowrap")),
        rx.table.cell(_status(agent)),
        rx.table.cell(rx.text(f"★ {agent.rating} ({agent.review_count})", white_space="nowrap")),
        rx.table.cell(rx.text(agent.created, white_space="nowrap")),
        rx.table.cell(action_buttons(
            row_button("View", "eye", G.view(agent.id), "view-agent"),
            rx.cond(agent.status == "pending", _approve_button(agent.id, class_name="approve-agent")),
            row_button("Delete", "trash-2", G.ask("delete", agent.id, agent.name), "delete-agent",
                       color_scheme="red"),
        )),
        class_name="agent-row", data_id=agent.id, data_name=agent.name,
    )


def _details() -> rx.Component:
    a = G.viewing
    body = rx.vstack(
        rx.hstack(
            agent_image(a.image_url, width="64px", height="64px", emoji_size="1.8em"),
            rx.vstack(rx.heading(a.name, size="4", as_="h2"),
                      rx.text(a.price, size="2", weight="bold", id="agent-details-price"),
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
    return details_dialog("Agent Details", body, open=G.details_open, on_open_change=G.set_details_open,
                          footer=rx.cond(a.status == "pending", _approve_button(a.id, size="2", variant="solid",
                                                                                id="approve-agent-now")),
                          element_id="agent-details")


def agents_tab() -> rx.Component:
    return table_tab(
        G, "agents", "Agents", "bot",
        ["Name", "Vendor", "Price", "Status", Column("Rating", "extra"), "Created", "Actions"], _row,
        min_width="860px", empty="No agents in the system yet", searched="No agents match your search",
        dialogs=(_details(), confirm_dialog(G, "delete", DELETE_AGENT, element_id="delete-agent-dialog")),
    )
