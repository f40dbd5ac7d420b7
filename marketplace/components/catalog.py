"""Catalog building blocks shared by several pages: option selects, category cards, the quick search."""

from __future__ import annotations

from collections.abc import Callable

import reflex as rx
from reflex.vars import ObjectVar, Var

from marketplace.state.catalog import HOME_PRICES, PRICE_LABELS, CategoryCard, HomeState, Option, options


def option_select(
    select_id: str,
    value: Var[str],
    on_change: Callable,
    choices: Var[list[Option]] | list[Option],
    *,
    label: str,
    width: str = "100%",
) -> rx.Component:
    """A Radix select whose trigger carries `select_id` and an accessible name."""
    if isinstance(choices, Var):
        items = rx.foreach(choices, lambda o: rx.select.item(o.label, value=o.value))
    else:
        items = rx.fragment(*[rx.select.item(o.label, value=o.value) for o in choices])
    return rx.select.root(
        rx.select.trigger(id=select_id, aria_label=label, width=width),
        rx.select.content(items, position="popper"),
        value=value,
        on_change=on_change,
        size="3",
    )


SLUG_ICONS = {
    "productivity": "zap",
    "development": "code",
    "ai-assistance": "bot",
    "content-creation": "pen-tool",
    "automation": "workflow",
    "data-analysis": "chart-bar",
}
DEFAULT_ICON = "folder"


def category_icon(slug: Var[str], size: int = 22) -> rx.Component:
    """The lucide icon for a category slug; unknown slugs get a folder."""
    return rx.match(
        slug,
        *[(key, rx.icon(name, size=size)) for key, name in SLUG_ICONS.items()],
        rx.icon(DEFAULT_ICON, size=size),
    )


def category_tile(category: ObjectVar[CategoryCard]) -> rx.Component:
    """A small landing-page card linking to /agents?category={id}."""
    return rx.link(
        rx.card(
            rx.vstack(
                rx.text(category.emoji, font_size="2em"),
                rx.text(category.name, weight="bold", size="3"),
                rx.text(category.agent_count, " agents", size="1", color_scheme="gray"),
                align="center", spacing="1", padding_y="0.5em", text_align="center",
            ),
            # As tall as the row: a two-line name must not make one card of the row taller than the others.
            width="100%", height="100%", class_name="category-tile",
        ),
        href=f"/agents?category={category.id}",
        underline="none", color_scheme="gray", high_contrast=True, display="block", height="100%",
    )


def quick_search(*, heading: str, form_id: str) -> rx.Component:
    """Text, category and price, leading to /agents with those filters (landing and home)."""
    return rx.form(
        rx.vstack(
            rx.heading(heading, size="5", as_="h2"),
            rx.flex(
                rx.box(
                    rx.input(
                        rx.input.slot(rx.icon("search", size=16)),
                        id=f"{form_id}-text", name="search", placeholder="Search AI agents...", value=HomeState.query,
                        on_change=HomeState.set_query, size="3", width="100%", aria_label="Search agents",
                    ),
                    flex="2", min_width="220px",
                ),
                rx.box(
                    option_select(f"{form_id}-category", HomeState.query_category, HomeState.set_query_category,
                                  HomeState.category_options, label="Category"),
                    flex="1", min_width="180px",
                ),
                rx.box(
                    option_select(f"{form_id}-price", HomeState.query_price, HomeState.set_query_price,
                                  options(HOME_PRICES, PRICE_LABELS), label="Price"),
                    flex="1", min_width="150px",
                ),
                rx.button(rx.icon("search", size=16), "Search", type="submit", size="3", id=f"{form_id}-submit"),
                spacing="3", wrap="wrap", width="100%", align="center",
            ),
            spacing="3", width="100%",
        ),
        on_submit=HomeState.quick_search, no_validate=True, width="100%", id=form_id,
    )
