"""The Become a Vendor form and the pending-application card: /vendor shows them to non-vendors, /vendor/apply too."""

from __future__ import annotations

import reflex as rx

from marketplace.components.forms import field
from marketplace.state.vendors.application import VendorApplicationState as A
from marketplace.state.vendors.page import VendorState


def _input(label: str, name: str, control: rx.Component) -> rx.Component:
    return field(label, control, A.errors.get(name, ""), field_id=name)


def application_form() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.icon("store", size=28, color="var(--accent-9)"),
                rx.heading("Become a Vendor", size="6", as_="h2"),
                align="center", spacing="3",
            ),
            rx.text("Sell your AI agents on AgentMarket. Tell us about your business; every application is reviewed "
                    "within 24 hours.", color_scheme="gray", size="2"),
            rx.cond(VendorState.previously_rejected,
                    rx.callout("Your previous application was not approved. You are welcome to apply again.",
                               icon="info", color_scheme="amber", size="1", width="100%", id="previously-rejected")),
            rx.form(
                rx.vstack(
                    _input("Business Name *", "businessName",
                           rx.input(id="businessName", name="businessName", value=A.business_name,
                                    on_change=A.set_field("business_name"), placeholder="Acme AI Labs", size="3",
                                    max_length=200)),
                    _input("Business Description", "businessDescription",
                           rx.text_area(id="businessDescription", name="businessDescription",
                                        value=A.business_description, on_change=A.set_field("business_description"),
                                        placeholder="What kind of agents do you build?", rows="4", size="3")),
                    _input("Website", "website",
                           rx.input(id="website", name="website", value=A.website, on_change=A.set_field("website"),
                                    type="url", placeholder="https://example.com", size="3")),
                    rx.button(rx.cond(A.submitting, rx.spinner(size="2"), rx.icon("send", size=16)),
                              rx.cond(A.submitting, "Submitting...", "Submit Application"),
                              type="submit", disabled=A.submitting, size="3", width="100%",
                              id="submit-application"),
                    spacing="4", width="100%",
                ),
                on_submit=A.submit, no_validate=True, width="100%",
            ),
            spacing="4", width="100%",
        ),
        size="3", max_width="560px", width="100%", id="vendor-application",
    )


def application_pending() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.icon("hourglass", size=32, color="var(--amber-9)"),
            rx.heading("Application submitted", size="6", align="center", as_="h2"),
            rx.badge("Pending review", color_scheme="amber", size="2", id="application-status"),
            rx.data_list.root(
                rx.data_list.item(rx.data_list.label("Business"),
                                  rx.data_list.value(VendorState.application_business, id="application-business")),
                rx.data_list.item(rx.data_list.label("Applied on"),
                                  rx.data_list.value(VendorState.application_date, id="application-date")),
                orientation=rx.breakpoints(initial="vertical", sm="horizontal"),
            ),
            rx.text("We will review your application within 24 hours. You will get a notification once it is "
                    "decided.", color_scheme="gray", size="2", align="center"),
            align="center", spacing="3", padding="1em",
        ),
        size="3", max_width="520px", width="100%", id="application-pending",
    )


def application_view() -> rx.Component:
    """What a signed-in non-vendor sees: the form, or the card of the application that waits."""
    return rx.center(
        rx.cond(VendorState.mode == "pending", application_pending(), application_form()),
        padding_y="3em", padding_x="1em", width="100%",
    )
