"""/categories: every category with its icon, description, agent count and a link to its agents."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from marketplace.components.agent_card import card_grid
from marketplace.components.catalog import category_icon
from marketplace.components.layout import container, page_frame
from marketplace.components.links import button_link
from marketplace.state.catalog import CategoriesState, CategoryCard

SKELETONS = 6


def category_card(category: ObjectVar[CategoryCard]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.center(category_icon(category.slug), width="48px", height="48px", border_radius="var(--radius-3)",
                          background="var(--accent-a3)", color="var(--accent-11)"),
                rx.spacer(),
                rx.badge(category.agent_count, rx.cond(category.agent_count == 1, " agent", " agents"),
                         variant="soft", radius="full", class_name="agent-count"),
                width="100%", align="center",
            ),
            rx.heading(category.name, size="5", class_name="category-name", as_="h2"),
            rx.text(category.description, color_scheme="gray", size="2"),
            rx.spacer(),
            button_link("Explore Agents", rx.icon("arrow-right", size=16), href=f"/agents?category={category.slug}",
                        variant="soft", width="100%", class_name="explore-link"),
            spacing="3", align="start", height="100%",
        ),
        size="3", class_name="category-card", custom_attrs={"data-slug": category.slug},
    )


def skeleton_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.skeleton(height="48px", width="48px"),
            rx.skeleton(height="22px", width="60%"),
            rx.skeleton(height="14px", width="100%"),
            rx.skeleton(height="36px", width="100%"),
            spacing="3",
        ),
        size="3", class_name="category-skeleton",
    )


def request_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Can't find what you're looking for?", size="5", as_="h2"),
            rx.text("Browse every agent on the marketplace, or tell us which category you would like to see.",
                    color_scheme="gray", align="center"),
            rx.hstack(
                button_link("Browse All Agents", href="/agents", size="3"),
                button_link("Request Category", href="/contact", size="3", variant="outline"),
                spacing="3", wrap="wrap", justify="center",
            ),
            align="center", spacing="3", padding="1.5em",
        ),
        size="3", width="100%", id="request-category",
    )


def _title() -> rx.Component:
    return rx.vstack(
        rx.heading("AI Agent Categories", size="8", as_="h1"),
        rx.text("Explore AI agents by what they do.", color_scheme="gray", size="3"),
        spacing="1",
    )


def _skeletons() -> rx.Component:
    return card_grid(*[skeleton_card() for _ in range(SKELETONS)], id="categories-loading")


def categories_page() -> rx.Component:
    return page_frame(
        container(
            rx.vstack(
                _title(),
                rx.cond(
                    CategoriesState.loading,
                    _skeletons(),
                    rx.cond(
                        CategoriesState.categories.length() > 0,
                        card_grid(rx.foreach(CategoriesState.categories, category_card), id="categories-grid"),
                        rx.center(rx.text("No categories yet.", color_scheme="gray"), padding_y="3em", width="100%"),
                    ),
                ),
                request_card(),
                spacing="6", width="100%",
            )
        ),
        # until the session is known (and in the prerendered HTML): the six skeletons rather than a spinner
        pending=container(rx.vstack(_title(), _skeletons(), spacing="6", width="100%")),
    )
