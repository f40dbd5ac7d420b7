"""The Webhooks tab of /vendor: the form that adds an endpoint (URL and event checkboxes), the new secret shown
once, the endpoints with Delivery log / Send test event / Rotate secret / Delete, and the open endpoint's
delivery log (status, attempts, response code, timing) with Resend; loading, empty and error states."""

from __future__ import annotations

import reflex as rx

from marketplace.components.data_table import Column, table
from marketplace.components.empty_state import empty_state
from marketplace.components.spinner import skeleton_block
from marketplace.state.vendors.webhooks import EVENTS, DeliveryRow, EndpointRow
from marketplace.state.vendors.webhooks import VendorWebhooksState as W

STATUS_COLORS = {"succeeded": "green", "failed": "red", "pending": "amber"}


def _event_box(event: str) -> rx.Component:
    """A checkbox labelled with the event's name, read with the form when it is sent."""
    return rx.checkbox(event, id=f"webhook-event-{event.replace('.', '-')}", name=f"event:{event}", size="2")


def _add_form() -> rx.Component:
    return rx.card(
        rx.form(
            rx.vstack(
                rx.heading("Add an endpoint", size="4", as_="h2"),
                rx.text("Endpoint URL", as_="label", html_for="webhook-url", size="2", weight="medium"),
                rx.input(
                    id="webhook-url",
                    name="url",
                    value=W.url,
                    on_change=W.set_url,
                    type="url",
                    placeholder="https://example.com/webhooks",
                    width="100%",
                    max_length=2048,
                ),
                rx.text("Events", size="2", weight="medium", id="webhook-events-label"),
                rx.grid(
                    *[_event_box(e) for e in EVENTS],
                    columns=rx.breakpoints(initial="1", sm="2", lg="3"),
                    spacing="2",
                    width="100%",
                    role="group",
                    aria_labelledby="webhook-events-label",
                ),
                rx.cond(
                    W.form_error != "",
                    rx.callout.root(
                        rx.callout.icon(rx.icon("triangle-alert", size=14)),
                        rx.callout.text(W.form_error),
                        color_scheme="red",
                        size="1",
                        id="webhook-form-error",
                        role="alert",
                    ),
                ),
                rx.button(
                    rx.cond(W.adding, rx.spinner(size="1"), rx.icon("plus", size=14)),
                    "Add Endpoint",
                    type="submit",
                    disabled=W.adding,
                    id="webhook-add",
                ),
                spacing="3",
                width="100%",
            ),
            on_submit=W.add,
            reset_on_submit=False,
            width="100%",
            id="webhook-form",
        ),
        width="100%",
    )


def _secret_once() -> rx.Component:
    return rx.callout.root(
        rx.callout.icon(rx.icon("key-round", size=16)),
        rx.vstack(
            rx.text(
                "Signing secret for ",
                rx.text(W.secret_url, as_="span", weight="medium"),
                ". Copy it now: it is shown only once.",
                size="2",
            ),
            rx.hstack(
                rx.code(
                    W.secret, size="2", id="webhook-secret", high_contrast=True, style={"overflow_wrap": "anywhere"}
                ),
                rx.icon_button(
                    rx.icon("copy", size=14),
                    size="1",
                    variant="soft",
                    aria_label="Copy secret",
                    title="Copy secret",
                    on_click=W.copy_secret,
                    id="webhook-secret-copy",
                ),
                rx.button(
                    "Done",
                    size="1",
                    variant="soft",
                    color_scheme="gray",
                    on_click=W.dismiss_secret,
                    id="webhook-secret-done",
                ),
                align="center",
                spacing="2",
                wrap="wrap",
            ),
            spacing="2",
        ),
        color_scheme="green",
        high_contrast=True,
        id="webhook-secret-callout",
        width="100%",
    )


def _endpoint(row: EndpointRow) -> rx.Component:
    busy = W.busy != ""
    return rx.table.row(
        rx.table.cell(rx.text(row.url, size="2", class_name="webhook-url", style={"overflow_wrap": "anywhere"})),
        rx.table.cell(rx.text(row.events, size="1", class_name="webhook-events")),
        rx.table.cell(rx.text(row.created, size="2", white_space="nowrap")),
        rx.table.cell(
            rx.flex(
                rx.button(
                    rx.icon("list", size=14),
                    "Delivery log",
                    size="1",
                    variant="soft",
                    on_click=W.open_log(row.id),
                    class_name="webhook-log",
                ),
                rx.button(
                    rx.cond(W.busy == row.id, rx.spinner(size="1"), rx.icon("send", size=14)),
                    "Send test event",
                    size="1",
                    variant="soft",
                    on_click=W.send_test(row.id),
                    disabled=busy,
                    class_name="webhook-test",
                ),
                rx.button(
                    rx.icon("refresh-cw", size=14),
                    "Rotate secret",
                    size="1",
                    variant="soft",
                    color_scheme="gray",
                    on_click=W.rotate(row.id),
                    disabled=busy,
                    class_name="webhook-rotate",
                ),
                rx.button(
                    rx.icon("trash-2", size=14),
                    "Delete",
                    size="1",
                    variant="soft",
                    color_scheme="red",
                    on_click=W.delete(row.id),
                    disabled=busy,
                    class_name="webhook-delete",
                ),
                spacing="2",
                wrap="wrap",
            )
        ),
        class_name="webhook-endpoint",
        data_id=row.id,
    )


def _delivery(row: DeliveryRow) -> rx.Component:
    return rx.table.row(
        rx.table.cell(rx.code(row.type, size="2")),
        rx.table.cell(
            rx.match(
                row.status, *[(s, rx.badge(s, color_scheme=c)) for s, c in STATUS_COLORS.items()], rx.badge(row.status)
            ),
            class_name="delivery-status",
        ),
        rx.table.cell(rx.text(row.attempts), class_name="delivery-attempts"),
        rx.table.cell(rx.text(row.response, title=row.error), class_name="delivery-response"),
        rx.table.cell(rx.text(row.duration, white_space="nowrap"), class_name="delivery-duration"),
        rx.table.cell(rx.text(row.created, white_space="nowrap")),
        rx.table.cell(
            rx.button(
                rx.icon("rotate-ccw", size=14),
                "Resend",
                size="1",
                variant="soft",
                on_click=W.resend(row.id),
                disabled=~row.can_resend | (W.busy != ""),
                class_name="delivery-resend",
            )
        ),
        class_name="webhook-delivery",
        data_id=row.id,
        data_status=row.status,
    )


def _log() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading("Delivery log", size="4", as_="h2"),
                rx.text(W.log_url, size="2", color_scheme="gray", style={"overflow_wrap": "anywhere"}),
                rx.spacer(),
                rx.button(
                    rx.icon("refresh-cw", size=14),
                    "Refresh",
                    size="1",
                    variant="soft",
                    on_click=W.refresh_log,
                    id="webhook-log-refresh",
                ),
                width="100%",
                align="center",
                spacing="2",
                wrap="wrap",
            ),
            rx.cond(
                W.log_loading,
                rx.vstack(skeleton_block("2.2em"), skeleton_block("2.2em"), width="100%", id="webhook-log-loading"),
                rx.cond(
                    W.log_error != "",
                    rx.callout.root(rx.callout.text(W.log_error), color_scheme="red", id="webhook-log-error"),
                    rx.cond(
                        ~W.has_deliveries,
                        empty_state(
                            "inbox",
                            "No deliveries yet",
                            "Events this endpoint listens to, and test events, show up here.",
                            element_id="webhook-log-empty",
                        ),
                        table(
                            [
                                "Event",
                                "Status",
                                "Attempts",
                                "Response",
                                Column("Time", "figure"),
                                Column("Created", "extra"),
                                "Actions",
                            ],
                            W.deliveries,
                            _delivery,
                            min_width="760px",
                            element_id="webhook-log-table",
                            size="1",
                        ),
                    ),
                ),
            ),
            spacing="3",
            width="100%",
        ),
        width="100%",
        id="webhook-log",
    )


def webhooks_tab() -> rx.Component:
    """Mounted when the tab opens; mounting loads the endpoints."""
    return rx.vstack(
        rx.text(
            "Your server hears about sales, renewals, cancellations, refunds and licence activations within "
            "seconds. Each POST is signed: check the X-AgentMarket-Signature header with the endpoint's "
            "secret (see the README).",
            size="2",
            color_scheme="gray",
        ),
        rx.cond(W.secret != "", _secret_once()),
        _add_form(),
        rx.cond(
            W.loading,
            rx.vstack(skeleton_block("3em"), skeleton_block("3em"), width="100%", id="webhooks-loading"),
            rx.cond(
                W.error != "",
                rx.callout.root(
                    rx.callout.text(W.error),
                    rx.button("Try again", size="1", on_click=W.load),
                    color_scheme="red",
                    id="webhooks-error",
                ),
                rx.cond(
                    ~W.has_endpoints,
                    empty_state(
                        "webhook",
                        "No webhook endpoints yet",
                        "Add an endpoint above to hear about your sales as they happen.",
                        element_id="webhooks-empty",
                    ),
                    table(
                        ["Endpoint", "Events", Column("Added", "extra"), "Actions"],
                        W.endpoints,
                        _endpoint,
                        min_width="760px",
                        element_id="webhooks-table",
                        size="1",
                    ),
                ),
            ),
        ),
        rx.cond(W.log_for != "", _log()),
        spacing="4",
        width="100%",
        on_mount=W.load,
    )
