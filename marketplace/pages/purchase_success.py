"""/purchase-success: the confirmation after checkout, with a short confetti burst: what was bought (agent,
amount, order number, license key, a subscription's renewal date) and what comes next."""

from __future__ import annotations

import reflex as rx

from marketplace.components.confetti import confetti
from marketplace.components.layout import page_frame
from marketplace.components.links import button_link
from marketplace.state.checkout import PurchaseSuccessState

CONFETTI_PIECES = 50
CONFETTI_MS = 3000
WHATS_NEXT = [
    ("mail", "Email confirmation", "You'll receive an email confirmation with your purchase details."),
    ("layout-dashboard", "Dashboard access", "Find your agent, its files and your order in your dashboard."),
    ("refresh-cw", "Free updates for 1 year", "Every new version of your agent is yours for a year."),
    ("life-buoy", "Contact support", "Questions about your agent? Our support team is here to help."),
]


SUPPORT_PATH = "/contact"


def _next_step(icon: str, title: str, text: str) -> rx.Component:
    heading = (rx.link(title, href=SUPPORT_PATH, weight="bold", size="2", id="contact-support")
               if title == "Contact support" else rx.text(title, weight="bold", size="2"))
    return rx.hstack(
        rx.center(rx.icon(icon, size=18), width="36px", height="36px", border_radius="50%",
                  background="var(--accent-a3)", color="var(--accent-11)", flex_shrink="0"),
        rx.vstack(heading, rx.text(text, size="2", color_scheme="gray"), spacing="0"),
        align="start", spacing="3",
    )


def _order_line(label: str, value: rx.Var, element_id: str) -> rx.Component:
    return rx.hstack(rx.text(label, size="2", color_scheme="gray"), rx.spacer(),
                     rx.text(value, size="2", weight="bold", id=element_id, text_align="right"),
                     width="100%", align="baseline", spacing="3")


def buyer_order() -> rx.Component:
    """A signed-in buyer's order: what was bought, for how much, its number and key, and its next charge."""
    S = PurchaseSuccessState
    return rx.card(
        rx.vstack(
            _order_line("Agent", S.order_agent, "order-agent"),
            _order_line("Amount", S.order_total, "order-total"),
            _order_line("Order number", S.order_number, "order-number"),
            rx.cond(S.order_renews != "", rx.text(S.order_renews, size="2", color_scheme="gray", id="order-renews",
                                                 align_self="end")),
            rx.cond(S.order_key != "", rx.vstack(
                rx.text("License key", size="2", color_scheme="gray"),
                rx.code(S.order_key, size="3", id="order-license-key", style={"word_break": "break-all"}),
                rx.text("Your agent asks for it when it starts; it is also in My Agents and in the download.",
                        size="1", color_scheme="gray"),
                spacing="1", width="100%",
            )),
            spacing="2", width="100%",
        ),
        width="100%", id="buyer-order",
    )


def guest_order() -> rx.Component:
    """A guest's order (no dashboard to see it in yet) and where the sign-in link went."""
    return rx.vstack(
        rx.card(
            rx.vstack(
                rx.hstack(rx.text("Order", size="2", color_scheme="gray"), rx.spacer(),
                          rx.text(PurchaseSuccessState.order_number, size="2", weight="bold", id="guest-order-number"),
                          width="100%"),
                rx.hstack(rx.text("Agent", size="2", color_scheme="gray"), rx.spacer(),
                          rx.text(PurchaseSuccessState.order_agent, size="2", weight="bold", id="guest-order-agent"),
                          width="100%"),
                rx.hstack(rx.text("Total", size="2", color_scheme="gray"), rx.spacer(),
                          rx.text(PurchaseSuccessState.order_total, size="2", weight="bold", id="guest-order-total"),
                          width="100%"),
                spacing="2", width="100%",
            ),
            width="100%", id="guest-order",
        ),
        rx.callout.root(
            rx.callout.icon(rx.icon("mail")),
            rx.vstack(
                rx.text("Check your e-mail", weight="bold", size="2"),
                rx.text(rx.cond(PurchaseSuccessState.trial, "We sent your trial's details",
                                "We sent your receipt"), " and a link to set your password to ",
                        rx.text.strong(PurchaseSuccessState.order_email, word_break="break-all"),
                        ". The link works once, for 24 hours; then your agent is in My Agents.", size="2"),
                spacing="1",
            ),
            color_scheme="blue", variant="surface", width="100%", id="check-your-email",
        ),
        spacing="3", width="100%",
    )


def _actions() -> rx.Component:
    return rx.flex(
        button_link(rx.icon("layout-dashboard", size=16), "View Dashboard", href="/dashboard", size="3",
                    id="view-dashboard"),
        button_link(rx.icon("package", size=16), "View My Purchases", href="/dashboard", size="3", variant="soft",
                    id="view-purchases"),
        button_link(rx.icon("search", size=16), "Browse More Agents", href="/", size="3", variant="outline",
                    id="browse-more"),
        spacing="3", wrap="wrap", justify="center", width="100%",
    )


def success_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.center(rx.icon("circle-check", size=40, color="var(--green-9)"), width="72px", height="72px",
                      border_radius="50%", background="var(--green-a3)"),
            rx.heading(rx.cond(PurchaseSuccessState.trial, "Free Trial Started!", "Purchase Successful!"), size="8",
                       align="center", id="purchase-success-title", as_="h1"),
            rx.text(rx.cond(PurchaseSuccessState.trial, "Nothing was charged today. Your AI agent is ready to use.",
                            "Thank you for your purchase. Your AI agent is ready to use."), size="3",
                    color_scheme="gray", align="center"),
            rx.callout(
                "This was a test transaction: no real charges were made.",
                icon="flask-conical", color_scheme="amber", variant="surface", width="100%", id="test-notice",
            ),
            rx.cond(
                PurchaseSuccessState.guest,
                guest_order(),
                rx.fragment(
                    rx.cond(PurchaseSuccessState.order_number != "", buyer_order()),
                    rx.box(
                        rx.heading("What's Next", size="4", margin_bottom="0.75em", as_="h2"),
                        rx.vstack(*[_next_step(*step) for step in WHATS_NEXT], spacing="3"),
                        width="100%", id="whats-next",
                    ),
                    _actions(),
                ),
            ),
            align="center", spacing="5", padding="1em",
        ),
        size="4", max_width="640px", width="100%",
    )


def purchase_success_page() -> rx.Component:
    # `confirmed` outlives a page load in the tab's state; until this load's on_load has run (is_hydrated),
    # a reload of the page must not show the previous load's celebration.
    return page_frame(
        rx.cond(
            PurchaseSuccessState.confirmed & PurchaseSuccessState.is_hydrated,
            rx.fragment(
                confetti(count=CONFETTI_PIECES, duration_ms=CONFETTI_MS),
                rx.center(success_card(), padding_y="3em", padding_x="1em"),
            ),
            rx.center(rx.vstack(rx.spinner(size="3"), rx.text("Confirming your payment...", color_scheme="gray"),
                                align="center"), min_height="50vh", id="confirming-payment"),
        )
    )
