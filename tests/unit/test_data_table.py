"""The one table builder: what each column is on a phone's card, and every cell labelled with its column."""

from __future__ import annotations

import pytest
import reflex as rx

from marketplace.components.data_table import Column, _labelled, columns_of, table


def test_plain_headers_get_their_card_roles():
    """A table declared with strings alone still makes readable cards: title first, 'Actions' last."""
    assert [(c.header, c.role) for c in columns_of(["Name", "Email", Column("Username", "extra"), "Actions"])] == [
        ("Name", "title"), ("Email", "figure"), ("Username", "extra"), ("Actions", "actions")]
    # A declared column keeps its role wherever it stands.
    assert [c.role for c in columns_of([Column("Time"), Column("Action", "title")])] == ["figure", "title"]


def _row(item: object) -> rx.Component:
    return rx.table.row(rx.table.cell("a"), rx.table.cell("b"), rx.table.cell("c"))


def test_each_cell_carries_its_columns_label_and_role():
    """What the phone's card reads: the cell's header as its label, and its role."""
    row = _labelled(_row, columns_of(["Agent", Column("Fee", "extra"), "Actions"]))("x")
    assert [cell.render()["props"] for cell in row.children] == [
        ['"data-cell":"title"', '"data-label":"Agent"'],
        ['"data-cell":"extra"', '"data-label":"Fee"'],
        ['"data-cell":"actions"', '"data-label":"Actions"'],
    ]


def test_a_row_with_more_cells_than_columns_is_refused_when_the_page_is_built():
    with pytest.raises(ValueError, match="3 cells for 2 columns"):
        table(["Agent", "Actions"], rx.Var.create(["x"]), _row, min_width="10em", element_id="t")
