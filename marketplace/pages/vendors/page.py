"""/vendor and /vendor/apply: the frame around the tabs or the application, chosen by VendorState.mode."""

from __future__ import annotations

import reflex as rx

from marketplace.components.layout import container, notice_card, page_frame
from marketplace.components.links import button_link
from marketplace.components.spinner import skeleton_block
from marketplace.components.tabs import TabSpec, tab_view
from marketplace.pages.vendors.application import application_view
from marketplace.pages.vendors.dashboard import dashboard_tab
from marketplace.pages.vendors.notifications import notifications_tab
from marketplace.pages.vendors.webhooks import webhooks_tab
from marketplace.state.display import LOGGED_OUT_MESSAGE, LOGGED_OUT_TITLE
from marketplace.state.vendors.page import VendorState

TABS = [
    TabSpec("dashboard", "Dashboard", None, dashboard_tab, icon="layout-dashboard"),
    TabSpec("notifications", "Notifications", VendorState.unread_notifications, notifications_tab, icon="bell"),
    TabSpec("webhooks", "Webhooks", None, webhooks_tab, icon="webhook"),
]


def _loading() -> rx.Component:
    return container(
        rx.vstack(
            skeleton_block("2.2em", "16em"),
            rx.grid(*[skeleton_block("6em") for _ in range(6)], columns=rx.breakpoints(initial="1", sm="2", lg="3"),
                    spacing="4", width="100%"),
            spacing="5", width="100%",
        ),
        id="vendor-loading",
    )


def _signed_out() -> rx.Component:
    return notice_card("lock", LOGGED_OUT_TITLE, LOGGED_OUT_MESSAGE, rx.spinner(size="2"),
                       card_id="vendor-signed-out")


def _vendor_area() -> rx.Component:
    return container(
        rx.vstack(
            rx.vstack(
                rx.heading("Vendor Dashboard", size=rx.breakpoints(initial="7", sm="8"), id="vendor-heading", as_="h1"),
                rx.text("Your agents, sales, payouts and notifications", color_scheme="gray"),
                spacing="1",
            ),
            tab_view(TABS, VendorState.tab, VendorState.set_tab, label="Vendor section"),
            spacing="5", width="100%",
        ),
        id="vendor-area",
    )


def _already_vendor() -> rx.Component:
    return notice_card("store", "You are a vendor", "Your vendor account is approved.",
                       button_link("Go to Vendor Dashboard", href="/vendor"), card_id="already-vendor")


def by_mode(vendor_view: rx.Component) -> rx.Component:
    """The vendor's view once VendorState has found an approved vendor (and its time zone); else sign-in or the
    application."""
    return rx.match(
        VendorState.mode,
        ("signed_out", _signed_out()),
        ("apply", "pending", application_view()),
        ("vendor", vendor_view),
        _loading(),
    )


def vendor_page() -> rx.Component:
    return page_frame(by_mode(_vendor_area()))


def vendor_apply_page() -> rx.Component:
    return page_frame(by_mode(_already_vendor()))
