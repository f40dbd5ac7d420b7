"""/admin/settings: commission rate, checkout currency, the USD to EUR rate and guest checkout, for admins."""

from __future__ import annotations

import reflex as rx

from marketplace.components.forms import field
from marketplace.components.layout import container, page_frame
from marketplace.components.links import button_link
from marketplace.components.spinner import skeleton_block
from marketplace.pages.admin.plans import plans_section
from marketplace.pages.admin.widgets import denied_card
from marketplace.state.admin.plans import AdminPlansState
from marketplace.state.admin.settings import AdminSettingsState as S


def _heading() -> rx.Component:
    return rx.hstack(
        rx.vstack(
            rx.heading("Platform Settings", size=rx.breakpoints(initial="7", sm="8"), id="settings-heading", as_="h1"),
            rx.text("Commission on each sale, the currency buyers pay in, and who may buy. Changes apply to later "
                    "sales only.",
                    color_scheme="gray"),
            spacing="1",
        ),
        rx.spacer(),
        button_link(rx.icon("arrow-left", size=16), "Admin Panel", href="/admin", variant="outline",
                    id="back-to-admin"),
        width="100%", align="center", wrap="wrap", spacing="3",
    )


def _save_button(label: str, saving: rx.Var, changed: rx.Var, button_id: str) -> rx.Component:
    return rx.button(rx.cond(saving, rx.spinner(size="2"), rx.icon("save", size=16)),
                     rx.cond(saving, "Saving...", label), type="submit", disabled=saving | ~changed, size="3",
                     id=button_id, width=rx.breakpoints(initial="100%", sm="auto"))


def _commission_card() -> rx.Component:
    return rx.card(
        rx.form(
            rx.vstack(
                rx.hstack(rx.icon("percent", size=20, color="var(--accent-9)"),
                          rx.heading("Commission Rate", size="4", as_="h2"), align="center", spacing="2"),
                rx.text("Platform commission on each sale", size="2", color_scheme="gray"),
                field("Commission rate (%)", rx.hstack(
                    rx.input(id="commissionRate", name="commissionRate", value=S.commission_rate,
                             on_change=S.set_commission_rate, type="number", min="0", max="100", step="0.01",
                             size="3", width="10em", input_mode="decimal"),
                    rx.text("%", size="4", weight="bold"), align="center", spacing="2"),
                    field_id="commissionRate"),
                rx.text(f"Now: {S.stored_commission} to the platform, {S.vendor_share} to the vendor on split "
                        "payments. Orders keep the rate they were sold at.",
                        size="1", color_scheme="gray", id="commission-now"),
                _save_button("Save Commission Rate", S.saving_commission, S.commission_changed, "save-commission"),
                spacing="3", width="100%",
            ),
            on_submit=[S.save_commission, AdminPlansState.load],  # the Free plan's fee is this rate
            no_validate=True, width="100%",
        ),
        width="100%", id="commission-card",
    )


def _currency_option(value: str, label: str, note: str) -> rx.Component:
    return rx.el.label(
        rx.hstack(
            rx.radio_group.item(value=value, id=f"currency-{value}"),
            rx.vstack(rx.text(label, weight="bold", size="2"), rx.text(note, size="1", color_scheme="gray"),
                      spacing="0"),
            align="center", spacing="3",
        ),
        padding="0.75em", border_radius="var(--radius-3)", cursor="pointer", width="100%",
        border=rx.cond(S.checkout_currency == value, "1px solid var(--accent-8)", "1px solid var(--gray-a6)"),
    )


def _payment_card() -> rx.Component:
    return rx.card(
        rx.form(
            rx.vstack(
                rx.hstack(rx.icon("banknote", size=20, color="var(--accent-9)"),
                          rx.heading("Checkout Currency", size="4", as_="h2"), align="center", spacing="2"),
                rx.text("Prices are set in US dollars; in euros, buyers pay the dollar price converted at this rate.",
                        size="2", color_scheme="gray"),
                rx.radio_group.root(
                    rx.grid(_currency_option("usd", "USD ($)", "US dollars, no conversion"),
                            _currency_option("eur", "EUR (€)", "Converted at the rate below"),
                            columns=rx.breakpoints(initial="1", sm="2"), spacing="3", width="100%"),
                    value=S.checkout_currency, on_change=S.set_checkout_currency, name="checkoutCurrency",
                    id="checkout-currency", width="100%",
                ),
                field("USD → EUR exchange rate", rx.input(
                    id="usdToEurRate", name="usdToEurRate", value=S.usd_to_eur_rate, on_change=S.set_usd_to_eur_rate,
                    type="number", min="0.0001", step="0.0001", size="3", width="10em", input_mode="decimal"),
                    field_id="usdToEurRate"),
                rx.text(f"1 USD = {S.stored_rate} EUR now (4 decimals). Buyers are charged in "
                        f"{S.stored_currency.upper()}.", size="1", color_scheme="gray", id="payment-now"),
                _save_button("Save Payment Settings", S.saving_payment, S.payment_changed, "save-payment"),
                spacing="3", width="100%",
            ),
            on_submit=S.save_payment, no_validate=True, width="100%",
        ),
        width="100%", id="payment-card",
    )


def _guest_card() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.icon("user-round-check", size=20, color="var(--accent-9)"),
                      rx.heading("Guest Checkout", size="4", as_="h2"), align="center", spacing="2"),
            rx.text("Let signed-out visitors buy with their e-mail address and name. Each new address gets an "
                    "account; the receipt carries a link to set its password.", size="2", color_scheme="gray"),
            rx.el.label(
                rx.hstack(
                    rx.switch(checked=S.allow_guest_checkout, on_change=S.save_guest_checkout,
                              disabled=S.saving_guest, size="3", id="allowGuestCheckout"),
                    rx.text("Allow guest checkout", weight="bold", size="2"),
                    rx.cond(S.saving_guest, rx.spinner(size="1")),
                    align="center", spacing="3",
                ),
                cursor="pointer",
            ),
            rx.text(rx.cond(S.allow_guest_checkout, "On: visitors can buy without signing in.",
                            "Off: visitors must sign in to buy."), size="1", color_scheme="gray", id="guest-now"),
            spacing="3", width="100%",
        ),
        width="100%", id="guest-card",
    )


def _loading() -> rx.Component:
    return container(
        rx.vstack(skeleton_block("2.2em", "16em"),
                  rx.grid(skeleton_block("16em"), skeleton_block("16em"), columns=rx.breakpoints(initial="1", md="2"),
                          spacing="4", width="100%"),
                  spacing="5", width="100%"),
        id="settings-loading",
    )


def _settings() -> rx.Component:
    return container(
        rx.vstack(
            _heading(),
            rx.grid(_commission_card(), _payment_card(), _guest_card(), columns=rx.breakpoints(initial="1", md="2"),
                    spacing="4", width="100%", align_items="start"),
            plans_section(),
            spacing="5", width="100%",
        ),
        id="admin-settings",
    )


def admin_settings_page() -> rx.Component:
    return page_frame(rx.match(S.mode, ("denied", denied_card()), ("ready", _settings()), _loading()))
