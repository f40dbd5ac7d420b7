"""Agent cards (browse, landing, home), their loading skeletons, and the star rating."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ArrayVar, BooleanVar, NumberVar, ObjectVar, Var

from marketplace.components.image import agent_image
from marketplace.state.catalog import AgentCard

SKELETON_CARDS = 6


def stars(filled: NumberVar[int] | int, size: int = 14) -> rx.Component:
    """Five stars, the first `filled` in amber."""
    return rx.hstack(
        *[
            rx.icon("star", size=size, color=rx.cond(filled >= n, "var(--amber-9)", "var(--gray-a7)"),
                    fill=rx.cond(filled >= n, "var(--amber-9)", "none"))
            for n in range(1, 6)
        ],
        spacing="0", align="center",
    )


def average_stars(full: NumberVar[int] | int, half: BooleanVar | bool, size: int = 14, **props: object) -> rx.Component:
    """Five stars for an average rating (state.catalog.star_fill): `full` amber stars, then a half star when
    `half` (4.5 reads as four and a half, not five), the rest empty."""
    empty = "var(--gray-a7)"

    def one(n: int) -> rx.Component:
        return rx.cond(
            full >= n,
            rx.icon("star", size=size, color="var(--amber-9)", fill="var(--amber-9)"),
            rx.cond(
                half & (full == n - 1),
                rx.box(rx.icon("star", size=size, color=empty, fill="none"),
                       rx.icon("star-half", size=size, color="var(--amber-9)", fill="var(--amber-9)",
                               position="absolute", top="0", left="0"),
                       position="relative", width=f"{size}px", height=f"{size}px", class_name="star-half"),
                rx.icon("star", size=size, color=empty, fill="none"),
            ),
        )

    return rx.hstack(*[one(n) for n in range(1, 6)], spacing="0", align="center", **props)


def rating_line(rating: Var[str] | str, count: NumberVar[int] | int) -> rx.Component:
    """'★ 4.2 (5)', or a 'New' badge for an agent nobody has reviewed yet."""
    return rx.cond(
        count == 0,
        rx.badge("New", variant="soft", color_scheme="gray"),
        rx.hstack(
            rx.icon("star", size=14, color="var(--amber-9)", fill="var(--amber-9)"),
            rx.text(rating, size="2", weight="medium"),
            rx.text(f"({count})", size="2", color_scheme="gray"),
            spacing="1", align="center", flex_shrink="0",
        ),
    )


def price_tag(card: ObjectVar[AgentCard]) -> rx.Component:
    return rx.hstack(
        rx.text(card.price, size="4", weight="bold", color_scheme=rx.cond(card.is_free, "green", "gray"),
                high_contrast=~card.is_free, class_name="price-amount"),
        rx.cond(~card.is_free, rx.text(card.price_suffix, size="1", color_scheme="gray", class_name="price-suffix")),
        spacing="1", align="baseline",
    )


def tag_list(tags: ArrayVar[list[str]], more: NumberVar[int]) -> rx.Component:
    """At most two tags, then '+N more'."""
    return rx.hstack(
        rx.foreach(tags, lambda tag: rx.badge(tag, variant="soft", color_scheme="gray", radius="full")),
        rx.cond(more > 0, rx.badge(f"+{more} more", variant="outline", color_scheme="gray", radius="full")),
        spacing="1", wrap="wrap", min_height="22px",
    )


def agent_card(card: ObjectVar[AgentCard], index: NumberVar[int] | int = 0, *, level: str = "h3") -> rx.Component:
    """A clickable card; it fades in 100 ms after the one before it. `level`: its name's heading level under the
    page's headings."""
    return rx.link(
        rx.card(
            rx.vstack(
                rx.box(
                    agent_image(card.image_url),
                    rx.hstack(
                        rx.cond(card.is_featured, rx.badge(rx.icon("sparkles", size=12), "Featured",
                                                           color_scheme="amber", variant="solid")),
                        rx.cond(card.bought, rx.badge(rx.icon("circle-check", size=12), "Already Bought",
                                                      color_scheme="green", variant="solid",
                                                      class_name="bought-marker")),
                        spacing="1", position="absolute", top="8px", left="8px",
                    ),
                    position="relative", width="100%",
                ),
                rx.hstack(
                    rx.heading(card.name, size="4", trim="both", class_name="agent-name", as_=level),
                    rx.spacer(),
                    rating_line(card.rating, card.review_count),
                    align="center", width="100%",
                ),
                rx.cond(
                    card.category_name != "",
                    rx.text(card.category_emoji, " ", card.category_name, size="1", color_scheme="gray"),
                ),
                rx.text(card.short_description, size="2", color_scheme="gray", class_name="line-clamp-2",
                        style={"display": "-webkit-box", "-webkit-line-clamp": "2", "-webkit-box-orient": "vertical",
                               "overflow": "hidden"}, min_height="2.9em"),
                tag_list(card.tags, card.more_tags),
                rx.spacer(),
                rx.hstack(
                    price_tag(card),
                    rx.spacer(),
                    rx.cond(card.vendor_name != "", rx.text("by ", card.vendor_name, size="1", color_scheme="gray")),
                    align="center", width="100%",
                ),
                rx.cond(card.trial_offer != "", rx.text(card.trial_offer, size="1", weight="medium",
                                                        color_scheme="green", high_contrast=True,
                                                        class_name="trial-offer")),
                spacing="2", height="100%", align="start",
            ),
            height="100%", size="2",
            class_name="agent-card-body",
        ),
        href=f"/agents/{card.id}",
        underline="none", color_scheme="gray", high_contrast=True,
        class_name="agent-card",
        custom_attrs={"data-agent-id": card.id},
        style={"animation": "mp-fade-in 0.35s ease-out both", "animation_delay": f"{index * 100}ms"},
        height="100%",
    )


def agent_card_skeleton() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.skeleton(height="140px", width="100%"),
            rx.skeleton(height="20px", width="60%"),
            rx.skeleton(height="14px", width="100%"),
            rx.skeleton(height="14px", width="80%"),
            rx.skeleton(height="24px", width="40%"),
            spacing="3",
        ),
        class_name="agent-card-skeleton",
    )


def card_grid(*children: rx.Component, **props: object) -> rx.Component:
    return rx.grid(*children, columns=rx.breakpoints(initial="1", sm="2", lg="3"), spacing="4", width="100%",
                   **props)


FADE_IN = ("@keyframes mp-fade-in { from { opacity: 0; transform: translateY(8px); }"
           " to { opacity: 1; transform: none; } }")


def skeleton_grid(grid_id: str) -> rx.Component:
    """The spec's six skeleton cards, in the grid the cards will fill."""
    return card_grid(*[agent_card_skeleton() for _ in range(SKELETON_CARDS)], id=f"{grid_id}-loading")


def agent_grid(cards: ArrayVar[list[AgentCard]], loading: BooleanVar, *, grid_id: str,
               level: str = "h3") -> rx.Component:
    """Six skeleton cards while loading, then the cards."""
    return rx.fragment(
        rx.el.style(FADE_IN),
        rx.cond(
            loading,
            skeleton_grid(grid_id),
            card_grid(rx.foreach(cards, lambda card, i: agent_card(card, i, level=level)), id=grid_id),
        ),
    )
