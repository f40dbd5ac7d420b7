"""The one table builder: a table on wide screens, one card per row on phones.

Each column declares what its cell is on a phone's card (`Column.role`): the card's `title`, a labelled `figure`,
the row's `actions`, or an `extra` that only the wide table shows. A plain header string is a figure, the first
column the title and a column headed 'Actions' the actions, so a table declared with strings alone still gets
readable cards. The row renderer stays one `rx.table.row` of cells; the builder labels its cells by position, and
the card layout is CSS on the table's box (no second copy of the rows, so ids and test selectors stay unique).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import reflex as rx
from reflex.vars import Var

Role = Literal["title", "figure", "actions", "extra"]

PHONE = "@media screen and (max-width: 47.99em)"  # below Reflex's md breakpoint (48em), where tab bars turn to a select


@dataclass(frozen=True)
class Column:
    header: str
    role: Role = "figure"


def columns_of(headers: Sequence[str | Column]) -> list[Column]:
    """Plain strings get their default roles: the first is the title, 'Actions' the actions, the rest figures."""
    def role(index: int, header: str) -> Role:
        return "title" if index == 0 else "actions" if header == "Actions" else "figure"
    return [h if isinstance(h, Column) else Column(h, role(i, h)) for i, h in enumerate(headers)]


_CARD = {"display": "block", "width": "100%", "height": "auto"}  # Radix gives its table `height: 0`

# The rows as cards: the title first, then one 'label  value' line per figure, the actions last; empty cells and
# extras are left out. Radix draws a cell's bottom line as a box shadow, so that is removed, not a border.
PHONE_CARDS = {
    PHONE: {
        "& .rt-TableRoot, & .rt-ScrollAreaViewport, & table, & tbody": {**_CARD, "min_width": "0 !important"},
        "& .rt-ScrollAreaViewport > div": {**_CARD, "min_width": "0 !important"},
        "& thead": {"display": "none"},
        "& tr": {"display": "flex", "flex_direction": "column", "gap": "var(--space-1)", "width": "100%",
                 "padding": "var(--space-3)", "margin_bottom": "var(--space-3)",
                 "border": "1px solid var(--gray-a5)", "border_radius": "var(--radius-3)"},
        "& td, & th": {"display": "flex", "justify_content": "space-between", "align_items": "center",
                       "gap": "var(--space-3)", "padding": "0", "box_shadow": "none", "min_width": "0",
                       "height": "auto", "min_height": "var(--space-5)",
                       "white_space": "normal", "text_align": "right", "overflow_wrap": "anywhere"},
        "& td > *, & th > *": {"min_width": "0", "max_width": "100%"},
        "& td::before, & th::before": {"content": "attr(data-label)", "flex_shrink": "0", "text_align": "left",
                                       "color": "var(--gray-11)", "font_size": "var(--font-size-1)"},
        "& td:empty, & [data-cell=extra]": {"display": "none"},
        "& [data-cell=title]": {"order": "-1", "justify_content": "flex-start", "text_align": "left",
                                "font_size": "var(--font-size-3)", "padding_bottom": "var(--space-1)"},
        "& [data-cell=actions]": {"order": "1", "justify_content": "flex-start", "padding_top": "var(--space-2)"},
        "& [data-cell=actions] > *": {"flex_wrap": "wrap"},
        "& [data-cell=title]::before, & [data-cell=actions]::before": {"content": "none"},
    },
}


def _labelled(render: Callable[[Any], rx.Component], columns: list[Column]) -> Callable[[Any], rx.Component]:
    """The row renderer, with each cell marked by its column's header and role (what the phone's card reads)."""
    def row(item: Any) -> rx.Component:
        component = render(item)
        cells = component.children
        if len(cells) != len(columns):
            raise ValueError(f"a row has {len(cells)} cells for {len(columns)} columns: "
                             f"{[c.header for c in columns]}")
        for cell, column in zip(cells, columns, strict=True):
            if not isinstance(cell, rx.Component):
                raise TypeError(f"a row's cell for {column.header!r} is not a component")
            cell.custom_attrs.update({"data-label": column.header, "data-cell": column.role})
        return component
    return row


def table(headers: Sequence[str | Column], rows: Var, render: Callable[[Any], rx.Component], *, min_width: str,
          element_id: str, size: str = "2") -> rx.Component:
    """A table that scrolls sideways inside its card between phone and desktop widths, and shows its rows as
    cards on phones (see `Column`)."""
    columns = columns_of(headers)
    return rx.box(
        rx.table.root(
            rx.table.header(rx.table.row(*[rx.table.column_header_cell(c.header, white_space="nowrap")
                                           for c in columns])),
            rx.table.body(rx.foreach(rows, _labelled(render, columns))),
            size=size, min_width=min_width, width="100%",
        ),
        id=element_id, overflow_x="auto", width="100%", class_name="data-table", style=PHONE_CARDS,
    )
