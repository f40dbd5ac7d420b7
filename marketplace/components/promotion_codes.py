"""The Promotion codes section (vendor dashboard and admin panel): a create form and the codes, as a table on
wide screens and as cards on phones, each with Deactivate. `S` is the area's state (state/promotion_codes.py)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from marketplace.components.empty_state import empty_state
from marketplace.components.forms import field
from marketplace.components.spinner import skeleton_block
from marketplace.state.promotion_codes import AgentOption, CodeRow


def _input(
    S: Any, attribute: str, name: str, label: str, *, placeholder: str = "", kind: str = "text", **props: Any
) -> rx.Component:
    error_key = S.FORM_FIELDS[attribute]
    return field(
        label,
        rx.input(
            id=f"promo-{name}",
            name=name,
            type=kind,
            value=getattr(S, attribute),
            on_change=S.set_field(attribute),
            placeholder=placeholder,
            size="2",
            width="100%",
            **props,
        ),
        S.errors.get(error_key, ""),
        field_id=f"promo-{name}",
    )


def _agent_picker(S: Any, admin: bool) -> rx.Component:
    if admin:
        return rx.vstack(
            rx.checkbox("All agents", checked=S.all_agents, on_change=S.set_all_agents, id="promo-all-agents"),
            rx.cond(
                ~S.all_agents,
                _input(S, "agent_text", "agentText", "Agent IDs (comma-separated)", placeholder="agent id, agent id"),
            ),
            rx.cond(
                S.errors.get("agentIds", "") != "",
                rx.text(
                    S.errors.get("agentIds", ""),
                    size="1",
                    color_scheme="red",
                    id="promo-agentText-error",
                    data_error_for="promo-agentText",
                ),
            ),
            spacing="2",
            width="100%",
        )

    def option(agent: AgentOption) -> rx.Component:
        return rx.checkbox(
            agent.name,
            checked=S.picked.contains(agent.id),
            on_change=lambda checked: S.toggle_agent(agent.id, checked),
            class_name="promo-agent",
            data_agent=agent.name,
        )

    return rx.vstack(
        rx.text("Agents", size="2", weight="medium"),
        rx.cond(
            S.agent_options.length() == 0,
            rx.text("You have no live agents yet.", size="2", color_scheme="gray"),
            rx.flex(rx.foreach(S.agent_options, option), wrap="wrap", gap="var(--space-3)", id="promo-agents"),
        ),
        rx.cond(
            S.errors.get("agentIds", "") != "",
            rx.text(S.errors.get("agentIds", ""), size="1", color_scheme="red", id="promo-agents-error"),
        ),
        spacing="2",
        width="100%",
    )


def _form(S: Any, admin: bool) -> rx.Component:
    busy = S.busy == "create"
    return rx.form(
        rx.vstack(
            rx.grid(
                _input(S, "code", "code", "Code", placeholder="SPRING-25", max_length=32),
                rx.vstack(
                    rx.text("Discount", as_="label", size="2", weight="medium", html_for="promo-kind"),
                    rx.select.root(
                        rx.select.trigger(id="promo-kind", width="100%", aria_label="Discount type"),
                        rx.select.content(
                            rx.select.item("Percent off", value="percent"),
                            rx.select.item("Amount off (USD)", value="amount"),
                        ),
                        value=S.kind,
                        on_change=S.set_kind,
                        size="2",
                    ),
                    spacing="1",
                    width="100%",
                ),
                _input(
                    S,
                    "value",
                    "value",
                    rx.cond(S.kind == "percent", "Percent (1-100)", "Amount in USD"),
                    placeholder="25",
                    input_mode="decimal",
                ),
                # A date input's own parts are not tied to the <label> by every browser: it is named as well.
                _input(
                    S,
                    "expires_on",
                    "expiresOn",
                    "Expires on (optional)",
                    kind="date",
                    aria_label="Expires on (optional)",
                ),
                _input(
                    S,
                    "max_redemptions",
                    "maxRedemptions",
                    "Maximum redemptions (optional)",
                    placeholder="100",
                    input_mode="numeric",
                ),
                rx.vstack(
                    rx.text(
                        "Monthly agents: discount", as_="label", size="2", weight="medium", html_for="promo-duration"
                    ),
                    rx.select.root(
                        rx.select.trigger(id="promo-duration", width="100%", aria_label="Months discounted"),
                        rx.select.content(
                            rx.select.item("First payment only", value="once"),
                            rx.select.item("A number of months", value="repeating"),
                            rx.select.item("Every month", value="forever"),
                        ),
                        value=S.duration,
                        on_change=S.set_duration,
                        size="2",
                    ),
                    spacing="1",
                    width="100%",
                ),
                rx.cond(
                    S.duration == "repeating",
                    _input(S, "duration_months", "durationMonths", "Months", placeholder="3", input_mode="numeric"),
                ),
                columns=rx.breakpoints(initial="1", sm="2", lg="3"),
                spacing="3",
                width="100%",
            ),
            _agent_picker(S, admin),
            rx.checkbox(
                "First purchase only",
                name="firstPurchaseOnly",
                checked=S.first_purchase_only,
                on_change=S.set_first_purchase_only,
                id="promo-first-only",
            ),
            rx.text("Each customer can use a code once.", size="1", color_scheme="gray"),
            rx.button(
                rx.cond(busy, rx.spinner(size="2"), rx.icon("plus", size=16)),
                "Create code",
                type="submit",
                disabled=S.busy != "",
                id="promo-create",
            ),
            spacing="3",
            width="100%",
        ),
        on_submit=S.create_code,
        reset_on_submit=False,
        no_validate=True,
        width="100%",
        id="promo-form",
    )


def _deactivate(S: Any, row: CodeRow) -> rx.Component:
    return rx.cond(
        row.active,
        rx.button(
            rx.cond(S.busy == row.id, rx.spinner(size="1"), rx.icon("ban", size=14)),
            "Deactivate",
            size="1",
            variant="soft",
            color_scheme="red",
            on_click=S.deactivate(row.id),
            disabled=S.busy != "",
            class_name="promo-deactivate",
            aria_label="Deactivate " + row.code,
        ),
        rx.badge("Inactive", color_scheme="gray", class_name="promo-inactive"),
    )


def _table_row(S: Any, row: CodeRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.code(row.code, size="2", class_name="promo-code")),
        rx.table.cell(rx.text(row.off, size="2"), rx.cond(row.first_only, rx.badge("First purchase", size="1"))),
        rx.table.cell(rx.text(row.agents, size="2")),
        rx.table.cell(rx.text(row.expires, size="2", white_space="nowrap")),
        rx.table.cell(rx.text(row.uses, size="2", class_name="promo-uses")),
        rx.table.cell(_deactivate(S, row)),
        class_name="promo-row",
        data_code=row.code,
    )


def _card(S: Any, row: CodeRow) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.code(row.code, size="3", class_name="promo-code"),
                rx.spacer(),
                _deactivate(S, row),
                width="100%",
                align="center",
            ),
            rx.text(row.off, size="2"),
            rx.text(row.agents, " · expires ", row.expires, " · used ", row.uses, size="1", color_scheme="gray"),
            rx.cond(row.first_only, rx.badge("First purchase", size="1")),
            spacing="1",
            width="100%",
        ),
        width="100%",
        class_name="promo-card",
        data_code=row.code,
    )


def _list(S: Any) -> rx.Component:
    return rx.cond(
        S.codes_loading,
        rx.vstack(skeleton_block("2.2em"), skeleton_block("2.2em"), width="100%"),
        rx.cond(
            S.codes_error != "",
            rx.callout(S.codes_error, icon="triangle-alert", color_scheme="red", id="promo-error"),
            rx.cond(
                S.code_rows.length() == 0,
                empty_state(
                    "tag",
                    "No promotion codes yet",
                    "Create a code above; customers enter it at checkout.",
                    element_id="promo-empty",
                ),
                rx.fragment(
                    rx.box(
                        rx.table.root(
                            rx.table.header(
                                rx.table.row(
                                    *[
                                        rx.table.column_header_cell(h)
                                        for h in ("Code", "Discount", "Agents", "Expires", "Used", "")
                                    ]
                                )
                            ),
                            rx.table.body(rx.foreach(S.code_rows, lambda row: _table_row(S, row))),
                            width="100%",
                            size="1",
                        ),
                        display=rx.breakpoints(initial="none", md="block"),
                        width="100%",
                        overflow_x="auto",
                        id="promo-table",
                    ),
                    rx.vstack(
                        rx.foreach(S.code_rows, lambda row: _card(S, row)),
                        display=rx.breakpoints(initial="flex", md="none"),
                        width="100%",
                        spacing="2",
                        id="promo-cards",
                    ),
                ),
            ),
        ),
    )


def promotion_codes_section(S: Any, *, admin: bool, element_id: str) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.icon("tag", size=18, color="var(--accent-9)"),
                rx.heading("Promotion codes", size="4", as_="h2"),
                align="center",
                spacing="2",
            ),
            rx.text(
                "Any agents, or all of them, with a percent or a USD amount off."
                if admin
                else "Discounts on your own agents: a percent or a USD amount off; the platform fee and your share "
                "are computed on the discounted price.",
                size="2",
                color_scheme="gray",
            ),
            _form(S, admin),
            rx.separator(size="4"),
            _list(S),
            spacing="4",
            width="100%",
        ),
        width="100%",
        id=element_id,
        on_mount=S.load_codes,
    )
