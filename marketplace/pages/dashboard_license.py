"""My Agents' license key box: the purchase's key with a copy button, its status, its activations (name, when)
and Deactivate per activation."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

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


def _activation(row: ObjectVar[ActivationRow]) -> rx.Component:
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
                  on_click=DashboardState.ask_deactivate(row.id, row.name), class_name="deactivate-instance"),
        width="100%", align="center", spacing="2", class_name="activation-row", data_instance=row.id,
    )


def license_box(card: ObjectVar[PurchaseCard]) -> rx.Component:
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


def deactivate_dialog() -> rx.Component:
    """Deactivate asks first: the agent stops working on that machine until it is activated again."""
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title("Deactivate this machine?"),
            rx.alert_dialog.description(rx.text(
                "The agent on ", rx.text(DashboardState.deactivate_name, weight="bold", as_="span",
                                         id="deactivate-machine"),
                " stops working until it is activated again; its place can be used on another machine.")),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Keep it", variant="soft", color_scheme="gray",
                                                 id="keep-instance")),
                rx.alert_dialog.action(rx.button("Deactivate", color_scheme="red",
                                                 on_click=DashboardState.confirm_deactivate,
                                                 id="confirm-deactivate")),
                spacing="3", justify="end", margin_top="1em", wrap="wrap",
            ),
            id="deactivate-dialog", max_width="28em",
        ),
        open=DashboardState.deactivate_target != "",
        on_open_change=DashboardState.deactivate_dialog_changed,
    )


# My Agents reads its cards again when the window regains focus and every 20 s while it is shown, so a machine
# the agent activated meanwhile appears without a reload. Installed once per tab; it presses the hidden
# button of the page that is open (none: nothing happens).
REFRESH_SCRIPT = """(() => {
  if (window.__myAgentsRefresh) { return; }
  window.__myAgentsRefresh = true;
  const press = () => {
    const button = document.getElementById('refresh-purchases');
    if (button && document.visibilityState === 'visible') { button.click(); }
  };
  window.addEventListener('focus', press);
  document.addEventListener('visibilitychange', press);
  setInterval(press, 20000);
})()"""


def refresh_on_focus() -> rx.Component:
    return rx.el.button(on_click=DashboardState.refresh_purchases, on_mount=rx.call_script(REFRESH_SCRIPT),
                        id="refresh-purchases", type="button", aria_hidden="true", tab_index=-1,
                        style={"display": "none"})
