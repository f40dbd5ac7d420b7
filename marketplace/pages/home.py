"""`/`: the landing page for visitors and the home page for signed-in users."""

from __future__ import annotations

import reflex as rx

from marketplace.components.layout import container, page_frame
from marketplace.state.session import SessionState, full_page_load

PLANS = [
    ("Free", "$0", ["Up to 3 agents", "15% transaction fee", "Community support"]),
    ("Pro", "$29", ["Unlimited listings", "10% transaction fee", "Priority support"]),
    ("Enterprise", "$99", ["Unlimited listings", "5% transaction fee", "Dedicated account manager"]),
]


def _stat(value: rx.Var | str, label: str) -> rx.Component:
    return rx.vstack(rx.heading(value, size="7"), rx.text(label, color_scheme="gray", size="2"),
                     align="center", spacing="1")


def hero() -> rx.Component:
    return rx.box(
        container(
            rx.vstack(
                rx.badge("500+ AI agents ready to work", size="2", variant="soft"),
                rx.heading("Find the perfect AI agent for every job", size="9", align="center", max_width="800px"),
                rx.text("Discover, buy and deploy AI agents built by expert vendors. 30-day money-back guarantee "
                        "and free updates for 1 year.", size="4", color_scheme="gray", align="center",
                        max_width="640px"),
                rx.hstack(
                    rx.link(rx.button("Browse Agents", size="3"), href="/agents"),
                    rx.button("Start Selling", size="3", variant="outline", on_click=full_page_load("/api/login")),
                    spacing="3",
                ),
                rx.hstack(_stat("99.9%", "Uptime"), spacing="8", padding_top="1.5em", id="hero-stats"),
                align="center", spacing="5", padding_y="3em",
            )
        ),
        background="linear-gradient(180deg, var(--accent-a3), transparent)",
    )


def pricing() -> rx.Component:
    def plan(name: str, price: str, features: list[str]) -> rx.Component:
        return rx.card(
            rx.vstack(
                rx.heading(name, size="5"),
                rx.hstack(rx.heading(price, size="8"), rx.text("/month", color_scheme="gray"), align="baseline"),
                *[rx.hstack(rx.icon("check", size=16, color="var(--green-9)"), rx.text(f, size="2")) for f in features],
                rx.button("Get Started", width="100%", variant="soft" if name != "Pro" else "solid",
                          on_click=full_page_load("/api/login")),
                spacing="3", align="start",
            ),
            size="3",
        )

    return container(
        rx.vstack(
            rx.heading("Simple pricing for vendors", size="7", align="center"),
            rx.grid(*[plan(*p) for p in PLANS], columns=rx.breakpoints(initial="1", md="3"), spacing="4",
                    width="100%"),
            spacing="5", align="center",
        )
    )


def closing() -> rx.Component:
    return rx.fragment(
        container(
            rx.card(
                rx.vstack(
                    rx.heading("Built an AI agent? Sell it here.", size="6"),
                    rx.text("Reach thousands of customers. Vendors keep the larger share of every sale.",
                            color_scheme="gray"),
                    rx.button("Submit Your Agent", size="3", on_click=full_page_load("/api/login")),
                    align="center", spacing="3", padding="2em",
                ),
                size="3",
            )
        ),
        rx.box(
            container(
                rx.hstack(
                    rx.text("© AgentMarket", color_scheme="gray", size="2"),
                    rx.spacer(),
                    *[rx.link(label, href="#", color_scheme="gray", size="2")
                      for label in ("About", "Terms", "Privacy", "Contact")],
                    spacing="4",
                )
            ),
            border_top="1px solid var(--gray-a5)",
        ),
    )


def landing() -> rx.Component:
    return rx.box(hero(), pricing(), closing(), id="landing")


def home() -> rx.Component:
    return rx.box(
        container(
            rx.vstack(
                rx.heading(f"Welcome back, {SessionState.display_name}!", size="8"),
                rx.text("Discover new AI agents for your work.", color_scheme="gray"),
                rx.grid(
                    rx.link(rx.card(rx.vstack(rx.icon("store"), rx.heading("Browse Marketplace", size="4"),
                                              rx.text("Explore all available AI agents", color_scheme="gray",
                                                      size="2"))), href="/agents", underline="none"),
                    rx.link(rx.card(rx.vstack(rx.icon("briefcase"), rx.heading("Apply as Vendor", size="4"),
                                              rx.text("Start selling your own AI agents", color_scheme="gray",
                                                      size="2"))), href="/dashboard", underline="none"),
                    columns=rx.breakpoints(initial="1", md="2"), spacing="4", width="100%",
                ),
                spacing="5", align="start", width="100%",
            )
        ),
        id="home",
    )


def index_page() -> rx.Component:
    return page_frame(rx.cond(SessionState.signed_in, home(), landing()))
