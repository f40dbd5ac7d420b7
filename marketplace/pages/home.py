"""`/`: the landing page for visitors and the home page for signed-in users."""

from __future__ import annotations

import reflex as rx

from marketplace.components.agent_card import agent_grid
from marketplace.components.catalog import category_tile, quick_search
from marketplace.components.layout import container, page_frame
from marketplace.components.links import button_link
from marketplace.components.spinner import skeleton_block
from marketplace.config import settings
from marketplace.state.catalog import HomeState
from marketplace.state.plans import OfferState, PlanOption
from marketplace.state.session import SessionState


def _stat(value: rx.Var | str, label: str, stat_id: str) -> rx.Component:
    # A figure, not a heading: the heading's look, a paragraph's role.
    return rx.vstack(rx.heading(rx.el.p(value), size="7", id=stat_id, as_child=True),
                     rx.text(label, color_scheme="gray", size="2"),
                     align="center", spacing="1")


def stats_row(**props: object) -> rx.Component:
    """Live counts from the catalog, and the fixed uptime figure: four in a row, two by two on a phone."""
    return rx.grid(
        _stat(HomeState.total_agents, "AI Agents", "stat-agents"),
        _stat(HomeState.total_categories, "Categories", "stat-categories"),
        _stat(HomeState.total_users, "Users", "stat-users"),
        _stat("99.9%", "Uptime", "stat-uptime"),
        columns=rx.breakpoints(initial="2", sm="4"), spacing_x="8", spacing_y="5", justify_content="center",
        id="hero-stats", **props,
    )


def section(title: str, subtitle: str, *children: rx.Component, link: tuple[str, str] | None = None,
            **props: object) -> rx.Component:
    return container(
        rx.vstack(
            rx.hstack(
                rx.vstack(rx.heading(title, size="7", as_="h2"), rx.text(subtitle, color_scheme="gray"), spacing="1"),
                rx.spacer(),
                rx.link(link[0], rx.icon("arrow-right", size=16), href=link[1], weight="medium",
                        display="flex", align_items="center", gap="4px", white_space="nowrap", flex_shrink="0",
                        class_name="section-link") if link else rx.fragment(),
                width="100%", align="end",
            ),
            *children,
            spacing="5", width="100%",
        ),
        **props,
    )


def categories_section() -> rx.Component:
    return section(
        "Browse by Category", "Find the right agent for the job.",
        rx.grid(rx.foreach(HomeState.categories, category_tile), columns=rx.breakpoints(initial="2", md="4"),
                spacing="4", width="100%", id="home-categories"),
        link=("All categories", "/categories"),
    )


def featured_section(subtitle: str) -> rx.Component:
    return section(
        "Featured Agents", subtitle,
        rx.cond(
            ~HomeState.loading & (HomeState.featured.length() == 0),
            rx.text("No featured agents yet.", color_scheme="gray"),
            agent_grid(HomeState.featured, HomeState.loading, grid_id="featured-agents"),
        ),
        link=("View all agents", "/agents"),
    )


def hero() -> rx.Component:
    return rx.box(
        container(
            rx.vstack(
                rx.badge("500+ AI agents ready to work", size="2", variant="soft"),
                rx.heading("Find the perfect AI agent for every job", size="9", align="center", max_width="800px",
                           as_="h1"),
                rx.text("Discover, buy and deploy AI agents built by expert vendors. 30-day money-back guarantee "
                        "and free updates for 1 year.", size="4", color_scheme="gray", align="center",
                        max_width="640px"),
                rx.hstack(
                    button_link("Browse Agents", href="/agents", size="3"),
                    button_link("Start Selling", href="/api/login", size="3", variant="outline"),
                    spacing="3",
                ),
                stats_row(padding_top="1.5em"),
                align="center", spacing="5", padding_y="3em",
            )
        ),
        background="linear-gradient(180deg, var(--accent-a3), transparent)",
    )


def _feature(text: rx.Var | str) -> rx.Component:
    return rx.hstack(rx.icon("check", size=16, color="var(--green-9)"), rx.text(text, size="2"))


def _plan(plan: PlanOption) -> rx.Component:
    """One plan as stored: its name, price, limit and fee; the button leads to /vendor/plans (sign-in first)."""
    return rx.card(
        rx.vstack(
            rx.heading(plan.name, size="5", as_="h3"),
            rx.hstack(rx.heading(rx.el.p(plan.price), size="8", as_child=True), rx.text("/month", color_scheme="gray"),
                      align="baseline"),
            _feature(plan.limit_label),
            _feature(plan.fee_label),
            _feature(plan.support),
            button_link("Get Started", href="/vendor/plans", width="100%",
                        variant=rx.cond(plan.featured, "solid", "soft"), id=f"plan-{plan.id}-start"),
            spacing="3", align="start",
        ),
        size="3", id=f"plan-{plan.id}", class_name="offer-plan",
    )


def pricing() -> rx.Component:
    return container(
        rx.vstack(
            rx.heading("Simple pricing for vendors", size="7", align="center", as_="h2"),
            rx.grid(
                rx.cond(OfferState.loading, rx.fragment(*[skeleton_block("16em") for _ in range(3)]),
                        rx.foreach(OfferState.plans, _plan)),
                columns=rx.breakpoints(initial="1", md="3"), spacing="4", width="100%", id="pricing-plans",
            ),
            spacing="5", align="center",
        )
    )


def closing() -> rx.Component:
    return container(
        rx.card(
            rx.vstack(
                rx.heading("Built an AI agent? Sell it here.", size="6", align="center", as_="h2"),
                rx.text("Reach thousands of customers. Vendors keep the larger share of every sale.",
                        color_scheme="gray", align="center"),
                button_link("Submit Your Agent", href="/api/login", size="3"),
                align="center", spacing="3", padding=rx.breakpoints(initial="0.5em", sm="2em"),
            ),
            size="3", id="closing-cta",
        )
    )


def landing() -> rx.Component:
    return rx.box(
        hero(),
        categories_section(),
        container(rx.card(quick_search(heading="Quick Search", form_id="quick-search"), size="3")),
        featured_section("Hand-picked agents our customers love."),
        pricing(),
        closing(),
        id="landing",
    )


def _home_card(icon: str, title: str, text: str, href: str, card_id: str) -> rx.Component:
    return rx.link(
        rx.card(
            rx.hstack(
                rx.center(rx.icon(icon, size=22), width="44px", height="44px", border_radius="var(--radius-3)",
                          background="var(--accent-a3)", color="var(--accent-11)", flex_shrink="0"),
                rx.vstack(rx.heading(title, size="4", as_="h2"), rx.text(text, color_scheme="gray", size="2"),
                          spacing="1"),
                rx.spacer(),
                rx.icon("arrow-right", size=18, color="var(--gray-9)"),
                align="center", spacing="4", width="100%",
            ),
            size="3",
        ),
        href=href, underline="none", color_scheme="gray", high_contrast=True, id=card_id,
    )


def _role_switcher() -> rx.Component:
    """Demo mode only: test the product as another role."""
    return rx.callout(
        rx.hstack(
            rx.text("Testing as ", rx.badge(SessionState.role), " — try the vendor or admin side."),
            rx.link("Switch testing role", href="/demo-setup", id="role-switcher"),
            spacing="3", align="center", wrap="wrap",
        ),
        icon="flask-conical", size="1", variant="surface", width="100%",
    )


def home() -> rx.Component:
    return rx.box(
        container(
            rx.vstack(
                rx.heading(f"Welcome back, {SessionState.greeting_name}!", size="8", id="welcome",
                           overflow_wrap="anywhere", as_="h1"),
                rx.text("Discover new AI agents for your work.", color_scheme="gray"),
                _role_switcher() if settings.demo_enabled else rx.fragment(),
                rx.card(quick_search(heading="Find an agent", form_id="home-search"), size="3", width="100%"),
                rx.card(stats_row(width="100%", padding_y="0.5em"), size="3", width="100%"),
                rx.grid(
                    _home_card("store", "Browse Marketplace", "Explore all available AI agents", "/agents",
                               "browse-marketplace"),
                    _home_card("briefcase", "Apply as Vendor", "Start selling your own AI agents",
                               "/dashboard?tab=account", "apply-vendor"),
                    columns=rx.breakpoints(initial="1", md="2"), spacing="4", width="100%",
                ),
                spacing="5", align="start", width="100%",
            ),
        ),
        featured_section("Your purchases are marked, so you can spot what is new."),
        id="home",
    )


def index_page() -> rx.Component:
    return page_frame(rx.cond(SessionState.signed_in, home(), landing()))
