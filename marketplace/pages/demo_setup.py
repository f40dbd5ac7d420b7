"""/demo-setup, 'Demo Testing Center': role switching, demo data and test cards. Demo mode only."""

from __future__ import annotations

import reflex as rx

from marketplace.components.badges import role_badge
from marketplace.components.layout import container, notice_card, page_frame
from marketplace.components.links import button_link
from marketplace.pages.not_found import not_found_card
from marketplace.state.demo_setup import DemoSetupState
from marketplace.state.session import SessionState, full_page_load

ROLES = [
    ("user", "Customer", "shopping-cart", "Browse, buy and review AI agents as a regular customer.",
     ["Browse and search the marketplace", "Buy agents with test cards", "Download purchased agents",
      "Review, favourite and report agents"]),
    ("vendor", "Vendor/Provider", "store", "List your own AI agents and follow their sales.",
     ["Submit new agents for review", "Manage your listings", "See earnings, sales and payouts",
      "Connect a payment account"]),
    ("admin", "Administrator", "shield", "Run the platform: approvals, users and payments.",
     ["Approve or reject agents and vendors", "Manage users and agents", "Analytics and commissions",
      "Payment settings and guest checkout"]),
]
TEST_CARDS = [("4242 4242 4242 4242", "Successful payment", "green"),
              ("4000 0000 0000 0002", "Card declined", "red"),
              ("4000 0000 0000 9995", "Insufficient funds", "orange")]
WORKFLOW = [
    ("Initialize demo settings", "Loads the demo categories, agents and accounts, and the default commission "
                                 "and currency settings."),
    ("Shop as a Customer", "Buy an agent with the success card, then download it from your dashboard."),
    ("Sell as a Vendor", "Switch to Vendor/Provider and submit an agent: it waits for approval."),
    ("Moderate as an Administrator", "Approve the agent, review vendor applications and adjust the commission."),
    ("Check the money trail", "Back as a Customer, buy the new agent and look at its payment details in your "
                              "dashboard."),
]


def _current_role() -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.vstack(
                rx.text("Current testing role", size="2", color_scheme="gray"),
                rx.hstack(role_badge(SessionState.role, size="3", id="current-role"),
                          rx.text(SessionState.display_name, weight="bold"), align="center", spacing="2"),
                rx.text(f"Signed in as {SessionState.username} · {SessionState.email}", size="2",
                        color_scheme="gray", id="current-account"),
                spacing="2",
            ),
            rx.spacer(),
            rx.vstack(
                rx.button(rx.cond(DemoSetupState.initializing, rx.spinner(size="2"), rx.icon("database", size=16)),
                          "Initialize Demo Settings", on_click=DemoSetupState.initialize,
                          disabled=DemoSetupState.initializing, size="3", id="init-demo"),
                rx.text("Adds any missing demo data and default settings.", size="1", color_scheme="gray"),
                rx.cond(SessionState.role != "admin",
                        rx.text("An admin action: switch to Administrator first.", size="1", color_scheme="gray",
                                id="init-demo-hint")),
                align="end", spacing="1",
            ),
            width="100%", align="center", wrap="wrap", spacing="4",
        ),
        width="100%",
    )


def _role_card(role: str, title: str, icon: str, description: str, features: list[str]) -> rx.Component:
    active = SessionState.role == role
    return rx.card(
        rx.vstack(
            rx.hstack(rx.icon(icon, size=22, color="var(--accent-9)"), rx.heading(title, size="4", as_="h2"),
                      rx.cond(active, rx.badge("Active", color_scheme="green")), align="center", spacing="2"),
            rx.text(description, size="2", color_scheme="gray"),
            rx.vstack(
                *[rx.hstack(rx.icon("check", size=14, color="var(--green-9)"), rx.text(f, size="2"),
                            align="center", spacing="2") for f in features],
                spacing="1",
            ),
            rx.spacer(),
            rx.button(
                rx.cond(active, "Currently Active",
                        rx.cond(DemoSetupState.switching == role, "Switching...", f"Switch to {title}")),
                on_click=DemoSetupState.switch_role(role),
                disabled=active | (DemoSetupState.switching != ""),
                variant=rx.cond(active, "soft", "solid"), width="100%", id=f"switch-{role}",
            ),
            spacing="3", height="100%",
        ),
        border=rx.cond(active, "1px solid var(--green-8)", "none"), id=f"role-{role}",
    )


def _payment_testing() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.icon("credit-card", size=20), rx.heading("Payment Testing", size="4", as_="h2"),
                      align="center"),
            rx.text("Use these card numbers at checkout:", size="2", color_scheme="gray"),
            *[rx.hstack(rx.code(number, size="3"), rx.spacer(), rx.badge(label, color_scheme=color),
                        width="100%", align="center") for number, label, color in TEST_CARDS],
            rx.text("Any future expiry date and any CVC work.", size="2"),
            rx.callout("Test mode: no real charges are made and no money moves.", icon="info", size="1",
                       color_scheme="blue", width="100%"),
            spacing="3", width="100%",
        ),
        width="100%", id="payment-testing",
    )


def _quick_links() -> rx.Component:
    links = [("Browse Marketplace", "/", "store"), ("My Dashboard", "/dashboard", "layout-dashboard"),
             ("Admin Settings", "/admin/settings", "settings")]
    return rx.card(
        rx.vstack(
            rx.heading("Quick Links", size="4", as_="h2"),
            *[button_link(rx.icon(icon, size=16), label, href=href, variant="outline", width="100%")
              for label, href, icon in links],
            spacing="3", width="100%",
        ),
        width="100%", id="quick-links",
    )


def _workflow() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Testing Workflow", size="4", as_="h2"),
            *[rx.hstack(
                rx.center(rx.text(str(n), size="2", weight="bold"), width="28px", height="28px", flex_shrink="0",
                          border_radius="50%", background="var(--accent-a4)", color="var(--accent-11)"),
                rx.vstack(rx.text(title, weight="bold", size="2"), rx.text(text, size="2", color_scheme="gray"),
                          spacing="0"),
                spacing="3", align="start") for n, (title, text) in enumerate(WORKFLOW, start=1)],
            spacing="3", width="100%",
        ),
        width="100%", id="workflow",
    )


def _signed_out() -> rx.Component:
    return notice_card("lock", "Login Required", "Sign in to switch roles and prepare demo data.",
                       rx.button("Login to Continue", on_click=full_page_load("/api/login"), id="login-to-continue"),
                       card_id="login-required")


def _center() -> rx.Component:
    return container(
        rx.vstack(
            rx.vstack(
                rx.heading("Demo Testing Center", size="8", as_="h1"),
                rx.text("Test the marketplace as a customer, vendor or administrator. Everything runs in test mode.",
                        color_scheme="gray"),
                spacing="1",
            ),
            _current_role(),
            rx.grid(*[_role_card(*r) for r in ROLES], columns=rx.breakpoints(initial="1", md="3"), spacing="4",
                    width="100%"),
            rx.grid(_payment_testing(), rx.vstack(_quick_links(), width="100%"),
                    columns=rx.breakpoints(initial="1", md="2"), spacing="4", width="100%"),
            _workflow(),
            spacing="5", width="100%",
        ),
        id="demo-setup",
    )


def demo_setup_page() -> rx.Component:
    return page_frame(
        rx.cond(
            DemoSetupState.demo_enabled,
            rx.cond(SessionState.signed_in, _center(), _signed_out()),
            not_found_card(),
        )
    )
