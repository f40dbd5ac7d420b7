"""Pieces the admin tabs share: cards and figures, the list builders over state/admin/listing.AdminList (`table_tab`,
`card_list`: search, table or cards, pager, empty card), the details dialog, the dialogs a row action asks in
(`confirm_dialog`, `reason_dialog`, from the action's declaration), and the commission-rate editor."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import reflex as rx
from reflex.vars import Var

from marketplace.components.data_table import Column, table
from marketplace.components.empty_state import empty_state
from marketplace.components.layout import notice_card
from marketplace.components.pager import pager
from marketplace.components.spinner import skeleton_block
from marketplace.state.admin.listing import Action
from marketplace.state.admin.page import ADMIN_ONLY_MESSAGE, ADMIN_ONLY_TITLE


def denied_card() -> rx.Component:
    """Not an admin: what the page shows while the sign-in redirect is on its way."""
    return notice_card("shield-alert", ADMIN_ONLY_TITLE, ADMIN_ONLY_MESSAGE, rx.spinner(size="2"),
                       card_id="admin-denied")


def admin_card(title: str, *children: rx.Component, icon: str, element_id: str,
               action: rx.Component | None = None, **props: object) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.hstack(rx.icon(icon, size=18, color="var(--accent-9)", flex_shrink="0"),
                          rx.heading(title, size="4", as_="h2"),
                          align="center", spacing="2"),
                rx.spacer(),
                *([action] if action is not None else []),
                align="center", width="100%", wrap="wrap", spacing="2",
            ),
            *children,
            spacing="4", width="100%",
        ),
        width="100%", id=element_id, **props,
    )


def figure(label: str, value: rx.Component) -> rx.Component:
    """One labelled figure on a line: label left, value right."""
    return rx.hstack(rx.text(label, size="2", color_scheme="gray"), rx.spacer(), value, width="100%",
                     align="center", padding_y="0.35em", border_bottom="1px solid var(--gray-a3)")


def summary_figure(state: Any, label: str, value: Var, element_id: str, **props: object) -> rx.Component:
    """A figure of the sales summary, with a placeholder while the summary loads."""
    return figure(label, rx.cond(state.loading, skeleton_block("1.2em", "5em"),
                                 rx.text(value, weight="bold", id=element_id, **props)))


def table_skeleton() -> rx.Component:
    return rx.vstack(*[skeleton_block("2.2em") for _ in range(4)], width="100%", spacing="2")


def search_box(state: Any, placeholder: str, element_id: str) -> rx.Component:
    return rx.input(
        rx.input.slot(rx.icon("search", size=16)),
        placeholder=placeholder, value=state.search, on_change=state.set_search.debounce(300),
        type="search", id=element_id, width=rx.breakpoints(initial="100%", sm="18em"), aria_label=placeholder,
    )


def details_dialog(title: str | Var[str], body: rx.Component, *, open: Var[bool], on_open_change: Any,
                   footer: rx.Component | None = None, description: str | Var[str] | None = None,
                   element_id: str) -> rx.Component:
    """A record's details; `footer` holds its actions beside Close."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(title),
            *([rx.dialog.description(description, size="2", color_scheme="gray")] if description is not None else []),
            # Long values (descriptions, URLs, file names) wrap anywhere: on a phone they pushed the dialog wider
            # than the screen.
            rx.box(body, max_height="65vh", overflow_y="auto", padding_right="0.25em", overflow_wrap="anywhere",
                   min_width="0"),
            rx.hstack(
                *([footer] if footer is not None else []),
                rx.dialog.close(rx.button("Close", variant="soft", color_scheme="gray")),
                justify="end", spacing="2", margin_top="1em", wrap="wrap",
            ),
            max_width="560px", id=element_id,
        ),
        open=open, on_open_change=on_open_change,
    )


def detail(label: str, value: rx.Component | Var | str) -> rx.Component:
    return rx.vstack(
        rx.text(label, size="1", weight="medium", color_scheme="gray"),
        value if isinstance(value, rx.Component) else rx.text(value, size="2"),
        spacing="0", width="100%",
    )


def confirm_dialog(state: Any, name: str, action: Action, *, element_id: str, confirm_id: str = "",
                   icon: str = "trash-2") -> rx.Component:
    """The action waits for a yes: its question and the record's name."""
    busy = state.busy != ""
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(action.title),
            rx.alert_dialog.description(rx.text(rx.text(state.asking_name, weight="bold", as_="span"), " — ",
                                                action.confirm)),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray", disabled=busy)),
                rx.button(rx.cond(busy, rx.spinner(size="1"), rx.icon(icon, size=14)), action.label,
                          color_scheme="red", on_click=state.answer, disabled=busy,
                          id=confirm_id or f"{element_id}-confirm"),
                justify="end", spacing="2", margin_top="1em",
            ),
            max_width="460px", id=element_id,
        ),
        open=state.asking == name, on_open_change=state.set_asking_open,
    )


def reason_dialog(state: Any, name: str, action: Action, description: rx.Component, *, label: str, note: str,
                  placeholder: str, field_id: str, element_id: str, confirm_id: str, cancel_id: str) -> rx.Component:
    """The action asks for a reason (sent as the form's `reason`); it stays open when the reason is refused."""
    busy = state.busy != ""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(action.title),
            rx.dialog.description(description),
            rx.form(
                rx.vstack(
                    rx.text(label, as_="label", html_for=field_id, size="2", weight="medium"),
                    rx.text_area(id=field_id, name="reason", rows="4", value=state.reason, on_change=state.set_reason,
                                 placeholder=placeholder, width="100%", max_length=2000),
                    rx.text(note, size="1", color_scheme="gray", id=f"{element_id}-note"),
                    rx.flex(
                        rx.dialog.close(rx.button("Cancel", type="button", variant="soft", color_scheme="gray",
                                                  id=cancel_id)),
                        rx.button(rx.cond(busy, rx.spinner(size="2"), rx.icon("x", size=16)), action.label,
                                  type="submit", color_scheme="red", disabled=busy, id=confirm_id),
                        spacing="3", justify="end", width="100%",
                    ),
                    spacing="2", width="100%", padding_top="1em",
                ),
                on_submit=state.answer, reset_on_submit=False, width="100%",
            ),
            max_width="480px", id=element_id,
        ),
        open=state.asking == name, on_open_change=state.set_asking_open,
    )


def listing(state: Any, key: str, rows: rx.Component, empty: rx.Component, loading: rx.Component) -> rx.Component:
    """One admin list: the skeleton while it loads, the empty card, else its rows and the pager."""
    return rx.cond(state.loading, loading,
                   rx.cond(state.total == 0, empty,
                           rx.vstack(rows, pager(state, f"{key}-pager"), spacing="3", width="100%")))


def card_list(state: Any, key: str, render: Callable[[Any], rx.Component], empty: rx.Component) -> rx.Component:
    """An admin list as cards, two a row (one on a phone)."""
    grid = {"columns": rx.breakpoints(initial="1", md="2"), "spacing": "4", "width": "100%"}
    return listing(state, key, rx.grid(rx.foreach(state.rows, render), **grid), empty,
                   rx.grid(skeleton_block("10em"), skeleton_block("10em"), id=f"{key}-loading", **grid))


def table_tab(state: Any, key: str, title: str, icon: str, headers: Sequence[str | Column],
              row: Callable[[Any], rx.Component], *, min_width: str, empty: str | Var[str], empty_text: str = "",
              searched: str = "", dialogs: tuple[rx.Component, ...] = (),
              filters: rx.Component | None = None) -> rx.Component:
    """A table tab of /admin as a declaration: card, search (when `searched` names the no-match text) or
    `filters` in its header, table (cards on phones: `headers` may declare each column's role there, see
    components/data_table.Column), pager, dialogs; ids are derived from `key` ('customers' -> #customers-table,
    #customers-pager...). Mounting the tab loads its first page."""
    title_when_empty = rx.cond(state.search != "", searched, empty) if searched else empty
    body = listing(state, key, table(headers, state.rows, row, min_width=min_width, element_id=f"{key}-table"),
                   empty_state(icon, title_when_empty, empty_text, element_id=f"{key}-empty"), table_skeleton())
    search = search_box(state, f"Search {key}", f"{key}-search") if searched else filters
    return rx.box(admin_card(title, body, icon=icon, element_id=f"{key}-card", action=search), *dialogs,
                  width="100%", on_mount=state.on_open)


def decision_buttons(state: Any, row_id: Var[str] | str, name: Var[str] | str, kind: str, *, in_dialog: bool,
                     labels: tuple[str, str] = ("Approve", "Reject")) -> rx.Component:
    """Approve and Reject of a card waiting for a decision (with View Full Details on the card itself)."""
    busy = state.busy != ""
    return rx.flex(
        *([] if in_dialog else [
            rx.button(rx.icon("eye", size=16), "View Full Details", variant="outline", on_click=state.view(row_id),
                      class_name=f"view-{kind}"),
        ]),
        rx.button(rx.cond(state.busy == row_id, rx.spinner(size="2"), rx.icon("check", size=16)), labels[0],
                  color_scheme="green", on_click=state.act("approve", row_id), disabled=busy,
                  class_name=f"approve-{kind}"),
        rx.button(rx.icon("x", size=16), labels[1], color_scheme="red", variant="soft",
                  on_click=state.ask("reject", row_id, name), disabled=busy, class_name=f"reject-{kind}"),
        spacing="2", wrap="wrap", justify="end" if in_dialog else "start",
    )


def fact(label: str, value: rx.Component | Var | str, **props: object) -> rx.Component:
    """One labelled value of a details dialog's data list."""
    return rx.data_list.item(rx.data_list.label(label, min_width="9em"), rx.data_list.value(value, **props))


def row_button(label: str, icon: str, on_click: Any, class_name: str, **props: object) -> rx.Component:
    return rx.button(rx.icon(icon, size=14), label, size="1", variant="soft", on_click=on_click,
                     class_name=class_name, **props)


def action_buttons(*buttons: rx.Component) -> rx.Component:
    return rx.hstack(*buttons, spacing="1", wrap="nowrap")


def rate_figure(state: Any) -> rx.Component:
    """Commission Rate: the value with a pencil, or an input with confirm and cancel (the edit mode)."""
    reading = rx.hstack(
        rx.text(state.commission_rate, weight="bold", id="commission-rate"),
        rx.icon_button(rx.icon("pencil", size=14), size="1", variant="ghost", on_click=state.start_rate_edit,
                       aria_label="Edit commission rate", id="edit-commission-rate"),
        align="center", spacing="2",
    )
    editing = rx.form(
        rx.hstack(
            rx.input(name="rate", value=state.rate_draft, on_change=state.set_rate_draft, type="number", min=0,
                     max=100, step="0.01", size="1", width="6em", id="commission-rate-input", auto_focus=True,
                     aria_label="Commission rate in percent"),
            rx.text("%", size="2"),
            rx.icon_button(rx.cond(state.saving_rate, rx.spinner(size="1"), rx.icon("check", size=14)), size="1",
                           color_scheme="green", type="submit", disabled=state.saving_rate,
                           aria_label="Confirm commission rate", id="confirm-commission-rate"),
            rx.icon_button(rx.icon("x", size=14), size="1", variant="soft", color_scheme="gray", type="button",
                           on_click=state.cancel_rate_edit, disabled=state.saving_rate,
                           aria_label="Cancel editing", id="cancel-commission-rate"),
            align="center", spacing="1",
        ),
        on_submit=state.save_rate, no_validate=True,
    )
    return figure("Commission Rate", rx.cond(state.loading, skeleton_block("1.2em", "4em"),
                                             rx.cond(state.editing_rate, editing, reading)))
