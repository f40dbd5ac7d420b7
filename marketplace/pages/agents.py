"""/agents: search, filters, sort and popular tags (all kept in the address), results and paging."""

from __future__ import annotations

import reflex as rx

from marketplace.components.agent_card import agent_grid, skeleton_grid
from marketplace.components.catalog import option_select
from marketplace.components.layout import container, page_frame
from marketplace.state.catalog import (
    ADDRESS_CHANGED_ID,
    POPULAR_TAGS,
    RELEVANCE,
    SEARCH_MAX,
    SORT_LABELS,
    BrowseState,
)


def _sort_select() -> rx.Component:
    """The sort select; 'Best match' is offered only while there is a search."""
    return rx.select.root(
        rx.select.trigger(id="sort-filter", aria_label="Sort", width="100%"),
        rx.select.content(
            rx.cond(BrowseState.search.strip() != "", rx.select.item("Best match", value=RELEVANCE)),
            *[rx.select.item(label, value=value) for value, label in SORT_LABELS.items()],
            position="popper",
        ),
        value=BrowseState.sort_value,
        on_change=BrowseState.set_sort,
        size="3",
    )


def _labelled(label: str, control: rx.Component) -> rx.Component:
    return rx.vstack(rx.text(label, size="1", weight="medium", color_scheme="gray"), control, spacing="1",
                     width="100%")


def filters() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.input(
                rx.input.slot(rx.icon("search", size=16)),
                id="agent-search", placeholder="Search AI agents by name, description or tag...",
                value=BrowseState.search, on_change=BrowseState.set_search, debounce_timeout=350,
                max_length=SEARCH_MAX, size="3", width="100%", aria_label="Search agents",
            ),
            rx.grid(
                _labelled("Category", option_select("category-filter", BrowseState.category,
                                                    BrowseState.set_category, BrowseState.category_options,
                                                    label="Category")),
                _labelled("Price", option_select("price-filter", BrowseState.price, BrowseState.set_price,
                                                 BrowseState.price_options, label="Price")),
                _labelled("Rating", option_select("rating-filter", BrowseState.rating, BrowseState.set_rating,
                                                  BrowseState.rating_options, label="Rating")),
                _labelled("Sort by", _sort_select()),
                columns=rx.breakpoints(initial="1", sm="2", md="4"), spacing="3", width="100%",
            ),
            rx.hstack(
                rx.text("Popular tags:", size="2", color_scheme="gray"),
                *[
                    rx.button(
                        rx.cond(BrowseState.tags.contains(tag), rx.icon("check", size=14), rx.icon("tag", size=14)),
                        tag,
                        size="1", radius="full", id=f"tag-{tag}",
                        variant=rx.cond(BrowseState.tags.contains(tag), "solid", "outline"),
                        aria_pressed=rx.cond(BrowseState.tags.contains(tag), "true", "false"),
                        on_click=BrowseState.toggle_tag(tag),
                    )
                    for tag in POPULAR_TAGS
                ],
                spacing="2", wrap="wrap", align="center",
            ),
            spacing="4", width="100%",
        ),
        size="3", width="100%",
    )


def empty_state() -> rx.Component:
    return rx.center(
        rx.vstack(
            rx.icon("search-x", size=48, color="var(--gray-8)"),
            rx.heading("No agents found", size="5", as_="h2"),
            rx.text(
                rx.cond(BrowseState.failed != "", BrowseState.failed,
                        "Try adjusting your search or filters to find what you're looking for."),
                color_scheme="gray", align="center",
            ),
            rx.button(rx.icon("x", size=16), "Clear Filters", variant="soft", on_click=BrowseState.clear_filters,
                      id="clear-filters"),
            align="center", spacing="3",
        ),
        padding_y="4em", width="100%", id="agents-empty",
    )


def pager() -> rx.Component:
    return rx.cond(
        BrowseState.page_count > 1,
        rx.hstack(
            rx.button(rx.icon("chevron-left", size=16), "Previous", variant="soft", id="page-prev",
                      disabled=BrowseState.page <= 1, on_click=BrowseState.go_to_page((BrowseState.page - 1).to(int))),
            rx.foreach(
                BrowseState.page_numbers,
                lambda n: rx.cond(
                    n == 0,
                    rx.text("…", color_scheme="gray"),
                    rx.button(
                        n, variant=rx.cond(n == BrowseState.page, "solid", "outline"),
                        aria_current=rx.cond(n == BrowseState.page, "page", "false"),
                        aria_label=f"Page {n}", on_click=BrowseState.go_to_page(n), min_width="2.5em",
                        class_name="page-number",
                    ),
                ),
            ),
            rx.button("Next", rx.icon("chevron-right", size=16), variant="soft", id="page-next",
                      disabled=BrowseState.page >= BrowseState.page_count,
                      on_click=BrowseState.go_to_page((BrowseState.page + 1).to(int))),
            spacing="2", justify="center", align="center", width="100%", padding_top="1em", wrap="wrap",
            id="pager",
        ),
    )


def _title() -> rx.Component:
    return rx.vstack(
        rx.heading("Browse AI Agents", size="8", as_="h1"),
        rx.text("Discover AI agents for content, automation, analysis, support and more.", color_scheme="gray",
                size="3"),
        spacing="1",
    )


def _loading() -> rx.Component:
    """Until the session is known (and in the page's prerendered HTML): the title and the six skeleton cards, so
    the catalogue's shape shows at first paint instead of a spinner."""
    return container(
        rx.vstack(_title(), rx.skeleton(rx.text("Loading agents..."), loading=True), skeleton_grid("agents-grid"),
                  spacing="5", width="100%"),
    )


def _content() -> rx.Component:
    return container(
        rx.vstack(
            _title(),
            filters(),
            rx.hstack(
                rx.cond(
                    BrowseState.loading,
                    rx.skeleton(rx.text("Loading agents..."), loading=True),
                    rx.text(BrowseState.result_text, weight="medium", id="result-count"),
                ),
                rx.spacer(),
                rx.cond(
                    (BrowseState.page_count > 1) & ~BrowseState.loading,
                    rx.text(f"Page {BrowseState.page} of {BrowseState.page_count}", size="2", color_scheme="gray",
                            id="page-of"),
                ),
                rx.cond(
                    BrowseState.has_filters & (BrowseState.cards.length() > 0),
                    rx.button(rx.icon("x", size=14), "Clear Filters", variant="ghost", size="2",
                              on_click=BrowseState.clear_filters, id="clear-filters-top"),
                ),
                width="100%", align="center", spacing="4",
            ),
            rx.cond(
                ~BrowseState.loading & (BrowseState.cards.length() == 0),
                empty_state(),
                agent_grid(BrowseState.cards, BrowseState.loading, grid_id="agents-grid", level="h2"),
            ),
            pager(),
            # pressed by the page's popstate listener (BrowseState.follow_address): never shown, never focused
            rx.el.button(id=ADDRESS_CHANGED_ID, on_click=BrowseState.follow_address, type="button", tab_index=-1,
                         aria_hidden="true", display="none"),
            spacing="5", width="100%",
        ),
        id="agents-page",
    )


def agents_page() -> rx.Component:
    return page_frame(_content(), pending=_loading())
