"""/dashboard: the signed-in user's agents, favourites, orders, profile, payment and account tabs."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar, Var

from marketplace.components.agent_card import price_tag, rating_line
from marketplace.components.badges import role_badge
from marketplace.components.empty_state import empty_state
from marketplace.components.image import agent_image
from marketplace.components.layout import container, notice_card, page_frame
from marketplace.components.links import button_link
from marketplace.components.spinner import section_spinner
from marketplace.components.tabs import TabSpec, tab_view
from marketplace.pages.account_security import security_card
from marketplace.pages.dashboard_license import deactivate_dialog, license_box, refresh_on_focus
from marketplace.pages.dashboard_payment import payment_tab
from marketplace.pages.dashboard_profile import profile_tab, read_value
from marketplace.pages.dashboard_receipts import receipt_link
from marketplace.pages.dashboard_refunds import refund_action, refund_dialog
from marketplace.state.catalog import AgentCard
from marketplace.state.dashboard import DashboardState, OrderRow, PurchaseCard
from marketplace.state.session import SessionEvents, SessionState

# --- header and summary --------------------------------------------------------------------------------------


def _header() -> rx.Component:
    return rx.hstack(
        rx.vstack(
            # A long username (no spaces) breaks inside the heading rather than widening a phone's page.
            rx.heading(f"Welcome back, {DashboardState.greeting_name}!", size=rx.breakpoints(initial="6", md="8"),
                       id="welcome",
                       overflow_wrap="anywhere", as_="h1"),
            rx.text("Manage your AI agents and purchases", color_scheme="gray", size="3"),
            spacing="1", min_width="0",
        ),
        rx.spacer(),
        role_badge(SessionState.role, size="3", id="role-badge"),
        align="center", width="100%", wrap="wrap", spacing="3",
    )


def _summary_card(name: str, tab: str, title: str, icon: str, value: Var, caption: str) -> rx.Component:
    """One figure; on a phone the three sit in one row without icon or caption, so the agents start on the
    first screen (issue 34)."""
    wide_only = rx.breakpoints(initial="none", md="block")
    return rx.card(
        rx.hstack(
            rx.vstack(
                rx.text(title, size=rx.breakpoints(initial="1", md="2"), weight="medium", color_scheme="gray"),
                rx.cond(DashboardState.loading, rx.spinner(size="2"),
                        rx.heading(rx.el.p(value), size=rx.breakpoints(initial="3", md="7"), overflow_wrap="anywhere",
                                   id=f"summary-{name}-value", as_child=True)),
                rx.text(caption, size="1", color_scheme="gray", display=wide_only),
                spacing="1", min_width="0",
            ),
            rx.spacer(),
            rx.box(rx.icon(icon, size=22, color="var(--accent-9)"), display=wide_only),
            width="100%", spacing=rx.breakpoints(initial="0", md="3"),  # no gap beside the hidden icon on phones
        ),
        size=rx.breakpoints(initial="1", md="2"),
        on_click=DashboardState.set_tab(tab),
        cursor="pointer", role="button", id=f"summary-{name}",
        _hover={"box_shadow": "0 0 0 1px var(--accent-8)"},
    )


def _summary() -> rx.Component:
    return rx.grid(
        _summary_card("agents", "purchases", "My Agents", "bot", DashboardState.agents_owned, "AI agents owned"),
        _summary_card("spent", "orders", "Total Spent", "dollar-sign", DashboardState.total_spent,
                      "Total investment"),
        _summary_card("orders", "orders", "Orders", "receipt", DashboardState.completed_orders, "Completed orders"),
        columns="3", spacing=rx.breakpoints(initial="2", md="4"), width="100%",
    )


# --- My Agents ---------------------------------------------------------------------------------------------


def _payment_box(card: ObjectVar[PurchaseCard]) -> rx.Component:
    split = rx.vstack(
        rx.badge(rx.icon("split", size=14), f"Commission Split ({card.split_label})", color_scheme="green",
                 variant="soft"),
        rx.hstack(rx.text("Vendor received:", color_scheme="gray"), rx.text(card.vendor_amount, weight="medium"),
                  spacing="2"),
        rx.hstack(rx.text("Platform fee:", color_scheme="gray"), rx.text(card.platform_fee, weight="medium"),
                  spacing="2"),
        rx.cond(
            card.original_usd != "",
            rx.hstack(rx.text("Original (USD):", color_scheme="gray"),
                      rx.text(f"{card.original_usd} (rate {card.exchange_rate})", weight="medium"), spacing="2"),
        ),
        spacing="1", size="1",
    )
    direct = rx.vstack(
        rx.badge(rx.icon("landmark", size=14), "Direct Payment", color_scheme="orange", variant="soft"),
        rx.text(
            rx.cond(card.split_reason != "", f"Reason: {card.split_reason}", "Payment processed directly to platform"),
            color_scheme="gray", size="1",
        ),
        spacing="1",
    )
    return rx.box(
        rx.text("Payment Processing", size="2", weight="bold"),
        rx.box(rx.cond(card.split_enabled, split, direct), padding_top="0.4em", font_size="var(--font-size-1)"),
        background="var(--gray-a2)", border="1px solid var(--gray-a4)", border_radius="var(--radius-3)",
        padding="0.75em", width="100%", class_name="payment-processing",
    )


def _subscription_box(card: ObjectVar[PurchaseCard]) -> rx.Component:
    """A subscribed agent: its status, 'Renews on' / 'Ends on', Cancel or Resume, and after a failed renewal the
    link to the update-card page."""
    busy = DashboardState.changing_subscription == card.subscription_id
    status = rx.match(
        card.subscription_status,
        ("active", rx.badge(rx.icon("repeat", size=12), "Active", color_scheme="green")),
        ("past due", rx.badge(rx.icon("triangle-alert", size=12), "Payment failed", color_scheme="red")),
        ("trialing", rx.badge(rx.icon("gift", size=12), "Free trial", color_scheme="green")),
        rx.badge(rx.icon("circle-slash", size=12), card.subscription_label, color_scheme="gray"),
    )
    return rx.vstack(
        rx.hstack(
            rx.text("Monthly subscription", size="2", weight="bold"),
            rx.box(status, class_name="subscription-status"),
            rx.spacer(),
            rx.text(card.renewal, size="2", color_scheme="gray", class_name="subscription-renewal"),
            width="100%", align="center", wrap="wrap", spacing="2",
        ),
        rx.cond(
            card.past_due,
            button_link(rx.icon("credit-card", size=16), "Update card", href=card.card_update_url,
                        color_scheme="red", variant="soft", width="100%", class_name="update-card-link"),
        ),
        rx.cond(
            card.can_cancel,
            rx.button(rx.cond(busy, rx.spinner(size="1"), rx.icon("circle-x", size=16)), "Cancel subscription",
                      variant="outline", color_scheme="gray", disabled=busy, width="100%",
                      on_click=DashboardState.ask_cancel(card.subscription_id), class_name="cancel-subscription"),
        ),
        rx.cond(
            card.can_resume,
            rx.button(rx.cond(busy, rx.spinner(size="1"), rx.icon("rotate-ccw", size=16)), "Resume subscription",
                      variant="soft", disabled=busy, width="100%",
                      on_click=DashboardState.resume_subscription(card.subscription_id),
                      class_name="resume-subscription"),
        ),
        background="var(--gray-a2)", border="1px solid var(--gray-a4)", border_radius="var(--radius-3)",
        padding="0.75em", width="100%", spacing="2", class_name="subscription-box",
    )


def _cancel_dialog() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Cancel subscription?"),
            rx.alert_dialog.description(f"You keep access until {DashboardState.cancel_until}. You will not be "
                                        "charged again."),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Keep subscription", variant="soft", color_scheme="gray",
                                                 on_click=DashboardState.keep_subscription)),
                rx.alert_dialog.action(rx.button("Cancel subscription", color_scheme="red",
                                                 on_click=DashboardState.confirm_cancel, id="confirm-cancel")),
                spacing="3", justify="end", margin_top="1em", wrap="wrap",
            ),
            id="cancel-dialog", max_width="28em",
        ),
        open=DashboardState.cancel_target != "",
        on_open_change=DashboardState.cancel_dialog_changed,
    )


def _purchase_card(card: ObjectVar[PurchaseCard]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                agent_image(card.image_url, width="72px", height="72px", emoji_size="2em"),
                rx.vstack(
                    rx.heading(card.name, size="4", as_="h2"),
                    rx.text(card.description, size="2", color_scheme="gray", class_name="line-clamp-2",
                            style={"display": "-webkit-box", "-webkit-line-clamp": "2",
                                   "-webkit-box-orient": "vertical", "overflow": "hidden"}),
                    spacing="1", min_width="0",
                ),
                spacing="3", width="100%", align="start",
            ),
            rx.hstack(
                rx.text(f"Version {card.version_label}", size="2", class_name="version-label"),
                rx.cond(card.new_version, rx.badge("New", color_scheme="green", size="1", class_name="new-version")),
                align="center", spacing="2", color="var(--gray-11)",
            ),
            rx.hstack(
                rx.hstack(rx.icon("calendar", size=14), rx.text(f"Purchased {card.purchased_on}", size="2"),
                          align="center", spacing="1", color="var(--gray-11)"),
                rx.spacer(),
                rx.text(card.price, size="4", weight="bold", class_name="purchase-price"),
                width="100%", align="center",
            ),
            rx.cond(card.subscription_id != "", _subscription_box(card)),
            rx.cond(card.license_key != "", license_box(card)),
            rx.cond(card.has_order, _payment_box(card)),
            rx.hstack(
                rx.cond(
                    card.access_note == "",
                    rx.button(
                        rx.cond(DashboardState.downloading == card.id, rx.spinner(size="1"),
                                rx.icon("download", size=16)),
                        "Download",
                        on_click=DashboardState.download(card.id),
                        disabled=DashboardState.downloading != "",
                        flex="1", class_name="download-button",
                    ),
                    rx.badge(rx.icon("lock", size=12), card.access_note, color_scheme="gray", size="2",
                             flex="1", justify_content="center", class_name="access-note"),
                ),
                rx.cond(
                    card.demo_url != "",
                    button_link(rx.icon("external-link", size=16), "Demo", href=card.demo_url, is_external=True,
                                variant="outline", width="100%", flex="1", class_name="demo-link"),
                ),
                width="100%", spacing="2",
            ),
            spacing="3", height="100%",
        ),
        class_name="purchase-card", data_agent=card.name,
    )


def _purchases_tab() -> rx.Component:
    return rx.cond(
        DashboardState.loading,
        section_spinner("purchases-loading"),
        rx.cond(
            DashboardState.purchases.length() == 0,
            empty_state("package-open", "No agents purchased yet",
                        "Start building your AI toolkit by browsing our marketplace.",
                        button_link("Browse Agents", href="/"), element_id="purchases-empty"),
            rx.box(
                rx.grid(rx.foreach(DashboardState.purchases, _purchase_card),
                        columns=rx.breakpoints(initial="1", md="2"), spacing="4", width="100%", id="purchase-grid"),
                _cancel_dialog(),
                deactivate_dialog(),
                refresh_on_focus(),
                width="100%",
            ),
        ),
    )


# --- Favorites, Order History ------------------------------------------------------------------------------


def _favorite_card(card: ObjectVar[AgentCard]) -> rx.Component:
    return rx.link(
        rx.card(
            rx.hstack(
                agent_image(card.image_url, width="56px", height="56px", emoji_size="1.6em"),
                rx.vstack(
                    rx.heading(card.name, size="3", as_="h2"),
                    rx.hstack(price_tag(card), rating_line(card.rating, card.review_count), spacing="3",
                              align="center"),
                    rx.cond(card.bought,
                            rx.badge(rx.icon("circle-check", size=12), "Already purchased", color_scheme="green")),
                    spacing="1", align="start",
                ),
                spacing="3", align="start",
            ),
            width="100%", height="100%",
        ),
        href=f"/agents/{card.id}", underline="none", color="inherit", class_name="favorite-card",
    )


def _favorites_tab() -> rx.Component:
    return rx.cond(
        DashboardState.loading,
        section_spinner("favorites-loading"),
        rx.cond(
            DashboardState.favorites.length() == 0,
            empty_state("heart", "No favorite agents yet", "", button_link("Browse Agents", href="/agents"),
                        element_id="favorites-empty"),
            rx.grid(rx.foreach(DashboardState.favorites, _favorite_card),
                    columns=rx.breakpoints(initial="1", md="2", lg="3"), spacing="4", width="100%"),
        ),
    )


def _order_row(order: ObjectVar[OrderRow]) -> rx.Component:
    status = rx.match(
        order.status,
        ("completed", rx.badge(rx.icon("circle-check", size=12), order.status_label, color_scheme="green")),
        ("refunded", rx.badge(rx.icon("undo-2", size=12), order.status_label, color_scheme="gray")),
        rx.badge(rx.icon("clock", size=12), order.status_label, color_scheme="yellow"),
    )
    return rx.hstack(
        rx.center(rx.icon("receipt", size=18), width="40px", height="40px", border_radius="var(--radius-3)",
                  background="var(--accent-a3)", color="var(--accent-11)", flex_shrink="0"),
        rx.vstack(
            rx.text(f"Order #{order.number}", weight="bold", size="2", class_name="order-number"),
            rx.text(order.agent_name, size="2"),
            rx.text(order.placed_at, size="1", color_scheme="gray"),
            rx.cond(order.discount != "", rx.text(order.discount, size="1", color="var(--green-11)",
                                                  class_name="order-discount")),
            rx.cond(order.receipt_url != "", receipt_link(order)),
            spacing="0",
        ),
        rx.spacer(),
        rx.vstack(rx.text(order.total, weight="bold", size="2"), status, refund_action(order), align="end",
                  spacing="1"),
        align="center", width="100%", padding_y="0.75em", border_bottom="1px solid var(--gray-a4)",
        class_name="order-row",
    )


def _orders_tab() -> rx.Component:
    return rx.cond(
        DashboardState.loading,
        section_spinner("orders-loading"),
        rx.cond(
            DashboardState.orders.length() == 0,
            empty_state("receipt", "No orders found", "Your purchase history will appear here.",
                        element_id="orders-empty"),
            rx.card(
                rx.heading("Order History", size="4", as_="h2"),
                rx.box(rx.foreach(DashboardState.orders, _order_row), width="100%"),
                refund_dialog(),
                width="100%",
            ),
        ),
    )


# --- Account (Payment: pages/dashboard_payment.py) --------------------------------------------------------------------


def _become_vendor() -> rx.Component:
    pending = rx.vstack(
        rx.badge(rx.icon("hourglass", size=12), "Application pending review", color_scheme="amber", size="2"),
        rx.text(f"Submitted {DashboardState.application_date}. An administrator will review it soon.", size="2",
                color_scheme="gray"),
        spacing="2", id="vendor-application-pending",
    )
    open_to_apply = rx.vstack(
        rx.cond(DashboardState.application_status == "rejected",
                rx.text("Your previous application was not approved. You are welcome to apply again.", size="2",
                        color_scheme="gray")),
        rx.button(rx.cond(DashboardState.applying, "Applying...", "Apply Now"), on_click=DashboardState.apply_as_vendor,
                  disabled=DashboardState.applying, id="apply-vendor"),
        spacing="2",
    )
    return rx.box(
        rx.hstack(
            rx.icon("store", size=22, color="var(--accent-9)"),
            rx.vstack(
                rx.heading("Become a Vendor", size="3", as_="h3"),
                rx.text("Start selling your own AI agents on our platform", size="2", color_scheme="gray"),
                rx.cond(DashboardState.application_status == "pending", pending, open_to_apply),
                spacing="2",
            ),
            spacing="3", align="start",
        ),
        border="1px solid var(--accent-a6)", background="var(--accent-a2)", border_radius="var(--radius-3)",
        padding="1em", width="100%", id="become-vendor",
    )


def _account_tab() -> rx.Component:
    return rx.vstack(
        rx.card(
            rx.vstack(
                rx.heading("Account Information", size="4", as_="h2"),
                rx.grid(
                    read_value("Name", SessionState.display_name, "account-name"),
                    read_value("Email", SessionState.email, "account-email"),
                    rx.vstack(rx.text("Account Type", size="1", weight="medium", color_scheme="gray"),
                              role_badge(SessionState.role, id="account-type"), spacing="1"),
                    columns=rx.breakpoints(initial="1", sm="3"), spacing="4", width="100%",
                ),
                spacing="4", width="100%",
            ),
            width="100%",
        ),
        security_card(),
        rx.card(
            rx.vstack(
                rx.heading("Account Actions", size="4", as_="h2"),
                rx.cond(DashboardState.can_apply, _become_vendor()),
                rx.hstack(
                    button_link(rx.icon("store", size=16), "Browse Agents", href="/", variant="outline"),
                    rx.button(rx.icon("log-out", size=16), "Sign Out", color_scheme="red", variant="soft",
                              on_click=SessionEvents.logout, id="sign-out"),
                    spacing="2", wrap="wrap",
                ),
                spacing="4", width="100%",
            ),
            width="100%",
        ),
        spacing="4", width="100%",
    )


# --- page --------------------------------------------------------------------------------------------------

TABS = [
    TabSpec("purchases", "My Agents", None, _purchases_tab, icon="bot"),
    TabSpec("favorites", "Favorites", None, _favorites_tab, icon="heart"),
    TabSpec("orders", "Order History", None, _orders_tab, icon="receipt"),
    TabSpec("profile", "Profile", None, profile_tab, icon="user"),
    TabSpec("payment", "Payment", None, payment_tab, icon="credit-card"),
    TabSpec("account", "Account", None, _account_tab, icon="settings"),
]


def _signed_out() -> rx.Component:
    return notice_card("lock", "Authentication Required", "Please log in to access your dashboard.",
                       button_link("Log In", href="/login"), card_id="auth-required")


def dashboard_page() -> rx.Component:
    return page_frame(
        rx.cond(
            SessionState.signed_in,
            container(
                rx.vstack(_header(), _summary(),
                          tab_view(TABS, DashboardState.tab, DashboardState.set_tab, label="Dashboard section"),
                          spacing="6", width="100%"),
                id="dashboard",
            ),
            _signed_out(),
        )
    )
