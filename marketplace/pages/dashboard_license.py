"""My Agents' license key box: the purchase's key with a copy button, its status, its activations (name, when)
and Deactivate per activation."""

from __future__ import annotations

import reflex as rx

from marketplace.state.dashboard import ActivationRow, DashboardState, PurchaseCard


def _status(status: rx.Var) -> rx.Component:
    return rx.match(
        status,
        ("active", rx.badge("Active", color_scheme="green")),
        ("expired", rx.badge("Expired", color_scheme="gray")),
        ("disabled", rx.badge("Disabled", color_scheme="orange")),
        ("refunded", rx.badge("Refunded", color_scheme="red")),
        rx.badge(status, color_scheme="gray"),
    )


def _activation(row: ActivationRow) -> rx.Component:
    busy = DashboardState.deactivating == row.id
    return rx.hstack(
        rx.icon("monitor", size=14, flex_shrink="0"),
        rx.vstack(
            rx.text(row.name, size="2", weight="medium", class_name="activation-name",
                    style={"overflow_wrap": "anywhere"}),
            rx.text(f"Activated {row.activated_at}", size="1", color_scheme="gray"),
            spacing="0", min_width="0", flex="1",
        ),
        rx.button(rx.cond(busy, rx.spinner(size="1"), rx.icon("power-off", size=12)), "Deactivate", size="1",
                  variant="soft", color_scheme="gray", disabled=DashboardState.deactivating != "",
                  on_click=DashboardState.deactivate_instance(row.id), class_name="deactivate-instance"),
        width="100%", align="center", spacing="2", class_name="activation-row", data_instance=row.id,
    )


def license_box(card: PurchaseCard) -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.text("License key", size="2", weight="bold"),
            rx.box(_status(card.license_status), class_name="license-status"),
            rx.spacer(),
            rx.text(card.activation_usage, size="1", color_scheme="gray", class_name="activation-usage"),
            width="100%", align="center", wrap="wrap", spacing="2",
        ),
        rx.hstack(
            rx.code(card.license_key, size="2", variant="ghost", class_name="license-key",
                    style={"white_space": "nowrap", "overflow": "hidden", "text_overflow": "ellipsis"}),
            rx.icon_button(rx.icon("copy", size=14), size="1", variant="soft", aria_label="Copy license key",
                           title="Copy license key", on_click=DashboardState.copy_key(card.license_key),
                           class_name="copy-license-key"),
            width="100%", align="center", justify="between", spacing="2", min_width="0",
        ),
        rx.cond(card.license_disabled_reason != "",
                rx.callout.root(rx.callout.icon(rx.icon("ban", size=14)),
                                rx.callout.text("Key disabled: ", card.license_disabled_reason),
                                color_scheme="red", size="1", width="100%", class_name="license-disabled-reason")),
        rx.cond(
            card.activations.length() > 0,
            rx.vstack(rx.foreach(card.activations, _activation), width="100%", spacing="2",
                      class_name="activations"),
            rx.text("Not activated on any machine yet.", size="1", color_scheme="gray", class_name="no-activations"),
        ),
        background="var(--gray-a2)", border="1px solid var(--gray-a4)", border_radius="var(--radius-3)",
        padding="0.75em", width="100%", spacing="2", class_name="license-box",
    )
