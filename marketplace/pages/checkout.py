"""/checkout/{agentId}: order summary, billing details, the Stripe Payment Element and the payment progress."""

from __future__ import annotations

import reflex as rx

from marketplace.components.forms import field
from marketplace.components.image import agent_image
from marketplace.components.layout import container, notice_card, page_frame
from marketplace.components.links import button_link
from marketplace.components.stripe_payment import payment_element
from marketplace.components.test_cards import test_mode_note
from marketplace.state.checkout import SUCCESS_PATH, CheckoutState

WHAT_YOU_GET = [
    "Full access to the AI agent",
    "Installation instructions",
    "30-day money-back guarantee",
    "Free updates for 1 year",
]


def _row(label: rx.Var | str, value: rx.Var | str, *, strong: bool = False, row_id: str = "") -> rx.Component:
    weight = "bold" if strong else "regular"
    size = "4" if strong else "2"
    return rx.hstack(
        rx.text(label, size=size, weight=weight, color_scheme=None if strong else "gray"),
        rx.spacer(),
        rx.text(value, size=size, weight=weight, id=row_id),
        width="100%", align="center",
    )


def order_summary() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Order Summary", size="4", as_="h2"),
            rx.hstack(
                agent_image(CheckoutState.item_image, width="64px", height="64px", emoji_size="2em",
                            alt=CheckoutState.item_name),
                rx.vstack(
                    rx.text(CheckoutState.item_name, weight="bold", size="3", id="summary-agent-name"),
                    rx.text(CheckoutState.price_label, size="2", weight="medium", id="summary-price"),
                    rx.text(CheckoutState.summary_line, size="2", color_scheme="gray", id="summary-kind"),
                    spacing="1",
                ),
                align="center", spacing="3",
            ),
            rx.cond(CheckoutState.trial_line != "",
                    rx.callout(CheckoutState.trial_line, icon="gift", size="1", color_scheme="green",
                               variant="surface", width="100%", id="summary-trial")),
            rx.cond(CheckoutState.trial_used_line != "",
                    rx.callout(CheckoutState.trial_used_line, icon="info", size="1", color_scheme="gray",
                               variant="surface", width="100%", id="summary-trial-used")),
            rx.separator(size="4"),
            _row("Subtotal", CheckoutState.subtotal, row_id="summary-subtotal"),
            rx.cond(CheckoutState.promo_code != "",
                    rx.hstack(
                        rx.text("Discount (", rx.code(CheckoutState.promo_code, id="summary-code"), ")", size="2",
                                color_scheme="gray"),
                        rx.spacer(),
                        rx.text(CheckoutState.promo_discount, size="2", id="summary-discount",
                                color="var(--green-11)"),
                        width="100%", align="center",
                    )),
            rx.cond(CheckoutState.promo_months != "",
                    rx.text(CheckoutState.promo_months, size="1", color_scheme="gray", id="summary-code-months",
                            width="100%", text_align="right")),
            _row("Fees", CheckoutState.fees, row_id="summary-fees"),
            rx.separator(size="4"),
            _row(CheckoutState.total_label, CheckoutState.total, strong=True, row_id="summary-total"),
            rx.cond(CheckoutState.then_line != "",
                    rx.text(CheckoutState.then_line, size="2", color_scheme="gray", id="summary-then",
                            width="100%", text_align="right")),
            rx.cond(
                CheckoutState.is_eur,
                rx.vstack(
                    _row("Price in USD", CheckoutState.usd_price, row_id="summary-usd-price"),
                    rx.callout(
                        rx.text("Charged in euros at 1 USD = ", CheckoutState.exchange_rate, " EUR",
                                id="exchange-rate-note"),
                        icon="euro", size="1", variant="surface", color_scheme="gray", width="100%",
                    ),
                    spacing="2", width="100%",
                ),
            ),
            rx.cond((~CheckoutState.guest | (CheckoutState.client_secret != ""))
                    & (~CheckoutState.is_free | (CheckoutState.promo_code != "")), promo_form()),
            spacing="3", width="100%",
        ),
        size="3", width="100%", id="order-summary",
    )


def promo_form() -> rx.Component:
    """'Have a promotion code?': Apply reprices the checkout on the server; a refusal shows under the field and
    nothing else on the page changes. An applied code can be removed."""
    return rx.box(
        rx.separator(size="4", margin_bottom="var(--space-3)"),
        rx.cond(
            CheckoutState.promo_code != "",
            rx.hstack(
                rx.icon("tag", size=16, color="var(--green-11)"),
                rx.text("Code ", rx.text.strong(CheckoutState.promo_code), " applied", size="2",
                        id="promotion-code-applied"),
                rx.spacer(),
                rx.button("Remove", variant="ghost", size="1", type="button", id="remove-promotion-code",
                          on_click=CheckoutState.remove_promo,
                          disabled=CheckoutState.promo_applying | CheckoutState.processing),
                align="center", width="100%",
            ),
            rx.form(
                rx.vstack(
                    field("Have a promotion code?",
                          rx.hstack(
                              rx.input(id="promotionCode", name="promotionCode", value=CheckoutState.promo_input,
                                       on_change=CheckoutState.set_promo_input, auto_complete="off",
                                       placeholder="CODE", size="2", flex="1", min_width="0",
                                       max_length=64),
                              rx.button(rx.cond(CheckoutState.promo_applying, rx.spinner(size="1"), "Apply"),
                                        type="submit", size="2", variant="soft", id="apply-promotion-code",
                                        disabled=CheckoutState.promo_applying | CheckoutState.processing),
                              width="100%", spacing="2",
                          ),
                          CheckoutState.promo_error, field_id="promotionCode"),
                    width="100%",
                ),
                on_submit=CheckoutState.apply_promo, no_validate=True, width="100%",
            ),
        ),
        width="100%", id="promotion-code",
    )


def what_you_get() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("What you get", size="4", as_="h2"),
            *[
                rx.hstack(rx.icon("circle-check", size=18, color="var(--green-9)"), rx.text(item, size="2"),
                          align="center", spacing="2")
                for item in WHAT_YOU_GET
            ],
            spacing="3",
        ),
        size="3", width="100%", id="what-you-get",
    )


def billing_info() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.heading("Billing Information", size="4", as_="h2"),
            rx.grid(
                rx.vstack(rx.text("Name", size="1", color_scheme="gray"),
                          rx.text(CheckoutState.billing_name, size="2", weight="medium", id="billing-name"),
                          spacing="1"),
                rx.vstack(rx.text("Email", size="1", color_scheme="gray"),
                          rx.text(CheckoutState.billing_email, size="2", weight="medium", id="billing-email",
                                  word_break="break-all"),
                          spacing="1", min_width="0"),
                columns=rx.breakpoints(initial="1", sm="2"), spacing="4", width="100%",
            ),
            spacing="3", width="100%",
        ),
        size="3", width="100%",
    )


def _guest_input(attribute: str, name: str, label: str, *, kind: str, auto: str, placeholder: str) -> rx.Component:
    return field(label,
                 rx.input(id=name, name=name, type=kind, value=getattr(CheckoutState, attribute),
                          on_change=CheckoutState.set_field(attribute), auto_complete=auto,
                          placeholder=placeholder, size="3", width="100%"),
                 CheckoutState.errors.get(CheckoutState.FORM_FIELDS[attribute], ""), field_id=name)


def guest_details() -> rx.Component:
    """A signed-out buyer's e-mail and name (guest checkout), before the payment opens."""
    return rx.card(
        rx.form(
            rx.vstack(
                rx.heading("Your Details", size="4", as_="h2"),
                rx.text("Buy as a guest: we e-mail your receipt and a link to set a password for your new "
                        "account. Already have an account? ",
                        rx.link("Sign in", href=f"/login?next=/checkout/{CheckoutState.item_id}",
                                id="guest-sign-in"), size="2", color_scheme="gray"),
                _guest_input("guest_email", "guestEmail", "Email", kind="email", auto="email",
                             placeholder="you@example.com"),
                _guest_input("guest_name", "guestName", "Name", kind="text", auto="name", placeholder="Your name"),
                rx.cond(CheckoutState.guest_error != "",
                        rx.callout(CheckoutState.guest_error, icon="circle-alert", color_scheme="red", size="1",
                                   width="100%", id="guest-error")),
                rx.button(rx.cond(CheckoutState.preparing, rx.spinner(size="2"), rx.icon("arrow-right", size=16)),
                          rx.cond(CheckoutState.preparing, "Preparing payment...", "Continue to Payment"),
                          type="submit", size="3", width="100%", disabled=CheckoutState.preparing,
                          id="continue-to-payment"),
                spacing="3", width="100%",
            ),
            on_submit=CheckoutState.continue_as_guest, no_validate=True, width="100%",
        ),
        size="3", width="100%", id="guest-details",
    )


def payment_progress() -> rx.Component:
    return rx.cond(
        CheckoutState.progress > 0,
        rx.vstack(
            # A plain bar with no fill animation: the fill is the step's share the moment its label shows
            # (an animated fill lagged behind, 'Purchase successful!' over a bar about 70% full).
            rx.box(
                rx.box(width=f"{CheckoutState.progress}%", height="100%", background="var(--accent-9)",
                       border_radius="inherit", id="payment-progress-fill"),
                role="progressbar", aria_valuemin=0, aria_valuemax=100, aria_valuenow=CheckoutState.progress,
                aria_label=CheckoutState.progress_label, width="100%", height="8px", overflow="hidden",
                border_radius="9999px", background="var(--gray-a4)", id="payment-progress",
            ),
            rx.text(CheckoutState.progress_label, size="2", color_scheme="gray", id="payment-progress-label"),
            spacing="2", width="100%",
        ),
    )


def payment_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.icon("lock", size=18), rx.heading("Payment Details", size="4", as_="h2"), align="center",
                      spacing="2"),
            payment_progress(),
            payment_element(CheckoutState, return_url=SUCCESS_PATH, button_label=CheckoutState.pay_label,
                            disabled=CheckoutState.processing | CheckoutState.redirecting,
                            error_message=CheckoutState.payment_error, intent_type=CheckoutState.intent_type),
            rx.text("Payments are processed securely by Stripe. Your card details never reach our servers.",
                    size="1", color_scheme="gray"),
            spacing="4", width="100%",
        ),
        size="3", width="100%", id="payment-card",
    )


def free_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.icon("gift", size=18), rx.heading("This agent is free", size="4", as_="h2"), align="center",
                      spacing="2"),
            rx.text("No payment needed: add it to your agents and download it from your dashboard.", size="2",
                    color_scheme="gray"),
            payment_progress(),
            rx.button(CheckoutState.claim_label, size="3", width="100%", id="claim-free",
                      disabled=CheckoutState.processing | CheckoutState.redirecting,
                      on_click=CheckoutState.claim_free),
            spacing="4", width="100%",
        ),
        size="3", width="100%", id="free-card",
    )


def loading_view() -> rx.Component:
    return rx.center(
        rx.vstack(rx.spinner(size="3"), rx.text("Initializing secure checkout...", color_scheme="gray"),
                  align="center", spacing="3"),
        min_height="50vh", id="checkout-loading",
    )


def failed_view() -> rx.Component:
    return notice_card("circle-alert", "Failed to load checkout", CheckoutState.error_message,
                       button_link("Return Home", href="/", size="3"), card_id="checkout-failed",
                       text_id="checkout-error", color="var(--red-9)", max_width="440px")


def ready_view() -> rx.Component:
    return container(
        rx.vstack(
            # A link to the agent; pressed, it goes back instead when the page before was ours.
            button_link(rx.icon("arrow-left", size=16), "Back to Agent", href=f"/agents/{CheckoutState.item_id}",
                        variant="ghost", on_click=CheckoutState.back_to_agent.prevent_default, id="back-to-agent"),
            rx.vstack(
                rx.heading("Secure Checkout", size="8", as_="h1"),
                rx.text("Complete your purchase to get instant access.", color_scheme="gray"),
                spacing="1",
            ),
            # Side by side on wide screens (summary and what you get | payment); on a phone the payment comes
            # straight after the summary and 'What you get' last, so the card form is on the second screen.
            rx.box(
                rx.box(order_summary(), grid_area="summary"),
                rx.vstack(
                    rx.cond(CheckoutState.guest & (CheckoutState.client_secret == ""), guest_details(),
                            billing_info()),
                    rx.cond(CheckoutState.is_free, free_card(),
                            rx.cond(CheckoutState.client_secret != "",
                                    rx.fragment(payment_card(), test_mode_note()))),
                    spacing="4", width="100%", grid_area="pay",
                ),
                rx.box(what_you_get(), grid_area="get"),
                display="grid", width="100%", align_items="start", column_gap="var(--space-5)",
                row_gap="var(--space-4)",
                grid_template_columns=rx.breakpoints(initial="minmax(0, 1fr)", md="repeat(2, minmax(0, 1fr))"),
                grid_template_areas=rx.breakpoints(initial='"summary" "pay" "get"',
                                                   md='"summary pay" "get pay"'),
                grid_template_rows=rx.breakpoints(initial="auto", md="auto 1fr"),
            ),
            spacing="5", width="100%",
        ),
        id="checkout",
    )


def checkout_page() -> rx.Component:
    # The checkout's own loading view from the first paint, not a generic spinner first.
    return page_frame(
        rx.cond(
            CheckoutState.loading,
            loading_view(),
            rx.cond(CheckoutState.failed, failed_view(), ready_view()),
        ),
        pending=loading_view(),
    )
